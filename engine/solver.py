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
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.cards import DECK, Card
from engine.moves import CELL_NAMES, COLUMN_NAMES, Move, move_of
from engine.position import Position

WINNABLE: Final = "winnable"
UNWINNABLE: Final = "unwinnable"
UNKNOWN: Final = "unknown"

# Internal card codes: rank << 2 | suit, suits ordered S H C D so that red == suit & 1.
_SUIT_CODE: Final = {"S": 0, "H": 1, "C": 2, "D": 3}
_SUIT_TEXT: Final = "SHCD"
_CELL: Final = 16  # internal pile numbers: columns 0..12, cells 16..19, foundations 31
_FOUND: Final = 31

_CHECK_EVERY: Final = 256  # states between two looks at the clock
_NARROW_SHARE: Final = 70  # per cent of the budget the narrow search may use (Baker's Dozen)

State = tuple[tuple[bytes, ...], bytes, bytes]
"""(columns as bytes of card codes, buried card first; cells, 0 = empty; foundation tops
per suit S H C D)."""
Path = tuple[int, "Path"] | None
"""The moves that led to a state, last first (a linked list of internal move numbers)."""


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


def card_code(card: Card) -> int:
    return card.rank << 2 | _SUIT_CODE[card.suit]


def code_card(code: int) -> Card:
    return Card(code >> 2, _SUIT_TEXT[code & 3])


class _Rules:
    """What the search needs of a game, as tables built from its rule book (engine/rules.py):
    the cards each card may be built on, the cards an empty column takes, and for each card
    the foundation heights (per suit code) at which it goes up by itself."""

    __slots__ = ("auto", "cells", "columns", "fill_empty", "fills", "parents")

    def __init__(self, cls: type[Position]) -> None:
        self.columns = cls.column_count
        self.cells = cls.cell_count
        parents: list[tuple[int, ...]] = [()] * 56
        fills = [False] * 56
        auto: list[tuple[tuple[int, int], ...]] = [()] * 56
        for card in DECK:
            code = card_code(card)
            parents[code] = tuple(
                card_code(onto) for onto in DECK if cls.can_build(card, onto) is None
            )
            fills[code] = cls.can_fill_empty(card) is None
            auto[code] = tuple(
                (_SUIT_CODE[suit], need) for suit, need in cls.auto_needs(card).items() if need
            )
        self.parents = tuple(parents)
        self.fills = tuple(fills)
        # the search's pruning for a game whose empty columns stay empty needs them all so
        self.fill_empty = any(fills)
        self.auto = tuple(auto)


_RULES: dict[type[Position], _Rules] = {}


def _rules(cls: type[Position]) -> _Rules:
    rules = _RULES.get(cls)
    if rules is None:
        rules = _RULES[cls] = _Rules(cls)
    return rules


def state_of(position: Position) -> State:
    """The search's form of a position (columns and cells keep their places)."""
    cols = tuple(bytes(card_code(c) for c in column) for column in position.tableau)
    cells = bytes(0 if c is None else card_code(c) for c in position.cells)
    f = position.foundations
    return cols, cells, bytes((f["S"], f["H"], f["C"], f["D"]))


def canonical_key(position: Position) -> bytes:
    """A compact key equal for positions that differ only in the order of columns or cells
    (and so have the same verdict).  Does not name the game."""
    cols, cells, _ = state_of(position)
    return _key(cols, cells)


def _key(cols: tuple[bytes, ...], cells: bytes) -> bytes:
    # card codes are 4..55, so 0 and 1 are free to separate columns and cells; the
    # foundations follow from which cards are still in play
    return b"\0".join(sorted(cols)) + b"\1" + bytes(sorted(cells))


# Per column, three measures of how much digging it needs, packed in one int (10 bits each,
# so that sums over the columns stay packed): the cards lying above a lower-ranked card
# (each must move before that card goes up), the cards not resting on a card they may be
# built on (breaks in the column's sequences), and the first measure weighted by how low the
# card underneath is (low cards are wanted first).
_MASK: Final = 1023


def _column_measures(col: bytes, parents: tuple[tuple[int, ...], ...]) -> int:
    above_low = 0
    breaks = 0
    weighted = 0
    low = 99
    below = 0
    for code in col:
        rank = code >> 2
        if rank > low:
            above_low += 1
            weighted += 14 - low
        else:
            low = rank
        if below and below not in parents[code]:
            breaks += 1
        below = code
    return above_low | breaks << 10 | weighted << 20


