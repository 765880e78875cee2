"""Baker's Dozen (seed 002): 13 columns of 4 with the kings at the buried end (the kings
and the other cards each keeping their order: engine/deals.py), no cells, a card goes on
any card one rank higher, an empty column stays empty."""

from __future__ import annotations

from collections.abc import Mapping

from engine.cards import Card
from engine.position import Position
from engine.rules import all_suits_up, any_suit


class BakersDozen(Position):
    name = "bakers_dozen"
    title = "Baker's Dozen"
    columns = 13
    cell_count = 0

    @classmethod
    def can_build(cls, card: Card, onto: Card) -> str | None:
        return any_suit(card, onto)

    @classmethod
    def can_fill_empty(cls, card: Card) -> str | None:
        return f"an empty {cls.column_word} stays empty in {cls.title}"

    @classmethod
    def can_move_between_cells(cls) -> str | None:
        return f"{cls.title} has no cells"

    @classmethod
    def max_run(cls, free_cells: int, empty_columns: int) -> int:
        return 1

    @classmethod
    def auto_needs(cls, card: Card) -> Mapping[str, int]:
        return all_suits_up(card)
