"""A solver for the four games: a winning line, a proof that there is none, or "unknown".

:func:`solve` takes any position of any of the four games and a budget (states and/or
seconds) and answers with a :class:`Solution`:

``winnable``    ``moves`` is a winning line of legal engine moves from the position, each
                a single card (FreeCell's supermoves are shorthand for single moves, so
                restricting the search to them loses nothing).  Replayed with autoplay off
                it wins: it includes every move to the foundations.
``unwinnable``  every position reachable from this one was visited and none is won: a proof.
``unknown``     the budget ran out first.

The search is a greedy best-first search over positions (the most promising first, by a
heuristic; ties go to the newest), with one priority queue per heuristic of the game's
portfolio (``HEURISTICS``) taken in turn, and one visited set over *canonical* keys, so
each position is expanded once.  Every pruning it does is exact:

* the automatic moves of RULES.md's table are played as forced moves: a card goes up only
  when no card still in play could ever be built on it, so putting it up at once never
  loses a win (whatever a winning line did with the card, the same line without those
  moves still works, and the card's place is only freer);
* positions that differ only in the order of the columns or of the cells are merged: in all
  four games the rules treat every column alike and every cell alike (Baker's Dozen's
  empty columns stay empty, but each of them does, so they are alike too);
* a card goes into at most one empty column and into the first empty cell (the others
  give the same canonical position), never from one cell to another, and a lone card is
  not moved into an empty column;
* in Baker's Dozen, where an empty column stays empty, a card alone in its column only
  ever goes to its foundation: put on another column it would cover a card and free
  nothing, so the position before the move can do all the one after it can;
* a position where every column runs down in rank towards its free card is won by putting
  the cards up, lowest first, so the search stops there and appends those moves.

Baker's Dozen first spends part of the budget on a *narrow* search, which takes a card off
a card it may rest on only when the card uncovered can move at once (to its foundation or
onto another column).  That search is incomplete, but it finds most wins with far fewer
positions; when it does not, the complete search above runs with the rest of the budget,
and only the complete search ever answers ``unwinnable``.

When the queue of positions to look at runs dry without a win, every reachable position has
been seen: the verdict ``unwinnable`` is then exact.

The search is here; the encoding of positions, canonical keys and paths is in
engine/solver/encoding.py, the moves tried (the rules as tables, the prunings, the forced moves) in
engine/solver/moves.py, the ordering (features, weights, portfolios) in engine/solver/heuristics.py.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from engine.moves import Move
from engine.position import Position
from engine.solver.encoding import (
    CELL,
    FOUND,
    Path,
    key,
    line,
    state_of,
)
from engine.solver.heuristics import (
    INDEPENDENT,
    MASK,
    Weights,
    column_measures,
    features,
    portfolio_for,
    score,
)
from engine.solver.moves import Rules, finish, moves, rules_for, settle

WINNABLE: Final = "winnable"
UNWINNABLE: Final = "unwinnable"
UNKNOWN: Final = "unknown"

_CHECK_EVERY: Final = 256  # states between two looks at the clock
_NARROW_SHARE: Final = 70  # per cent of the budget the narrow search may use (Baker's Dozen)


@dataclass(frozen=True, slots=True)
class Solution:
    """What :func:`solve` found.

    ``verdict``  ``"winnable"``, ``"unwinnable"`` or ``"unknown"``
    ``moves``    the winning line (``winnable`` only, else None)
    ``states``   distinct positions the search generated
    ``seconds``  time it took
    """

    verdict: str
    moves: tuple[Move, ...] | None
    states: int
    seconds: float

    @property
    def moves_to_win(self) -> int | None:
        return None if self.moves is None else len(self.moves)

    @property
    def exact(self) -> bool:
        """Whether the verdict is known (winnable or unwinnable)."""
        return self.verdict != UNKNOWN


def solve(
    position: Position,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    heuristics: tuple[Weights, ...] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Solution:
    """Search from ``position`` (not changed) within the budget; see the module docstring.

    ``max_states`` bounds the distinct positions generated, ``max_seconds`` the time; with
    neither the search runs until it has a verdict.  ``heuristics`` replaces the game's
    portfolio (see ``HEURISTICS``). ``stop``, asked as often as the clock, ends the search
    early when it says so (as if its time were up).
    """
    started = time.perf_counter()
    deadline = None if max_seconds is None else started + max_seconds
    limit = max_states if max_states is not None else 1 << 62
    rules = rules_for(type(position))
    portfolio = portfolio_for(position.name, heuristics)
    if rules.fill_empty:
        return _search(position, rules, portfolio, limit, deadline, started, stop, narrow=False)
    # A game whose empty columns stay empty (Baker's Dozen): a narrow search first, which
    # finds most wins with far fewer positions, then the complete one, whose verdict is exact.
    narrow_limit = limit * _NARROW_SHARE // 100
    narrow_deadline = None
    if deadline is not None:
        narrow_deadline = started + (deadline - started) * _NARROW_SHARE / 100
    first = _search(
        position, rules, portfolio, narrow_limit, narrow_deadline, started, stop, narrow=True
    )
    if first.verdict == WINNABLE:
        return first
    rest = _search(
        position, rules, portfolio, max(1, limit - first.states), deadline, started, stop,
        narrow=False,
    )
    return Solution(rest.verdict, rest.moves, first.states + rest.states, rest.seconds)


def _search(
    position: Position,
    rules: Rules,
    portfolio: tuple[Weights, ...],
    limit: int,
    deadline: float | None,
    started: float,
    stop: Callable[[], bool] | None,
    *,
    narrow: bool,
) -> Solution:
    """One best-first search (see the module docstring).  ``narrow`` leaves out the moves
    that take a card off a card it may rest on unless the card uncovered can move at once:
    an incomplete search, never the ground for ``unwinnable``."""
    parents = rules.parents
    auto = rules.auto
    ncells = rules.cells
    use_depth = any(w[6] for w in portfolio)
    nq = len(portfolio)

    measures: dict[bytes, int] = {b"": 0}
    measure_of = measures.get

    def measure(col: bytes) -> int:
        m = measure_of(col)
        if m is None:
            m = measures[col] = column_measures(col, parents)
        return m

    cols0, cells0, found0 = state_of(position)
    cols_l = list(cols0)
    cells_b = bytearray(cells0)
    found_b = bytearray(found0)
    path: Path = settle(cols_l, cells_b, found_b, auto, None)
    # one visited set shared by the queues, or one per queue for a game whose portfolio
    # runs as independent searches (each complete by itself)
    independent = position.name in INDEPENDENT and nq > 1
    root_key = key(cols_l, bytes(cells_b))
    seens: list[set[bytes]] = [{root_key} for _ in range(nq if independent else 1)]
    generated = 1

    def result(verdict: str, winning: tuple[Move, ...] | None = None) -> Solution:
        return Solution(verdict, winning, generated, time.perf_counter() - started)

    def won(cols: list[bytes], cells: bytes, found: bytes, path: Path) -> Solution:
        return result(WINNABLE, line(finish(cols, bytearray(cells), bytearray(found), path)))

    if all(measure(c) & MASK == 0 for c in cols_l):
        return won(cols_l, bytes(cells_b), bytes(found_b), path)

    # a node: [columns, cells, foundations, path, moves from the start, expanded]
    counter = 0
    queues: list[list[tuple[int, int, list[Any]]]] = [
        [(0, 0, [tuple(cols_l), bytes(cells_b), bytes(found_b), path, 0, False])] for _ in portfolio
    ]
    pop = heapq.heappop
    push = heapq.heappush
    join = b"\0".join
    seen = seens[0]
    check = _CHECK_EVERY
    turn = 0
    while True:
        node = None
        for _ in range(nq):
            turn = turn + 1 if turn + 1 < nq else 0
            queue = queues[turn]
            while queue:
                candidate = pop(queue)[2]
                if not candidate[5]:  # not expanded yet
                    node = candidate
                    break
            if node is not None or independent:
                break  # (an independent search that ran dry has seen everything)
        if node is None:
            return result(UNKNOWN if narrow else UNWINNABLE)
        if independent:
            seen = seens[turn]
        cols, cells, found, path, made = node[0], node[1], node[2], node[3], node[4] + 1
        node[5] = True  # expanded
        node[3] = None

        for m in moves(cols, cells, found, rules, narrow):
            src = m >> 5
            dst = m & 31
            ncols = list(cols)
            forced = False  # whether an automatic move may follow
            if src >= CELL:
                k = src - CELL
                code = cells[k]
                ncells_ = cells[:k] + b"\0" + cells[k + 1 :]
            else:
                col = cols[src]
                code = col[-1]
                rest = col[:-1]
                ncols[src] = rest
                ncells_ = cells
                if rest:
                    top = rest[-1]
                    if found[top & 3] == (top >> 2) - 1:
                        forced = True
            if dst == FOUND:
                nfound = bytearray(found)
                nfound[code & 3] = code >> 2
                nfound_ = bytes(nfound)
                forced = True
            else:
                nfound_ = found
                if dst >= CELL:
                    k = dst - CELL
                    ncells_ = ncells_[:k] + bytes((code,)) + ncells_[k + 1 :]
                else:
                    ncols[dst] = ncols[dst] + bytes((code,))
            npath: Path = (m, path)
            if forced:
                cb = bytearray(ncells_)
                fb = bytearray(nfound_)
                npath = settle(ncols, cb, fb, auto, npath)
                ncells_ = bytes(cb)
                nfound_ = bytes(fb)
            # the canonical key (engine/solver/encoding.py's key, inline; no cells, no separator)
            if ncells:
                child_key = join(sorted(ncols)) + b"\1" + bytes(sorted(ncells_))
            else:
                child_key = join(sorted(ncols))
            if child_key in seen:
                continue
            seen.add(child_key)
            generated += 1
            packed = 0
            for col in ncols:
                mc = measure_of(col)
                packed += measure(col) if mc is None else mc
            if packed & MASK == 0:  # no card above a lower one: won
                return won(ncols, ncells_, nfound_, npath)
            feats = features(ncols, ncells_, nfound_, packed, use_depth)
            counter -= 1
            child = [tuple(ncols), ncells_, nfound_, npath, made, False]
            for q in (turn,) if independent else range(nq):
                push(queues[q], (score(portfolio[q], feats, made), counter, child))
        if generated >= limit:
            return result(UNKNOWN)
        check -= 1
        if check <= 0:
            check = _CHECK_EVERY
            if deadline is not None and time.perf_counter() >= deadline:
                return result(UNKNOWN)
            if stop is not None and stop():
                return result(UNKNOWN)
