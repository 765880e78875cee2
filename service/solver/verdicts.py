"""The Solver the service asks: the verdict cache (cache.py) that searches what it does not
hold, in the pool of pool.py.

Concurrent requests for one position share one search, which goes on (and is cached) even
if the requests go away; each request is answered by its deadline, and the searches each
owner (a player, a client address: a search counts against all its owners, see
service/solver/owners.py) and everyone together may have going are bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from aiohttp import web

from engine import Move, Position
from engine.solver import UNKNOWN, WINNABLE, Layout, layout
from service.solver.cache import Entry, Key, Verdict, VerdictCache, key_of
from service.solver.places import Places
from service.solver.pool import MIN_SEARCH, Steps, make_pool, search_board

log = logging.getLogger("service.solver")
T = TypeVar("T")

ANSWER_SLACK = 0.4  # seconds past its budget a request waits for a search at most
PER_OWNER = 2  # searches one player (or address) may have waiting or running at once
# an unknown verdict is searched again, deeper, when asked again and a worker is idle: up
# to this many times the budget (Solver._deeper); a position known to be winnable (a deal's
# opening the tables say is solvable, where a hint must not stay "unknown") up to the second
DEEPEST = 4
DEEPEST_WINNABLE = 32
# of which background searches (a new game's opening) may take this many: the owner's
# other place stays free for a hint
PREFETCH_PER_OWNER = PER_OWNER - 1

Owners = str | Sequence[str] | None
"""Who a search counts against: one owner ("player:<id>", "address:<ip>"), several (a
search counts against each), or nobody."""


def _owner_keys(owner: Owners) -> tuple[str, ...]:
    if owner is None:
        return ()
    return (owner,) if isinstance(owner, str) else tuple(owner)


class Solver(VerdictCache):
    """Verdicts for positions: the cache, searching what it does not hold in a pool."""

    def __init__(
        self,
        budget: float,
        *,
        workers: int = 1,
        capacity: int = 50_000,
        library: bool = True,
        prefetch: bool = True,
        executor_factory: Callable[[], Executor] | None = None,
    ) -> None:
        super().__init__(capacity)
        self.budget = budget
        self.library = library
        self._factory = executor_factory
        self._executor: Executor | None = None
        self.workers = workers  # the pool's processes (or threads): its places
        self._places: Places | None = None
        self._running: dict[Key, asyncio.Task[Entry]] = {}
        self._owners: dict[str, int] = {}  # searches started per owner, still running
        self.searches = 0
        # searches waiting or running at most; beyond, a request is answered "unknown"
        self.max_pending = 16
        self.prefetching = prefetch

    # the pool ------------------------------------------------------------------

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = (
                make_pool(self.workers) if self._factory is None else self._factory()
            )
        return self._executor

    @property
    def places(self) -> Places:
        """The pool's places, shared fairly (service/solver/places.py)."""
        if self._places is None:
            self._places = Places(self.workers)
        return self._places

    def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        if self._executor is not None:
            # a search already running ends within its budget, and its process with it
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        if self._places is not None:
            self._places.close()
            self._places = None

    async def offload(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a search process: work that would hold the service's interpreter
        too long (replaying a long log for an analysis). A pool a dead process broke is
        replaced, and asked once more."""
        try:
            return await self._in_pool(fn, *args)
        except BrokenProcessPool:
            log.error("a solver process died; starting a new pool")
            self._executor = None
            return await self._in_pool(fn, *args)

    async def _in_pool(
        self,
        fn: Callable[..., T],
        *args: Any,
        owners: tuple[str, ...] = (),
        budget: float = 0.0,
        stoppable: bool = False,
    ) -> T:
        """``fn(*args)`` in the pool, once it has a place (a worker; the place's block and
        number are given to ``fn`` after ``args`` when it is ``stoppable``), which it gives
        back when it ends. The pool's first task starts its processes, which takes a while
        (up to a second): tasks are handed over from a thread, off the event loop."""
        places = self.places
        place = await places.take(owners, budget, stoppable)
        try:
            if stoppable:
                args = (*args, places.path, place)
            done = await asyncio.to_thread(self._pool().submit, fn, *args)
        except BaseException:
            places.give_back(place)
            raise
        loop = asyncio.get_running_loop()

        def ended(_: object) -> None:
            with contextlib.suppress(RuntimeError):  # (the loop is closed: nobody waits)
                loop.call_soon_threadsafe(places.give_back, place)

        done.add_done_callback(ended)
        return await asyncio.wrap_future(done)

    # searching -----------------------------------------------------------------

    @property
    def searching(self) -> int:
        """The searches under way (or waiting for a worker)."""
        return len(self._running)

    def would_search(
        self, position: Position, budget: float | None = None, winnable: bool = False
    ) -> bool:
        """Whether asking about ``position`` would start a new search (nothing cached for
        it that holds at this budget, or only an unknown verdict that a deeper search may
        settle, and no search of it running)."""
        budget = self.budget if budget is None else budget
        key = key_of(position)
        entry = self.known(key)
        if (entry is not None and entry.holds(budget)
                and self._deeper(entry, budget, winnable) is None):  # fmt: skip
            return False
        return key not in self._running

    def _deeper(self, entry: Entry, budget: float, winnable: bool) -> float | None:
        """The budget of the next search of a position whose cached verdict is unknown:
        twice the last one's, while that is at most DEEPEST times ``budget`` (DEEPEST_WINNABLE
        for a position known to be ``winnable``); None when the verdict is known, the
        searches went as deep as that, or no worker is idle (a deeper search takes only what
        nobody else asks for, and gives its worker up to one who asks: _search). So asking
        again about a position that a search did not settle is not answered "unknown" for
        good: each ask starts a deeper search, which goes on past the answer and is cached
        for the next."""
        deepest = DEEPEST_WINNABLE if winnable else DEEPEST
        if entry.verdict != UNKNOWN or 2 * entry.budget > deepest * budget * 1.001:
            return None
        if len(self._running) >= self.workers:
            return None
        return 2 * entry.budget

    def _busy(self, owners: tuple[str, ...], most: int = PER_OWNER) -> bool:
        """Whether one of ``owners`` has ``most`` searches going already."""
        return any(self._owners.get(owner, 0) >= most for owner in owners)

    def prefetch(
        self,
        position: Position,
        owner: Owners = None,
        charge: Callable[[], bool] | None = None,
    ) -> bool:
        """Start the search for a position soon to be asked about (a new game's opening, the
        day's deal) in the background, when the workers are idle enough; its verdict is
        then cached by the time the player asks.  The search counts against ``owner`` (the
        game's creator), each of whom may have PREFETCH_PER_OWNER of them going (besides,
        PER_OWNER searches in all); ``charge``, asked last, may still say no (the owners'
        rate).  Returns whether the search started."""
        owners = _owner_keys(owner)
        if (
            not self.prefetching
            or len(self._running) >= self.max_pending // 2
            or self._busy(owners, PREFETCH_PER_OWNER)
        ):
            return False
        key = key_of(position)
        if key in self or key in self._running or (charge is not None and not charge()):
            return False
        self._start(key, position, self.budget, owners)
        return True

    async def verdict(
        self,
        position: Position,
        budget: float | None = None,
        *,
        owner: Owners = None,
        deadline: float | None = None,
        winnable: bool = False,
    ) -> Verdict:
        """The verdict on ``position`` within ``budget`` seconds (the service's by default).

        Requests for one position share one search, which goes on (and is cached) even if
        the request that started it goes away.  The answer comes by ``deadline`` (a
        ``time.monotonic()``; by default the budget and ANSWER_SLACK from now), "unknown" if
        the search has not ended by then, whoever else is searching: a search waiting for a
        worker gets only the time left to it.  Each ``owner`` (a player, an address; a new
        search counts against every one) may have PER_OWNER searches going at once; beyond
        that for any of them, and beyond ``max_pending`` in all, the answer is "unknown" at
        once rather than a place in a queue. ``winnable``: the position is known to be
        winnable (_deeper)."""
        budget = self.budget if budget is None else budget
        if deadline is None:
            deadline = time.monotonic() + budget + ANSWER_SLACK
        key = key_of(position)
        entry = self.get(key)
        deeper = None  # the budget of a deeper search than the one that found nothing
        if entry is not None and entry.holds(budget):
            deeper = self._deeper(entry, budget, winnable)
            if deeper is None or key in self._running:
                return entry.answer(position, True)
        running = self._running.get(key)
        fresh = running is None
        if running is None:
            owners = _owner_keys(owner)
            if len(self._running) >= self.max_pending or self._busy(owners):
                # the workers have more than enough to do: answer at once rather than queue
                return Verdict(UNKNOWN, None, "none")
            if deeper is not None:  # it goes on past this answer, and its verdict is cached
                budget = deeper
            else:
                budget = min(budget, deadline - ANSWER_SLACK - time.monotonic())
            if budget < MIN_SEARCH:
                return Verdict(UNKNOWN, None, "none")
            running = self._start(key, position, budget, owners)
        try:
            entry = await asyncio.wait_for(
                asyncio.shield(running), timeout=max(0.0, deadline - time.monotonic())
            )
        except TimeoutError:  # the search goes on, and its verdict is cached
            return Verdict(UNKNOWN, None, "none")
        return entry.answer(position, not fresh)

    def _start(
        self, key: Key, position: Position, budget: float, owners: tuple[str, ...] = ()
    ) -> asyncio.Task[Entry]:
        task = asyncio.get_running_loop().create_task(
            self._run(key, position.name, position.board_text(), layout(position), budget, owners)
        )
        self._running[key] = task
        task.add_done_callback(_retrieve)
        if owners:
            for owner in owners:
                self._owners[owner] = self._owners.get(owner, 0) + 1

            def release(_: object) -> None:
                for owner in owners:
                    left = self._owners.get(owner, 1) - 1
                    if left > 0:
                        self._owners[owner] = left
                    else:
                        self._owners.pop(owner, None)

            task.add_done_callback(release)
        return task

    async def _run(
        self, key: Key, variant: str, board: str, where: Layout, budget: float,
        owners: tuple[str, ...],
    ) -> Entry:
        try:
            entry, steps = await self._search(variant, board, where, budget, owners)
        finally:
            self._running.pop(key, None)
        self[key] = entry
        if entry.verdict == WINNABLE:
            self.remember_line(variant, entry, steps)
        return entry

    async def _search(
        self, variant: str, board: str, where: Layout, budget: float, owners: tuple[str, ...]
    ) -> tuple[Entry, Steps]:
        self.searches += 1
        deadline = time.monotonic() + budget  # a search that waits for a worker gets less
        try:
            # (a deeper search than the service's budget, which nobody waits for, gives
            # its worker up to anyone who waits, its own owners too (none in Places),
            # after half the service's budget)
            deeper = budget > self.budget
            searched = self._in_pool(
                search_board, variant, board, budget, self.library, deadline,
                owners=() if deeper else owners, budget=min(budget, self.budget),
                stoppable=True,
            )
            verdict, texts, _states, how, steps = await asyncio.wait_for(
                searched, timeout=budget + 30.0
            )
        except BrokenProcessPool:
            log.error("a solver process died; starting a new pool")
            self._executor = None
            return Entry(UNKNOWN, None, 0, where, 0.0, "none"), []
        except TimeoutError:
            return Entry(UNKNOWN, None, 0, where, 0.0, "none"), []
        line = None if texts is None else tuple(Move.parse(t) for t in texts)
        if how == "none":  # it never ran (its time went waiting): no verdict for any budget
            budget = 0.0
        return Entry(verdict, line, 0, where, budget, how), steps


def _retrieve(task: asyncio.Task[Entry]) -> None:
    """A search nobody waits for any more: its failure is logged, not left unread."""
    if not task.cancelled() and task.exception() is not None:
        log.warning("a search failed: %r", task.exception())


# the solver: verdict cache and search processes
SOLVER_KEY = web.AppKey("solver", Solver)
