"""Moves and pile names.

Piles: ``t1``..``t13`` are the columns (Beleaguered Castle's rows) left to right, ``c1``..``c4``
the cells, ``f`` the foundations (a card goes to its suit's).  As a target, ``c`` means "the
first empty cell"; :meth:`engine.position.Position.check` replaces it with the concrete cell.

Text form of a move: ``<source>-<target>`` for one card and ``<source>-<target>x<count>`` for
several, e.g. ``t3-c2``, ``c1-f``, ``t3-t5x2``.  ``Move.parse(str(m)) == m`` for every move;
``parse`` also accepts an explicit ``x1``, surrounding blanks and upper case.
"""

from __future__ import annotations

import re
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
        if source == target:
            raise InvalidMove(
                f"a move must go from one pile to another, not from {source} to itself"
            )
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
