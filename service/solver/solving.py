"""The solver in the service: hints, post-mortem analysis, solvable and daily deals.

Searches run off the event loop, in a small process pool (``solver_workers`` processes,
:func:`make_pool`, started by service/app.py), each within a time budget
(``hint_budget_seconds``).  In a worker, FreeCell, Baker's Game and Beleaguered Castle go
to Freecell Solver's library when it is installed (service/solver/fcsolve.py), everything else
(Baker's Dozen always) to the engine's own solver (engine/solver.py); the lines either
returns are replayed through the rules.

Verdicts are cached in this process by canonical position (positions that differ only in
the order of columns or cells share one entry), least recently used first out.  A winning
line is cached for every position along it, so following hints, undo and redo answer at
once; concurrent requests for one position share one search.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from engine import VARIANTS, Card, Event, Game, Move, Position
from engine.shorten import shorten
from engine.solver import (
    UNKNOWN,
    UNWINNABLE,
    WINNABLE,
    Layout,
    canonical_key,
    layout,
    remap,
    solve,
    trace,
)
from service.deals.table import table
from service.solver import fcsolve

log = logging.getLogger("service.solver")

SHORT_LINE_SHARE = 0.6  # of a search's time, for the library's short-line presets
WATCH_SECONDS = 0.5  # how often a worker looks whether its service still runs
MIN_SEARCH = 0.05  # seconds: a search left less time than this does not start
ANSWER_SLACK = 0.4  # seconds past its budget a request waits for a search at most
PER_OWNER = 2  # searches one player (or address) may have waiting or running at once


# ---------------------------------------------------------------- in the worker process


def search(
    position: Position, seconds: float, *, library: bool = True
) -> tuple[str, tuple[Move, ...] | None, int, str]:
    """(verdict, winning line, states or iterations, which solver) for ``position``.

    A winning line is as short as the time allows: the library's short-line presets first
    (their lines optimised), then its atomic-moves search for a verdict it can prove, or the
    engine's search; the line found is then shortened (:func:`engine.shorten.shorten`) with
    the time left, up to a second."""
    deadline = time.perf_counter() + seconds
    verdict, line, states, how = _search(position, seconds, library)
    if line is not None:
        left = deadline - time.perf_counter()
        depth = 2 if left > 0.1 else 1
        line = shorten(position, line, depth=depth, seconds=min(1.0, max(left, 0.05)))
    return verdict, line, states, how


def _search(
    position: Position, seconds: float, library: bool
) -> tuple[str, tuple[Move, ...] | None, int, str]:
    started = time.perf_counter()
    if library and position.name in fcsolve.GAMES and fcsolve.available():
        short = fcsolve.shortest(position, max_seconds=seconds * SHORT_LINE_SHARE)
        if short is not None:
            return short.verdict, short.moves, short.states, "fc-solve"
        left = max(seconds - (time.perf_counter() - started), seconds * 0.5)
        found = fcsolve.solve(position, max_seconds=left)
        if found is not None:
            return found.verdict, found.moves, found.states, "fc-solve"
    mine = solve(position, max_seconds=seconds)
    return mine.verdict, mine.moves, mine.states, "engine"


Steps = list[tuple[bytes, Layout]]
"""(canonical key, layout) of each position along a winning line, after each of its moves."""


def search_board(
    variant: str, board: str, seconds: float, library: bool, deadline: float | None = None
) -> tuple[str, list[str] | None, int, str, Steps]:
    """:func:`search` on a board sent as text (what crosses to a worker process).

    A winning line is replayed through the rules here (fcsolve.solve does it for its own
    lines; a line the rules refuse, or that does not win, makes the verdict unknown), and
    the positions along it are described for the service's cache, so that the service's
    own process has little to do.  ``deadline`` (``time.monotonic()``, the same clock in
    every process) ends a search that waited in the queue on time: it gets what is left."""
    if deadline is not None:
        seconds = min(seconds, deadline - time.monotonic())
        if seconds < MIN_SEARCH:
            return UNKNOWN, None, 0, "none", []
    position = VARIANTS[variant].from_board_text(board)
    verdict, line, states, how = search(position, seconds, library=library)
    if line is None:
        return verdict, None, states, how, []
    if how != "fc-solve" and _checked(position, list(line)) is None:  # (fc-solve's: checked)
        return UNKNOWN, None, states, how, []
    return verdict, [str(m) for m in line], states, how, trace(position, line)


def _warm_up(service_pid: int | None = None) -> None:
    """A worker's start: load the library, and watch the service: a worker whose service
    is gone (killed, even with SIGKILL) exits within a second instead of living on."""
    fcsolve.available()
    if service_pid is not None:
        threading.Thread(
            target=_exit_with, args=(service_pid, os.getppid()), name="watch", daemon=True
        ).start()


def _exit_with(service_pid: int, parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent or not _alive(service_pid):
            os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # (someone else's process took the number: ours is gone)
        return False
    return True


# ---------------------------------------------------------------- in the service


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer for one position: ``line`` is the winning line from it (winnable only)."""

    verdict: str
    line: tuple[Move, ...] | None
    solver: str
    cached: bool = False

    @property
    def moves_to_win(self) -> int | None:
        return None if self.line is None else len(self.line)


