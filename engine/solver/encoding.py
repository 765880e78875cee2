"""The solver's encoding of a position: card codes, states, canonical keys and paths.

A card is a small int, ``rank << 2 | suit`` with the suits ordered S H C D (so that
``code & 1`` is red); a :data:`State` is the columns as bytes of card codes (buried card
first), the cells (0 = empty) and the foundation tops per suit.  The canonical key
(:func:`canonical_key`, :func:`key`) is equal for positions that differ only in the order
of the columns or of the cells, which the rules of all four games treat alike.

An internal move is ``source << 5 | target``: columns 0..12, cells :data:`CELL` + 0..3,
the foundations :data:`FOUND`; a :data:`Path` is the moves that led to a state, last first,
and :func:`line` turns it back into engine moves.  A :data:`Layout` (columns and cells in
their places) is what engine/solver/shorten.py compares lines by (:func:`trace`, :func:`remap`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.cards import Card
from engine.moves import CELL_NAMES, COLUMN_NAMES, Move, move_of
from engine.position import Position

SUIT_CODE: Final = {"S": 0, "H": 1, "C": 2, "D": 3}
SUIT_TEXT: Final = "SHCD"
CELL: Final = 16  # internal pile numbers: columns 0..12, cells 16..19, foundations 31
FOUND: Final = 31

State = tuple[tuple[bytes, ...], bytes, bytes]
"""(columns as bytes of card codes, buried card first; cells, 0 = empty; foundation tops
per suit S H C D)."""
Path = tuple[int, "Path"] | None
"""The moves that led to a state, last first (a linked list of internal move numbers)."""
Layout = tuple[tuple[bytes, ...], bytes]
"""Where the cards are, columns and cells in their places (foundations follow from it)."""


def card_code(card: Card) -> int:
    return card.rank << 2 | SUIT_CODE[card.suit]


def code_card(code: int) -> Card:
    return Card(code >> 2, SUIT_TEXT[code & 3])


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
    return key(cols, cells)


def key(cols: Sequence[bytes], cells: bytes) -> bytes:
    """The canonical key of encoded columns and cells (the search builds the same key
    inline, without cells in a game that has none)."""
    # card codes are 4..55, so 0 and 1 are free to separate columns and cells; the
    # foundations follow from which cards are still in play
    return b"\0".join(sorted(cols)) + b"\1" + bytes(sorted(cells))


def line(path: Path) -> tuple[Move, ...]:
    """The engine moves of a path, first move first."""
    moves: list[Move] = []
    while path is not None:
        m, path = path
        src, dst = m >> 5, m & 31
        source = CELL_NAMES[src - CELL] if src >= CELL else COLUMN_NAMES[src]
        if dst == FOUND:
            target = "f"
        elif dst >= CELL:
            target = CELL_NAMES[dst - CELL]
        else:
            target = COLUMN_NAMES[dst]
        moves.append(move_of(source, target))
    moves.reverse()
    return tuple(moves)


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
        out.append((key(here[0], here[1]), here))
    return out
