"""The search processes' places, shared fairly among whoever asks.

A search (or an analysis's replay) takes a place, one worker of the pool, before it is
handed to the pool, so the pool never queues work of its own: the order in which waiting
work gets a worker is decided here. The waiting search whose owners have the fewest
searches running goes first, then the one whose owners were given a place the longest ago
(or never), then the oldest. And no one waits long behind one owner's
long search: when a search waits, the running search of another owner with at least as
many searches running as the waiter's is asked to stop once it has had FAIR_SHARE of its
budget (at once if it has had it already): it ends as if its time were up, "unknown" unless
it found a line, and its worker goes to the waiter. So one client who keeps the pool busy,
even with a single worker, delays another's hint by at most half a budget, and two players
who ask at once get half a budget each at worst.

A place's stop time lives in a block of shared memory (service/base/shm.py), which the
search reads in its worker between two slices of its work (a few milliseconds apart):
:func:`stopper`. Times are ``time.monotonic()``, one clock for every process of the machine.
"""

from __future__ import annotations

import asyncio
import itertools
import mmap
import os
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from service.base import shm

FAIR_SHARE = 0.5  # of its budget, a search others wait for may have before it stops
NEVER = float("inf")
MAX_SERVED = 4096  # owners whose last place is remembered
_TIME = struct.Struct("<d")
_blocks = itertools.count()
_mapped: dict[str, mmap.mmap] = {}  # in a worker: the blocks it has read


@dataclass
class _Running:
    owners: tuple[str, ...]
    started: float
    budget: float
    stoppable: bool  # a search is; an analysis's replay is not
    stopping: bool = False


@dataclass
class _Waiting:
    owners: tuple[str, ...]
    budget: float
    stoppable: bool
    since: float
    given: asyncio.Future[int] = field(repr=False)


class Places:
    """``count`` places, one a worker of the pool; see the module's docstring."""

    def __init__(self, count: int) -> None:
        self.count = max(1, count)
        self.path = shm.create(f"open-solitaire-stops-{next(_blocks)}-", _TIME.size * self.count)
        fd = os.open(self.path, os.O_RDWR)
        try:
            self._block = mmap.mmap(fd, _TIME.size * self.count)
        finally:
            os.close(fd)
        self._free = list(range(self.count))
        self._running: dict[int, _Running] = {}
        self._waiting: list[_Waiting] = []
        self._served: dict[str, float] = {}  # when each owner was last given a place
        self.stopped = 0  # searches asked to stop early for another's
        self._closed = False

    def close(self) -> None:
        self._closed = True
        self._block.close()
        shm.remove(self.path)

    async def take(self, owners: tuple[str, ...], budget: float, stoppable: bool) -> int:
        """A place for work of ``owners`` that may last ``budget`` seconds: its number, once
        one is free. Give it back (:meth:`give_back`) when the work has ended."""
        if self._free and not self._waiting:
            return self._give(self._free.pop(), owners, budget, stoppable)
        waiting = _Waiting(owners, budget, stoppable, time.monotonic(),
                           asyncio.get_running_loop().create_future())  # fmt: skip
        self._waiting.append(waiting)
        self._make_room(waiting)
        try:
            return await waiting.given
        except asyncio.CancelledError:
            if waiting.given.done() and not waiting.given.cancelled():
                self.give_back(waiting.given.result())  # given as it was cancelled
            elif waiting in self._waiting:
                self._waiting.remove(waiting)
            raise

    def give_back(self, place: int) -> None:
        if self._closed:
            return  # (work that ended after its solver)
        self._running.pop(place, None)
        if not self._waiting:
            self._free.append(place)
            return
        first = min(self._waiting, key=self._turn)
        self._waiting.remove(first)
        first.given.set_result(self._give(place, first.owners, first.budget, first.stoppable))
        if self._waiting:
            self._make_room(min(self._waiting, key=self._turn))

    def _turn(self, waiting: _Waiting) -> tuple[int, float, float]:
        """Which waiting work goes first: the smallest."""
        served = max((self._served.get(owner, -NEVER) for owner in waiting.owners),
                     default=-NEVER)  # fmt: skip
        return self._load(waiting.owners), served, waiting.since

    def _give(self, place: int, owners: tuple[str, ...], budget: float, stoppable: bool) -> int:
        now = time.monotonic()
        self._running[place] = _Running(owners, now, budget, stoppable)
        _TIME.pack_into(self._block, place * _TIME.size, NEVER)
        if len(self._served) > MAX_SERVED:  # the owners served the longest ago are forgotten
            kept = sorted(self._served.items(), key=lambda item: item[1])[MAX_SERVED // 2:]
            self._served = dict(kept)
        for owner in owners:
            self._served[owner] = now
        return place

    def _load(self, owners: tuple[str, ...]) -> int:
        """The most searches running for one of ``owners``."""
        return max((sum(owner in r.owners for r in self._running.values()) for owner in owners),
                   default=0)  # fmt: skip

    def _make_room(self, waiting: _Waiting) -> None:
        """Ask one running search to stop for ``waiting``, when one owes it room: of those
        that share no owner with it and whose owners have at least as many searches
        running, the most loaded, then the oldest (an owner's search waits behind its own
        without stopping them). None is asked while another already stops."""
        running = self._running.items()
        if len(self._running) < self.count or any(r.stopping for _, r in running):
            return
        least = self._load(waiting.owners)
        owing = [(self._load(r.owners), -r.started, place, r) for place, r in running
                 if r.stoppable and self._load(r.owners) >= least
                 and not set(r.owners) & set(waiting.owners)]  # fmt: skip
        if not owing:
            return
        *_, place, chosen = max(owing, key=lambda o: o[:3])
        chosen.stopping = True
        self.stopped += 1
        at = max(time.monotonic(), chosen.started + FAIR_SHARE * chosen.budget)
        _TIME.pack_into(self._block, place * _TIME.size, at)


def stopper(path: str | None, place: int) -> Callable[[], bool] | None:
    """In a worker: whether the search in ``place`` of the block at ``path`` has been asked
    to stop (None without a block)."""
    if path is None:
        return None
    block = _mapped.get(path)
    if block is None:
        fd = os.open(path, os.O_RDONLY)
        try:
            block = _mapped[path] = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
        finally:
            os.close(fd)
    offset = place * _TIME.size
    read = _TIME.unpack_from

    def stop() -> bool:
        stop_at: float = read(block, offset)[0]
        return time.monotonic() >= stop_at

    return stop