@dataclass(frozen=True, slots=True)
class _Entry:
    verdict: str
    line: tuple[Move, ...] | None  # the whole line of the search that found it
    offset: int  # where in ``line`` this position stands
    layout: Layout  # the columns and cells as ``line`` expects them
    budget: float  # an unknown verdict holds for budgets up to this one
    solver: str


class Solver:
    """Verdicts for positions: the cache, and the pool that searches."""

    def __init__(
        self,
        budget: float,
        *,
        capacity: int = 50_000,
        library: bool = True,
        prefetch: bool = True,
        executor_factory: Callable[[], Executor] | None = None,
    ) -> None:
        self.budget = budget
        self.capacity = capacity
        self.library = library
        self._factory = executor_factory
        self._executor: Executor | None = None
        self._cache: OrderedDict[tuple[str, bytes], _Entry] = OrderedDict()
        self._running: dict[tuple[str, bytes], asyncio.Task[_Entry]] = {}
        self._owners: dict[str, int] = {}  # searches started per owner, still running
        self.searches = 0
        # searches waiting or running at most; beyond, a request is answered "unknown"
        self.max_pending = 16
        self.prefetching = prefetch

    # the pool ------------------------------------------------------------------

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = (self._factory or _default_executor)()
        return self._executor

    def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        if self._executor is not None:
            # a search already running ends within its budget, and its process with it
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    # the cache -----------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._cache)

    def _get(self, key: tuple[str, bytes]) -> _Entry | None:
        entry = self._cache.get(key)
        if entry is not None:
            self._cache.move_to_end(key)
        return entry

    def _put(self, key: tuple[str, bytes], entry: _Entry) -> None:
        self._cache[key] = entry
        self._cache.move_to_end(key)
        while len(self._cache) > self.capacity:
            self._cache.popitem(last=False)

    def _remember_line(self, variant: str, entry: _Entry, steps: Steps) -> None:
        """Cache every position along a winning line (each with the rest of the line)."""
        for i, (canonical, where) in enumerate(steps):
            key = (variant, canonical)
            known = self._cache.get(key)
            if known is None or known.verdict == UNKNOWN:
                self._put(key, _Entry(WINNABLE, entry.line, i + 1, where, 0.0, entry.solver))

    def remember_after_autoplay(self, position: Position, found: Verdict) -> None:
        """Cache the position a player reaches by playing the line's first move with autoplay
        on: the automatic moves after it may put cards up in another order than the line
        does, so that position may not lie on the line.  The rest of the line, less the
        moves of the cards autoplay put up, wins from there (such a card can carry no
        other card, so no move needed it); checked by the rules before it is kept."""
        line = found.line
        if found.verdict != WINNABLE or not line or any(m.count > 1 for m in line):
            return
        after = position.copy()
        after.push(line[0])
        up = set()
        while (move := after.auto_move()) is not None:
            up.add(after.card_at(move.source))
            after.push(move)
        key = (position.name, canonical_key(after))
        known = self._cache.get(key)
        if not up or (known is not None and known.verdict != UNKNOWN):
            return
        walk = position.copy()
        walk.push(line[0])
        rest = []
        for move in line[1:]:
            card = walk.card_at(move.source)
            walk.push(move)
            if card not in up:
                rest.append(move)
        checked = _checked(after, rest)
        if checked is not None:
            self._put(key, _Entry(WINNABLE, checked, 0, layout(after), 0.0, found.solver))

    def _answer(self, entry: _Entry, position: Position, cached: bool) -> Verdict:
        if entry.verdict != WINNABLE or entry.line is None:
            return Verdict(entry.verdict, None, entry.solver, cached)
        rest = entry.line[entry.offset :]
        here = layout(position)
        if here != entry.layout:
            mapped = remap(rest, entry.layout, here)
            if mapped is None:  # cannot happen for equal canonical keys; search again
                return Verdict(UNKNOWN, None, entry.solver, cached)
            rest = mapped
        return Verdict(WINNABLE, rest, entry.solver, cached)

    def peek(self, position: Position) -> Verdict | None:
        """The cached verdict, if any (no search)."""
        entry = self._get((position.name, canonical_key(position)))
        return None if entry is None else self._answer(entry, position, True)

    # searching -----------------------------------------------------------------

    def would_search(self, position: Position, budget: float | None = None) -> bool:
        """Whether asking about ``position`` would start a new search (nothing cached for
        it that holds at this budget, and no search of it running)."""
        budget = self.budget if budget is None else budget
        key = (position.name, canonical_key(position))
        entry = self._cache.get(key)
        if entry is not None and (entry.verdict != UNKNOWN or entry.budget >= budget):
            return False
        return key not in self._running

    def prefetch(self, position: Position) -> None:
        """Start the search for a position soon to be asked about (a new game's opening, the
        day's deal) in the background, when the workers are idle enough; its verdict is
        then cached by the time the player asks."""
        if not self.prefetching or len(self._running) >= self.max_pending // 2:
            return
        key = (position.name, canonical_key(position))
        if key not in self._cache and key not in self._running:
            self._start(key, position, self.budget)

    async def verdict(
        self,
        position: Position,
        budget: float | None = None,
        *,
        owner: str | None = None,
        deadline: float | None = None,
    ) -> Verdict:
        """The verdict on ``position`` within ``budget`` seconds (the service's by default).

        Requests for one position share one search, which goes on (and is cached) even if
        the request that started it goes away.  The answer comes by ``deadline`` (a
        ``time.monotonic()``; by default the budget and ANSWER_SLACK from now), "unknown" if
        the search has not ended by then, whoever else is searching: a search waiting for a
        worker gets only the time left to it.  ``owner`` (a player, an address) may have
        PER_OWNER new searches going at once; beyond that, and beyond ``max_pending`` in
        all, the answer is "unknown" at once rather than a place in a queue."""
        budget = self.budget if budget is None else budget
        if deadline is None:
            deadline = time.monotonic() + budget + ANSWER_SLACK
        key = (position.name, canonical_key(position))
        entry = self._get(key)
        if entry is not None and (entry.verdict != UNKNOWN or entry.budget >= budget):
            return self._answer(entry, position, True)
        running = self._running.get(key)
        fresh = running is None
        if running is None:
            if len(self._running) >= self.max_pending or (
                owner is not None and self._owners.get(owner, 0) >= PER_OWNER
            ):
                # the workers have more than enough to do: answer at once rather than queue
                return Verdict(UNKNOWN, None, "none")
            budget = min(budget, deadline - ANSWER_SLACK - time.monotonic())
            if budget < MIN_SEARCH:
                return Verdict(UNKNOWN, None, "none")
            running = self._start(key, position, budget, owner)
        try:
            entry = await asyncio.wait_for(
                asyncio.shield(running), timeout=max(0.0, deadline - time.monotonic())
            )
        except TimeoutError:  # the search goes on, and its verdict is cached
            return Verdict(UNKNOWN, None, "none")
        return self._answer(entry, position, not fresh)

    def _start(
        self, key: tuple[str, bytes], position: Position, budget: float, owner: str | None = None
    ) -> asyncio.Task[_Entry]:
        task = asyncio.get_running_loop().create_task(
            self._run(key, position.name, position.board_text(), layout(position), budget)
        )
        self._running[key] = task
        task.add_done_callback(_retrieve)
        if owner is not None:
            self._owners[owner] = self._owners.get(owner, 0) + 1

            def release(_: object) -> None:
                left = self._owners.get(owner, 1) - 1
                if left > 0:
                    self._owners[owner] = left
                else:
                    self._owners.pop(owner, None)

            task.add_done_callback(release)
        return task

    async def _run(
        self, key: tuple[str, bytes], variant: str, board: str, where: Layout, budget: float
    ) -> _Entry:
        try:
            entry, steps = await self._search(variant, board, where, budget)
        finally:
            self._running.pop(key, None)
        self._put(key, entry)
        if entry.verdict == WINNABLE:
            self._remember_line(variant, entry, steps)
        return entry

    async def _search(
        self, variant: str, board: str, where: Layout, budget: float
    ) -> tuple[_Entry, Steps]:
        loop = asyncio.get_running_loop()
        self.searches += 1
        deadline = time.monotonic() + budget  # a search that waits for a worker gets less
        try:
            verdict, texts, _states, how, steps = await asyncio.wait_for(
                loop.run_in_executor(
                    self._pool(), search_board, variant, board, budget, self.library, deadline
                ),
                timeout=budget + 30.0,
            )
        except BrokenProcessPool:
            log.error("a solver process died; starting a new pool")
            self._executor = None
            return _Entry(UNKNOWN, None, 0, where, 0.0, "none"), []
        except TimeoutError:
            return _Entry(UNKNOWN, None, 0, where, 0.0, "none"), []
        line = None if texts is None else tuple(Move.parse(t) for t in texts)
        if how == "none":  # it never ran (its time went waiting): no verdict for any budget
            budget = 0.0
        return _Entry(verdict, line, 0, where, budget, how), steps


