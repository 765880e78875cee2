"""Helpers for the engine tests: build positions from board text."""

from __future__ import annotations

from engine import DECK, Position

RANKS = "0A23456789TJQK"


def board(
    cls: type[Position],
    columns: list[str],
    cells: str = "",
    foundations: dict[str, int] | None = None,
) -> Position:
    """A position of ``cls`` from board text.

    ``columns`` lists each column's cards (buried first); a column written ``*`` receives the
    cards not placed anywhere else, shared out evenly among the ``*`` columns.  ``cells`` is
    the Freecells line's content (``"7H - - -"``).
    """
    foundations = foundations or {}
    used = {card for column in columns if column != "*" for card in column.split()}
    used |= {card for card in cells.split() if card != "-"}
    for suit, top in foundations.items():
        used |= {f"{RANKS[r]}{suit}" for r in range(1, top + 1)}
    rest = [card.text for card in DECK if card.text not in used]
    fillers = [i for i, column in enumerate(columns) if column == "*"]
    spread: dict[int, list[str]] = {i: [] for i in fillers}
    for k, card in enumerate(rest):
        spread[fillers[k % len(fillers)]].append(card)
    lines = ["Foundations: " + " ".join(f"{s}-{RANKS[foundations.get(s, 0)]}" for s in "HCDS")]
    if cls.cell_count:
        lines.append("Freecells: " + (cells or " ".join(["-"] * cls.cell_count)))
    for i, column in enumerate(columns):
        cards = " ".join(spread[i]) if column == "*" else column
        lines.append(": " + cards if cards else ":")
    return cls.from_board_text("\n".join(lines) + "\n")
