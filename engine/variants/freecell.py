"""FreeCell (seed 001): 8 columns, 4 cells, columns build down in alternating colours,
supermoves of up to (F + 1) * 2**E cards."""

from __future__ import annotations

from collections.abc import Mapping

from engine.cards import Card
from engine.position import Position
from engine.rules import alternate_colours, other_colour_up


class FreeCell(Position):
    name = "freecell"
    title = "FreeCell"
    columns = 8
    cell_count = 4

    @classmethod
    def can_build(cls, card: Card, onto: Card) -> str | None:
        return alternate_colours(card, onto)

    @classmethod
    def can_fill_empty(cls, card: Card) -> str | None:
        return None

    @classmethod
    def can_move_between_cells(cls) -> str | None:
        return None

    @classmethod
    def max_run(cls, free_cells: int, empty_columns: int) -> int:
        return (free_cells + 1) << empty_columns

    @classmethod
    def auto_needs(cls, card: Card) -> Mapping[str, int]:
        return other_colour_up(card)