def _retrieve(task: asyncio.Task[_Entry]) -> None:
    """A search nobody waits for any more: its failure is logged, not left unread."""
    if not task.cancelled() and task.exception() is not None:
        log.warning("a search failed: %r", task.exception())


def _checked(position: Position, line: list[Move]) -> tuple[Move, ...] | None:
    """The line if the rules accept every move and it wins, else None."""
    pos = position.copy()
    try:
        for move in line:
            pos.play(move)
    except ValueError:
        return None
    return tuple(line) if pos.is_won else None


def _default_executor() -> Executor:
    return make_pool(1)


def make_pool(workers: int) -> ProcessPoolExecutor:
    """The search processes: ``workers`` of them, each of which exits when this process is
    gone, however it ends."""
    return ProcessPoolExecutor(
        max_workers=max(1, workers),
        mp_context=_context(),
        initializer=_warm_up,
        initargs=(os.getpid(),),
    )


def _context() -> Any:
    try:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["engine", "service.solving"])
        return ctx
    except ValueError:  # no forkserver on this platform
        return multiprocessing.get_context("spawn")


# ---------------------------------------------------------------- hints, analysis, deals


def player_moves(
    position: Position, line: tuple[Move, ...], autoplay: bool
) -> tuple[Move, ...] | None:
    """The moves a player makes to follow a winning line from ``position`` (see
    :func:`follow_line`); None when the line cannot be followed to the end."""
    moves, stuck = follow_line(position, line, autoplay)
    return moves if stuck is None else None