# The heuristics, per game: each is a weight vector over (cards not yet up, cards above a
# lower card, sequence breaks, low-weighted cards above a lower card, cells in use, empty
# columns (subtracted), cards above the next card each foundation wants, moves made).  The
# search keeps one queue per heuristic and takes positions from them in turn (a portfolio:
# what one heuristic misses, another often finds), expanding each position once.  The
# weights were chosen by measuring deals 1-100 of each game (scripts/solve_deals.py, bench).
Weights = tuple[int, int, int, int, int, int, int, int]
HEURISTICS: dict[str, tuple[Weights, ...]] = {
    "freecell": ((3, 2, 0, 0, 1, 1, 1, 0),),
    "bakers_game": ((3, 2, 0, 0, 1, 0, 0, 0),),
    "bakers_dozen": (
        (1, 2, 1, 0, 0, 0, 1, 0),
        (2, 4, 2, 0, 0, 0, 2, -1),
        (1, 3, 0, 0, 0, 0, 2, 0),
        (3, 0, 0, 1, 0, 0, 1, 0),
    ),
    "beleaguered_castle": ((3, 2, 0, 0, 0, 0, 1, 0),),
}
# games whose portfolio runs as independent searches, each with its own visited set (more
# memory and time for a proof, but what one search misses another often finds fast)
INDEPENDENT: Final = frozenset({"bakers_dozen"})
_DEFAULT_HEURISTICS: Final[tuple[Weights, ...]] = ((3, 2, 0, 0, 1, 0, 0, 0),)


def _settle(
    cols: list[bytes],
    cells: bytearray,
    found: bytearray,
    auto: tuple[tuple[tuple[int, int], ...], ...],
    path: Path,
) -> Path:
    """Play the automatic moves (RULES.md's table) until none is left; returns the path."""
    ncols = len(cols)
    again = True
    while again:
        again = False
        for i in range(ncols):
            col = cols[i]
            if not col:
                continue
            code = col[-1]
            rank = code >> 2
            suit = code & 3
            if found[suit] != rank - 1:
                continue
            needs = auto[code]
            if needs and any(found[s] < n for s, n in needs):
                continue
            found[suit] = rank
            cols[i] = col[:-1]
            path = (i << 5 | _FOUND, path)
            again = True
            break
        if again:
            continue
        for k, code in enumerate(cells):
            if not code:
                continue
            rank = code >> 2
            suit = code & 3
            if found[suit] != rank - 1:
                continue
            needs = auto[code]
            if needs and any(found[s] < n for s, n in needs):
                continue
            found[suit] = rank
            cells[k] = 0
            path = ((_CELL + k) << 5 | _FOUND, path)
            again = True
            break
    return path


def _finish(cols: list[bytes], cells: bytearray, found: bytearray, path: Path) -> Path:
    """Put every card up, lowest first (every column runs down in rank to its free card)."""
    while True:
        best = -1
        best_rank = 99
        for i, col in enumerate(cols):
            if col and (col[-1] >> 2) < best_rank:
                best, best_rank = i, col[-1] >> 2
        for k, code in enumerate(cells):
            if code and (code >> 2) < best_rank:
                best, best_rank = _CELL + k, code >> 2
        if best < 0:
            return path
        if best >= _CELL:
            code = cells[best - _CELL]
            cells[best - _CELL] = 0
        else:
            code = cols[best][-1]
            cols[best] = cols[best][:-1]
        if found[code & 3] != (code >> 2) - 1:
            raise AssertionError("a column out of order")
        found[code & 3] = code >> 2
        path = (best << 5 | _FOUND, path)


def _line(path: Path) -> tuple[Move, ...]:
    moves: list[Move] = []
    while path is not None:
        m, path = path
        src, dst = m >> 5, m & 31
        source = CELL_NAMES[src - _CELL] if src >= _CELL else COLUMN_NAMES[src]
        if dst == _FOUND:
            target = "f"
        elif dst >= _CELL:
            target = CELL_NAMES[dst - _CELL]
        else:
            target = COLUMN_NAMES[dst]
        moves.append(move_of(source, target))
    moves.reverse()
    return tuple(moves)


