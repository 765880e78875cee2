"""Beleaguered Castle (seed 003): aces start on the foundations, 8 rows of 6, no cells,
a card goes on any card one rank higher, an empty row takes any card."""

from __future__ import annotations

from engine.position import Position


class BeleagueredCastle(Position):
    name = "beleaguered_castle"
    title = "Beleaguered Castle"
    columns = 8
    cell_count = 0
    builds = "any"
    empty_column_takes = "any"
    moves_runs = False
    cell_to_cell = False
    auto_rule = "all_four"
    column_word = "row"