def follow_line(
    position: Position, line: tuple[Move, ...], autoplay: bool
) -> tuple[tuple[Move, ...], Position | None]:
    """The moves a player makes to follow a winning line from ``position``, and where they
    got stuck (None when they win). With autoplay on, the line less the moves to the
    foundations that the game plays by itself on the way; the game may put a card up
    earlier than the line does, and the line may have needed that card where it was:
    then the player is stuck there, and a new search goes on from that position."""
    raw = position.copy()  # the line as the search played it
    pos = position.copy()  # the game as the player plays it
    moves: list[Move] = []
    for move in line:
        if pos.is_won:  # the game put the last cards up by itself
            break
        try:
            card = raw.card_at(move.source)
            raw.push(raw.check(move))
            if autoplay and card is not None and move.target == "f" and up(pos, card):
                continue  # the game put it up already
            pos.push(pos.check(move))
        except ValueError:
            return tuple(moves), pos
        moves.append(move)
        while autoplay and (auto := pos.auto_move()) is not None:
            pos.push(auto)
    return tuple(moves), (None if pos.is_won else pos)


def up(position: Position, card: Card) -> bool:
    """Whether the card is on its foundation already."""
    return position.foundations[card.suit] >= card.rank


def _follows(position: Position, moves: tuple[Move, ...], autoplay: bool) -> bool:
    """Whether playing these moves from ``position`` as a player (the game's automatic
    moves after each, with autoplay on) wins, every move legal."""
    pos = position.copy()
    try:
        for move in moves:
            pos.push(pos.check(move))
            while autoplay and (auto := pos.auto_move()) is not None:
                pos.push(auto)
    except ValueError:
        return False
    return pos.is_won


