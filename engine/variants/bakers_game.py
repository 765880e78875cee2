"""Baker's Game (seed 000): FreeCell's layout, columns build down in suit, one card per move,
a card in a cell never goes to another cell."""

from __future__ import annotations

from engine.position import Position


class BakersGame(Position):
    name = "bakers_game"
    title = "Baker's Game"
    columns = 8
    cell_count = 4
    builds = "suit"
    empty_column_takes = "any"
    moves_runs = False
    cell_to_cell = False
    auto_rule = "always"