def solve(
    position: Position,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    heuristics: tuple[Weights, ...] | None = None,
) -> Solution:
    """Search from ``position`` (not changed) within the budget; see the module docstring.

    ``max_states`` bounds the distinct positions generated, ``max_seconds`` the time; with
    neither the search runs until it has a verdict.  ``heuristics`` replaces the game's
    portfolio (see ``HEURISTICS``).
    """
    started = time.perf_counter()
    deadline = None if max_seconds is None else started + max_seconds
    limit = max_states if max_states is not None else 1 << 62
    rules = _rules(type(position))
    portfolio = heuristics or HEURISTICS.get(position.name, _DEFAULT_HEURISTICS)
    if rules.fill_empty:
        return _search(position, rules, portfolio, limit, deadline, started, narrow=False)
    # A game whose empty columns stay empty (Baker's Dozen): a narrow search first, which
    # finds most wins with far fewer positions, then the complete one, whose verdict is exact.
    narrow_limit = limit * _NARROW_SHARE // 100
    narrow_deadline = None
    if deadline is not None:
        narrow_deadline = started + (deadline - started) * _NARROW_SHARE / 100
    first = _search(position, rules, portfolio, narrow_limit, narrow_deadline, started, narrow=True)
    if first.verdict == WINNABLE:
        return first
    rest = _search(
        position, rules, portfolio, max(1, limit - first.states), deadline, started, narrow=False
    )
    return Solution(rest.verdict, rest.moves, first.states + rest.states, rest.seconds)


def _search(
    position: Position,
    rules: _Rules,
    portfolio: tuple[Weights, ...],
    limit: int,
    deadline: float | None,
    started: float,
    *,
    narrow: bool,
) -> Solution:
    """One best-first search (see the module docstring).  ``narrow`` leaves out the moves
    that take a card off a card it may rest on unless the card uncovered can move at once:
    an incomplete search, never the ground for ``unwinnable``."""
    parents = rules.parents
    fill_empty = rules.fill_empty
    fills = rules.fills
    auto = rules.auto
    ncells = rules.cells
    use_depth = any(w[6] for w in portfolio)
    nq = len(portfolio)

    measures: dict[bytes, int] = {b"": 0}
    measure_of = measures.get

    def measure(col: bytes) -> int:
        m = measure_of(col)
        if m is None:
            m = measures[col] = _column_measures(col, parents)
        return m

    cols0, cells0, found0 = state_of(position)
    cols_l = list(cols0)
    cells_b = bytearray(cells0)
    found_b = bytearray(found0)
    path: Path = _settle(cols_l, cells_b, found_b, auto, None)
    # one visited set shared by the queues, or one per queue for a game whose portfolio
    # runs as independent searches (each complete by itself)
    independent = position.name in INDEPENDENT and nq > 1
    root_key = _key(tuple(cols_l), bytes(cells_b))
    seens: list[set[bytes]] = [{root_key} for _ in range(nq if independent else 1)]
    generated = 1

    def result(verdict: str, line: tuple[Move, ...] | None = None) -> Solution:
        return Solution(verdict, line, generated, time.perf_counter() - started)

    def won(cols: list[bytes], cells: bytes, found: bytes, path: Path) -> Solution:
        return result(WINNABLE, _line(_finish(cols, bytearray(cells), bytearray(found), path)))

    if all(measure(c) & _MASK == 0 for c in cols_l):
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

        tops: dict[int, int] = {}
        empty = -1
        for i, col in enumerate(cols):
            if col:
                tops[col[-1]] = i
            elif empty < 0:
                empty = i
        if not fill_empty:
            empty = -1
        free_cell = cells.find(0) if ncells else -1
        moves: list[int] = []
        for i, col in enumerate(cols):
            if not col:
                continue
            code = col[-1]
            if found[code & 3] == (code >> 2) - 1:
                moves.append(i << 5 | _FOUND)
            if fill_empty or len(col) > 1:
                seated = narrow and len(col) > 1 and col[-2] in parents[code]
                if seated:
                    under = col[-2]
                    seated = found[under & 3] != (under >> 2) - 1 and not any(
                        q in tops for q in parents[under]
                    )
                if not seated:
                    for p in parents[code]:
                        j = tops.get(p)
                        if j is not None:
                            moves.append(i << 5 | j)
            if empty >= 0 and len(col) > 1 and fills[code]:
                moves.append(i << 5 | empty)
            if free_cell >= 0:
                moves.append(i << 5 | (_CELL + free_cell))
        for k in range(ncells):
            code = cells[k]
            if not code:
                continue
            if found[code & 3] == (code >> 2) - 1:
                moves.append((_CELL + k) << 5 | _FOUND)
            for p in parents[code]:
                j = tops.get(p)
                if j is not None:
                    moves.append((_CELL + k) << 5 | j)
            if empty >= 0 and fills[code]:
                moves.append((_CELL + k) << 5 | empty)

        for m in moves:
            src = m >> 5
            dst = m & 31
            ncols = list(cols)
            settle = False
            if src >= _CELL:
                k = src - _CELL
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
                        settle = True
            if dst == _FOUND:
                nfound = bytearray(found)
                nfound[code & 3] = code >> 2
                nfound_ = bytes(nfound)
                settle = True
            else:
                nfound_ = found
                if dst >= _CELL:
                    k = dst - _CELL
                    ncells_ = ncells_[:k] + bytes((code,)) + ncells_[k + 1 :]
                else:
                    ncols[dst] = ncols[dst] + bytes((code,))
            npath: Path = (m, path)
            if settle:
                cb = bytearray(ncells_)
                fb = bytearray(nfound_)
                npath = _settle(ncols, cb, fb, auto, npath)
                ncells_ = bytes(cb)
                nfound_ = bytes(fb)
            if ncells:
                key = join(sorted(ncols)) + b"\1" + bytes(sorted(ncells_))
            else:
                key = join(sorted(ncols))
            if key in seen:
                continue
            seen.add(key)
            generated += 1
            packed = 0
            for col in ncols:
                mc = measure_of(col)
                packed += measure(col) if mc is None else mc
            above_low = packed & _MASK
            if above_low == 0:
                return won(ncols, ncells_, nfound_, npath)
            features = (
                52 - sum(nfound_),
                above_low,
                packed >> 10 & _MASK,
                packed >> 20,
                ncells - ncells_.count(0) if ncells else 0,
                ncols.count(b""),
                0,
            )
            if use_depth:
                depth = 0
                for su in range(4):
                    r = nfound_[su]
                    if r < 13:
                        c = (r + 1) << 2 | su
                        for col in ncols:
                            x = col.find(c)
                            if x >= 0:
                                depth += len(col) - 1 - x
                                break
                features = (*features[:6], depth)
            counter -= 1
            child = [tuple(ncols), ncells_, nfound_, npath, made, False]
            for q in (turn,) if independent else range(nq):
                w = portfolio[q]
                score = (
                    w[0] * features[0]
                    + w[1] * features[1]
                    + w[2] * features[2]
                    + w[3] * features[3]
                    + w[4] * features[4]
                    - w[5] * features[5]
                    + w[6] * features[6]
                    + w[7] * made
                )
                push(queues[q], (score, counter, child))
        if generated >= limit:
            return result(UNKNOWN)
        check -= 1
        if check <= 0:
            check = _CHECK_EVERY
            if deadline is not None and time.perf_counter() >= deadline:
                return result(UNKNOWN)


