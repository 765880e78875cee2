"""The solver's moves: the game's rules as tables, the moves tried from a position, and the
moves it plays by itself.

:class:`Rules` builds, from a game's rule book (engine/rules.py), the tables the search reads
instead of calling the rules: the cards each card may be built on, the cards an empty column
takes, the foundation heights at which each card goes up by itself.  :func:`moves` lists the
internal moves (engine/solver/encoding.py) the search tries from a position, with the exact
prunings and the narrow search's pruning that engine/solver/search.py's docstring explains;
:func:`settle` plays the automatic moves as forced moves, and :func:`finish` puts the cards
of a won position up.
"""

from __future__ import annotations

from engine.cards import DECK
from engine.position import Position
from engine.solver.encoding import CELL, FOUND, SUIT_CODE, Path, card_code


class Rules:
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
                (SUIT_CODE[suit], need) for suit, need in cls.auto_needs(card).items() if need
            )
        self.parents = tuple(parents)
        self.fills = tuple(fills)
        # the search's pruning for a game whose empty columns stay empty needs them all so
        self.fill_empty = any(fills)
        self.auto = tuple(auto)


_RULES: dict[type[Position], Rules] = {}


def rules_for(cls: type[Position]) -> Rules:
    """The tables of game ``cls`` (built once per game)."""
    rules = _RULES.get(cls)
    if rules is None:
        rules = _RULES[cls] = Rules(cls)
    return rules


def moves(
    cols: tuple[bytes, ...], cells: bytes, found: bytes, rules: Rules, narrow: bool
) -> list[int]:
    """The internal moves the search tries from a position, in the order it tries them.

    A card goes into at most one empty column (none in a game whose empty columns stay
    empty) and into the first empty cell, never from one cell to another, and a lone card
    does not go into an empty column; where empty columns stay empty a lone card is not put
    on another column.  ``narrow`` also leaves out taking a card off a card it may rest on
    unless the card uncovered can move at once (the narrow search's pruning, not exact)."""
    parents = rules.parents
    fill_empty = rules.fill_empty
    fills = rules.fills
    ncells = rules.cells
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
    found_moves: list[int] = []
    append = found_moves.append
    for i, col in enumerate(cols):
        if not col:
            continue
        code = col[-1]
        if found[code & 3] == (code >> 2) - 1:
            append(i << 5 | FOUND)
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
                        append(i << 5 | j)
        if empty >= 0 and len(col) > 1 and fills[code]:
            append(i << 5 | empty)
        if free_cell >= 0:
            append(i << 5 | (CELL + free_cell))
    for k in range(ncells):
        code = cells[k]
        if not code:
            continue
        if found[code & 3] == (code >> 2) - 1:
            append((CELL + k) << 5 | FOUND)
        for p in parents[code]:
            j = tops.get(p)
            if j is not None:
                append((CELL + k) << 5 | j)
        if empty >= 0 and fills[code]:
            append((CELL + k) << 5 | empty)
    return found_moves


def settle(
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
            path = (i << 5 | FOUND, path)
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
            path = ((CELL + k) << 5 | FOUND, path)
            again = True
            break
    return path


def finish(cols: list[bytes], cells: bytearray, found: bytearray, path: Path) -> Path:
    """Put every card up, lowest first (every column runs down in rank to its free card)."""
    while True:
        best = -1
        best_rank = 99
        for i, col in enumerate(cols):
            if col and (col[-1] >> 2) < best_rank:
                best, best_rank = i, col[-1] >> 2
        for k, code in enumerate(cells):
            if code and (code >> 2) < best_rank:
                best, best_rank = CELL + k, code >> 2
        if best < 0:
            return path
        if best >= CELL:
            code = cells[best - CELL]
            cells[best - CELL] = 0
        else:
            code = cols[best][-1]
            cols[best] = cols[best][:-1]
        if found[code & 3] != (code >> 2) - 1:
            raise AssertionError("a column out of order")
        found[code & 3] = code >> 2
        path = (best << 5 | FOUND, path)
