"""Freecell Solver's board text.

Writing is :meth:`engine.position.Position.board_text`; this module reads it::

    Foundations: H-0 C-0 D-0 S-0
    Freecells: 9C - TC -
    : JD KD 2S 4C 3S 6D 6S
    : 2D KC KS 5C TD
    :
    ...

One line per column, buried card first; ``:`` opens a column line as ``fc-solve -p`` prints
it (a lone ``:`` is an empty column).  ``fc-solve`` prints cells as fixed four-character
fields (``Freecells:      9C      8S``), which keeps the position of empty cells; that form is
read too.
"""

from __future__ import annotations

from engine.cards import RANKS, SUITS, Card
from engine.errors import InvalidMove

_FOUNDATION_RANK = {"0": 0, "-": 0, **{r: i + 1 for i, r in enumerate(RANKS)}, "10": 10}


def _cards(tokens: list[str]) -> list[Card]:
    return [Card.parse(token) for token in tokens]


def _parse_cells(rest: str, cell_count: int) -> list[Card | None]:
    if rest.startswith("  ") and "-" not in rest:
        # fc-solve's fixed-width form: one 4-character field per cell
        fields = [rest[i : i + 4].strip() for i in range(0, len(rest), 4)]
        while fields and not fields[-1]:
            fields.pop()
        tokens = [field or "-" for field in fields]
    else:
        tokens = rest.split()
    if len(tokens) > cell_count:
        raise InvalidMove(f"board text has {len(tokens)} cells; this game has {cell_count}")
    cells: list[Card | None] = [None if t == "-" else Card.parse(t) for t in tokens]
    return cells + [None] * (cell_count - len(cells))


def _parse_foundations(rest: str) -> dict[str, int]:
    foundations = dict.fromkeys(SUITS, 0)
    for token in rest.split():
        suit, _, rank = token.upper().partition("-")
        if suit not in foundations or rank not in _FOUNDATION_RANK:
            raise InvalidMove(f"{token!r} is not a foundation (write it as H-0, C-A, D-T, S-K)")
        foundations[suit] = _FOUNDATION_RANK[rank]
    return foundations


def parse_board(
    text: str, column_count: int, cell_count: int
) -> tuple[list[list[Card]], list[Card | None], dict[str, int]]:
    """(tableau, cells, foundations) read from board text; InvalidMove if malformed."""
    if not isinstance(text, str):
        raise InvalidMove("board text must be a string")
    foundations = dict.fromkeys(SUITS, 0)
    cells: list[Card | None] = [None] * cell_count
    tableau: list[list[Card]] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        head, sep, rest = line.partition(":")
        label = head.strip().lower()
        if sep and label in ("foundations", "founds"):
            foundations = _parse_foundations(rest)
        elif sep and label in ("freecells", "fc"):
            cells = _parse_cells(rest, cell_count)
        elif sep and not label:
            tableau.append(_cards(rest.split()))
        else:
            tableau.append(_cards(stripped.split()))
    if len(tableau) > column_count:
        raise InvalidMove(f"board text has {len(tableau)} columns; this game has {column_count}")
    tableau += [[] for _ in range(column_count - len(tableau))]
    return tableau, cells, foundations