Layout = tuple[tuple[bytes, ...], bytes]
"""Where the cards are, columns and cells in their places (foundations follow from it)."""


def layout(position: Position) -> Layout:
    cols, cells, _ = state_of(position)
    return cols, cells


def remap(moves: Sequence[Move], source: Layout, target: Layout) -> tuple[Move, ...] | None:
    """``moves``, a line from a position laid out as ``source``, for the position laid out as
    ``target``: the same cards with the columns and cells in another order.  None if the two
    are not such a pair."""
    if len(source[0]) != len(target[0]) or len(source[1]) != len(target[1]):
        return None
    names: dict[str, str] = {"f": "f"}
    for kinds, olds, news in (
        (COLUMN_NAMES, source[0], target[0]),
        (CELL_NAMES, tuple(bytes((c,)) for c in source[1]), tuple(bytes((c,)) for c in target[1])),
    ):
        free: dict[bytes, list[int]] = {}
        for j, pile in enumerate(news):
            free.setdefault(pile, []).append(j)
        for i, pile in enumerate(olds):
            places = free.get(pile)
            if not places:
                return None
            names[kinds[i]] = kinds[places.pop(0)]
    try:
        return tuple(move_of(names[m.source], names[m.target], m.count) for m in moves)
    except KeyError:
        return None


def trace(position: Position, moves: Sequence[Move]) -> list[tuple[bytes, Layout]]:
    """(canonical key, layout) of the position after each move of ``moves`` from
    ``position``: cheap, for a line already known to be legal (nothing is checked)."""
    cols_t, cells_b, _ = state_of(position)
    cols = list(cols_t)
    cells = bytearray(cells_b)
    names = {name: i for i, name in enumerate(COLUMN_NAMES)}
    cell_names = {name: i for i, name in enumerate(CELL_NAMES)}
    out: list[tuple[bytes, Layout]] = []
    for move in moves:
        count = move.count
        if move.source in names:
            i = names[move.source]
            run = cols[i][-count:]
            cols[i] = cols[i][:-count]
        else:
            k = cell_names[move.source]
            run = bytes((cells[k],))
            cells[k] = 0
        target = move.target
        if target in names:
            j = names[target]
            cols[j] = cols[j] + run
        elif target in cell_names:
            cells[cell_names[target]] = run[0]
        here = (tuple(cols), bytes(cells))
        out.append((_key(here[0], here[1]), here))
    return out