def line_from_record(game: Game) -> tuple[Move, ...] | None:
    """The rest of the last hint's line (kept in the game's log), when the game still lies
    on it: a tail of the line that wins from the present position. A player who
    follows the hints gets the same line one move shorter each time, on any instance and
    after any restart; one who left it gets None (and a new search)."""
    if not game.hint_line:
        return None
    moves = tuple(Move.parse(text) for text in game.hint_line)
    # the player played the line's first moves since the hint (the usual case): the rest
    # of a line that was checked when it was recorded
    after = game.moves_since_hint()
    if after is not None and len(after) < len(moves) and tuple(after) == moves[: len(after)]:
        return moves[len(after) :]
    # most often the hinted move was just played: the line less its first move; else the
    # shortest tail that still wins (a tail may also win from a position the player
    # reached another way, so the longest one would not always be progress)
    for k in (1, *range(len(moves) - 1, -1, -1)):
        tail = moves[k:]
        if tail and _follows(game.position, tail, game.autoplay):
            return tail
    return None


def hint_view(
    game: Game, verdict: str, moves: tuple[Move, ...] | None, solver: str, keep: bool = True
) -> dict[str, Any]:
    """The hint's answer; ``line`` (the player moves to win) is the service's own: it goes
    into the HintGiven event (unless ``keep`` is false) and is never shown."""
    winnable = verdict == WINNABLE and moves is not None
    first = moves[0] if winnable and moves else None
    return {
        "version": game.version,
        "verdict": verdict,
        "move": None if first is None else first.to_dict(),
        "moves_to_win": len(moves) if winnable and moves is not None else None,
        "solver": solver,
        "line": tuple(str(m) for m in moves) if winnable and moves and keep else None,
    }


async def hint(solver: Solver, game: Game, owner: str | None = None) -> dict[str, Any]:
    """The first move of a winning line from the game's position (the game is not over).

    ``moves_to_win`` counts the moves the player still makes: with autoplay on, the moves
    to the foundations the game plays by itself are not counted. Following the hints is a
    lookup: the line of the last hint is on the game's record.  The answer comes within the
    solver's budget (and its slack), however many searches it takes; ``owner`` is who asks
    (Solver.verdict)."""
    if game.position.is_won:
        return hint_view(game, WINNABLE, (), "none")
    recorded = line_from_record(game)
    if recorded is not None:
        return hint_view(game, WINNABLE, recorded, "record")
    deadline = time.monotonic() + solver.budget + ANSWER_SLACK
    found = await solver.verdict(game.position, owner=owner, deadline=deadline)
    if game.autoplay:
        solver.remember_after_autoplay(game.position, found)
    if game.moves == 0 and found.verdict != UNKNOWN:
        # the deal's opening (automatic moves change no verdict): remember the deal
        table(game.variant).learn(game.deal, found.verdict == WINNABLE)
    if found.verdict != WINNABLE or not found.line:
        return hint_view(game, found.verdict, None, found.solver)
    moves, stuck = follow_line(game.position, found.line, game.autoplay)
    for _attempt in range(8):  # where autoplay took a card the line needed: search on
        if stuck is None:
            break
        more = await solver.verdict(stuck, owner=owner, deadline=deadline)
        if more.verdict != WINNABLE or not more.line:
            break
        tail, stuck = follow_line(stuck, more.line, game.autoplay)
        moves += tail
    if stuck is not None:  # not followable to the end: the first move stands alone
        return hint_view(game, WINNABLE, found.line, found.solver, keep=False)
    return hint_view(game, WINNABLE, moves, found.solver)


def public_hint(body: dict[str, Any]) -> dict[str, Any]:
    """A hint's answer as a client sees it (without the line)."""
    return {k: v for k, v in body.items() if k != "line"}


