"""Beleaguered Castle (seed 003): aces start on the foundations, 8 rows of 6, no cells,
a card goes on any card one rank higher, an empty row takes any card."""

from __future__ import annotations

from collections.abc import Mapping

from engine.cards import Card
from engine.position import Position
from engine.rules import all_suits_up, any_suit


class BeleagueredCastle(Position):
    name = "beleaguered_castle"
    title = "Beleaguered Castle"
    columns = 8
    cell_count = 0
    column_word = "row"

    @classmethod
    def can_build(cls, card: Card, onto: Card) -> str | None:
        return any_suit(card, onto)

    @classmethod
    def can_fill_empty(cls, card: Card) -> str | None:
        return None

    @classmethod
    def can_move_between_cells(cls) -> str | None:
        return f"{cls.title} has no cells"

    @classmethod
    def max_run(cls, free_cells: int, empty_columns: int) -> int:
        return 1

    @classmethod
    def auto_needs(cls, card: Card) -> Mapping[str, int]:
        return all_suits_up(card)
