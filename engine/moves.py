"""Moves and pile names, and a position's list of legal moves (:class:`LegalMoves`).

Piles: ``t1``..``t13`` are the columns (Beleaguered Castle's rows) left to right, ``c1``..``c4``
the cells, ``f`` the foundations (a card goes to its suit's).  As a target, ``c`` means "the
first empty cell"; :meth:`engine.position.Position.check` replaces it with the concrete cell.

Text form of a move: ``<source>-<target>`` for one card and ``<source>-<target>x<count>`` for
several, e.g. ``t3-c2``, ``c1-f``, ``t3-t5x2``.  ``Move.parse(str(m)) == m`` for every move;
``parse`` also accepts an explicit ``x1``, surrounding blanks and upper case.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from engine.errors import InvalidMove

MAX_COLUMNS: Final = 13
MAX_CELLS: Final = 4
FIRST_EMPTY_CELL: Final = "c"

COLUMN_NAMES: Final = tuple(f"t{i}" for i in range(1, MAX_COLUMNS + 1))
CELL_NAMES: Final = tuple(f"c{i}" for i in range(1, MAX_CELLS + 1))

# pile name -> (kind, index); kind "t" column, "c" cell, "f" foundations.  "c" alone is the
# first empty cell, index -1.
PILES: Final[dict[str, tuple[str, int]]] = {
    **{name: ("t", i) for i, name in enumerate(COLUMN_NAMES)},
    **{name: ("c", i) for i, name in enumerate(CELL_NAMES)},
    "f": ("f", 0),
}
TARGETS: Final[dict[str, tuple[str, int]]] = {**PILES, FIRST_EMPTY_CELL: ("c", -1)}

_MOVE_RE: Final = re.compile(r"\s*([a-z]\d{0,2})\s*-\s*([a-z]\d{0,2})\s*(?:x\s*(-?\d+))?\s*")


@dataclass(frozen=True, slots=True)
class Move:
    """Take ``count`` cards from the top of ``source`` and put them on ``target``."""

    source: str
    target: str
    count: int = 1

    def __str__(self) -> str:
        if self.count == 1:
            return f"{self.source}-{self.target}"
        return f"{self.source}-{self.target}x{self.count}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """The move written as ``text`` (see the module docstring); InvalidMove if malformed."""
        if not isinstance(text, str):
            raise InvalidMove(f"{text!r} is not a move")
        match = _MOVE_RE.fullmatch(text.lower())
        if match is None:
            raise InvalidMove(
                f"{text!r} is not a move (write source-target or source-targetxcount, as t3-t5x2)"
            )
        count = int(match.group(3)) if match.group(3) is not None else 1
        return cls.make(match.group(1), match.group(2), count)

    @classmethod
    def make(cls, source: Any, target: Any, count: Any = 1) -> Move:
        """A syntactically checked move (pile names and count), else InvalidMove.

        Whether the piles exist in a given game is checked by the position.
        """
        if not isinstance(source, str) or source not in PILES:
            raise InvalidMove(f"{source!r} is not a pile to take cards from (t1..t13, c1..c4)")
        if not isinstance(target, str) or target not in TARGETS:
            raise InvalidMove(f"{target!r} is not a pile to put cards on (t1..t13, c1..c4, c, f)")
        if isinstance(count, bool) or not isinstance(count, int):
            raise InvalidMove(f"the count of cards must be a whole number, not {count!r}")
        if count < 1:
            raise InvalidMove(f"a move takes at least one card, not {count}")
        return move_of(source, target, count)

    def to_dict(self) -> dict[str, Any]:
        """``{"from": ..., "to": ..., "count": ...}`` as in the HTTP contract."""
        return {"from": self.source, "to": self.target, "count": self.count}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Move:
        """The move of a ``{"from", "to", "count"?}`` mapping (checked like :meth:`make`)."""
        try:
            return cls.make(data["from"], data["to"], data.get("count", 1))
        except (KeyError, TypeError, AttributeError):
            raise InvalidMove(f"{data!r} is not a move (needs from and to)") from None


_INTERNED: dict[tuple[str, str, int], Move] = {}

SINGLE: Final[dict[str, dict[str, Move]]] = {
    source: {target: Move(source, target) for target in TARGETS if target != source}
    for source in PILES
}
"""SINGLE[source][target]: the shared one-card move (cheaper than building one)."""
for _source, _row in SINGLE.items():
    for _target, _move in _row.items():
        _INTERNED[(_source, _target, 1)] = _move


def move_of(source: str, target: str, count: int = 1) -> Move:
    """A shared, unchecked Move instance (cheap: avoids building a new object)."""
    key = (source, target, count)
    move = _INTERNED.get(key)
    if move is None:
        move = Move(source, target, count)
        if len(_INTERNED) < 100_000:
            _INTERNED[key] = move
    return move


class LegalMoves:
    """The legal moves of a position at the time it was asked (a snapshot).

    Iteration lists moves grouped by source pile (columns left to right, then cells), then
    by count (ascending), each group in the order ``f``, the cell, the non-empty columns that
    take the card, the empty columns; it lists

    * every legal move to the foundations and onto non-empty columns;
    * every legal move into an empty column, each empty column separately;
    * a move into a cell once, to the first empty cell (``c1``..``c4``).

    FreeCell lists each legal run length separately.  Membership (``move in legal``) accepts
    every legal move, including one to any other empty cell or to ``c``.
    """

    __slots__ = ("_empty_cells", "_first_cell", "_moves", "_set")

    def __init__(self, moves: list[Move], first_cell: str | None, empty_cells: list[int]):
        self._moves = moves
        self._set: frozenset[Move] | None = None
        self._first_cell = first_cell
        self._empty_cells = empty_cells

    def __iter__(self) -> Iterator[Move]:
        return iter(self._moves)

    def __len__(self) -> int:
        return len(self._moves)

    def __bool__(self) -> bool:
        return bool(self._moves)

    def __getitem__(self, index: int) -> Move:
        return self._moves[index]

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Move):
            return False
        moves = self._set
        if moves is None:
            moves = self._set = frozenset(self._moves)
        try:
            if move in moves:
                return True
            where = TARGETS.get(move.target)
        except TypeError:  # a Move built from unhashable junk
            return False
        if self._first_cell is not None and (
            where is not None
            and where[0] == "c"
            and (where[1] < 0 or where[1] in self._empty_cells)
        ):
            return move_of(move.source, self._first_cell, move.count) in moves
        return False

    def __repr__(self) -> str:
        return f"LegalMoves([{', '.join(map(str, self._moves))}])"