async def analysis(
    solver: Solver,
    events: list[tuple[int, str, dict[str, Any]]],
    total_budget: float,
    owner: str | None = None,
) -> dict[str, Any]:
    """Where a finished game was lost: ``events`` is its log as (seq, type, data).

    The positions after each event are judged by the solver.  ``lost_at`` is the seq of the
    first event after which the position stays unwinnable to the end of the log, found by
    binary search over the events: it assumes that once unwinnable, the positions of the
    log stay so.  Along the moves of one line that is true (no move makes a lost position
    winnable again); an undo can return to a winnable position, and then the search still
    ends on an event where the verdict turns from winnable to unwinnable, though maybe not
    the last such event.  The verdicts it used are listed under ``verdicts``.  When a
    verdict is unknown (the search budget ran out) ``complete`` is false and ``lost_at``
    null; ``last_winnable`` and ``first_unwinnable`` then bound the spot.
    """
    started = time.monotonic()
    if len(events) > 200:  # a long log: replayed in a thread, off the event loop
        game, seqs, positions = await asyncio.to_thread(_positions_along, events)
    else:
        game, seqs, positions = _positions_along(events)
    judged: dict[int, str] = {}

    async def judge(i: int) -> str:
        if i not in judged:
            left = total_budget - (time.monotonic() - started)
            if positions[i].is_won:
                judged[i] = WINNABLE
            elif left <= 0.05:
                cached = solver.peek(positions[i])
                judged[i] = cached.verdict if cached is not None else UNKNOWN
            else:
                found = await solver.verdict(
                    positions[i], min(solver.budget, left), owner=owner,
                    deadline=time.monotonic() + min(solver.budget, left) + ANSWER_SLACK,
                )  # fmt: skip
                judged[i] = found.verdict
        return judged[i]

    body: dict[str, Any] = {
        "status": game.status,
        "version": game.version,
        "lost_at": None,
        "complete": True,
    }
    last = len(positions) - 1
    if game.status == "won":
        pass
    elif (end := await judge(last)) != UNWINNABLE:
        body["complete"] = end == WINNABLE
    elif await judge(0) == UNWINNABLE:
        body["lost_at"] = seqs[0]
    else:
        lo, hi = 0, last  # judge(lo) is winnable or unknown, judge(hi) unwinnable
        if judged[0] != WINNABLE:
            body["complete"] = False
        while hi - lo > 1:
            mid = (lo + hi) // 2
            verdict = await judge(mid)
            if verdict == UNWINNABLE:
                hi = mid
            elif verdict == WINNABLE:
                lo = mid
            else:  # unknown: the spot is after it, or the answer is not exact
                body["complete"] = False
                lo = mid
        if body["complete"]:
            body["lost_at"] = seqs[hi]
        else:
            body["last_winnable"] = max(
                (seqs[i] for i, v in judged.items() if v == WINNABLE and i < hi), default=None
            )
            body["first_unwinnable"] = seqs[hi]
    body["verdicts"] = [{"seq": seqs[i], "verdict": judged[i]} for i in sorted(judged)]
    return body


def _positions_along(
    events: list[tuple[int, str, dict[str, Any]]],
) -> tuple[Game, list[int], list[Position]]:
    """The game at the end of the log, the seqs, and the layout after each event (copies
    without history: linear in the log's length)."""
    game = Game.replay([Event(events[0][1], events[0][2])])
    seqs = [events[0][0]]
    positions = [game.position.copy(stack=False)]
    for seq, kind, data in events[1:]:
        game.apply(Event(kind, data))
        seqs.append(seq)
        positions.append(game.position.copy(stack=False))
    return game, seqs, positions


def prefetch_opening(solver: Solver, game: dict[str, Any]) -> None:
    """A new game (its view): search its position in the background, for the first hint."""
    if game.get("status") == "playing":
        state = game["state"]
        cls = VARIANTS[game["variant"]]
        cards = [[Card.parse(c) for c in column] for column in state["tableau"]]
        cells = [None if c is None else Card.parse(c) for c in state["cells"]]
        solver.prefetch(cls(cards, cells, state["foundations"]))


def today() -> datetime:
    return datetime.now(UTC)


def daily_view(variant: str, solver: Solver | None = None) -> dict[str, Any]:
    """The day's deal; its opening is searched in the background (hints come at once)."""
    day = today().date()
    deal = table(variant).daily_deal(day)
    if solver is not None:
        solver.prefetch(Game.new(variant, deal)[0].position)
    return {"variant": variant, "deal": deal, "date": day.isoformat()}


# the solver: verdict cache and search processes
SOLVER_KEY = web.AppKey("solver", Solver)
