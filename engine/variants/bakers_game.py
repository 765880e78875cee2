"""Baker's Game (seed 000): FreeCell's layout, columns build down in suit, one card per move,
a card in a cell never goes to another cell, every card that fits goes up by itself."""

from __future__ import annotations

from collections.abc import Mapping

from engine.cards import Card
from engine.position import Position
from engine.rules import same_suit


class BakersGame(Position):
    name = "bakers_game"
    title = "Baker's Game"
    columns = 8
    cell_count = 4

    @classmethod
    def can_build(cls, card: Card, onto: Card) -> str | None:
        return same_suit(card, onto)

    @classmethod
    def can_fill_empty(cls, card: Card) -> str | None:
        return None

    @classmethod
    def can_move_between_cells(cls) -> str | None:
        return f"a card in a cell cannot go to another cell in {cls.title}"

    @classmethod
    def max_run(cls, free_cells: int, empty_columns: int) -> int:
        return 1

    @classmethod
    def auto_needs(cls, card: Card) -> Mapping[str, int]:
        return {}
