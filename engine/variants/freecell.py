"""FreeCell (seed 001): 8 columns, 4 cells, columns build down in alternating colours,
supermoves of up to (F + 1) * 2**E cards."""

from __future__ import annotations

from engine.position import Position


class FreeCell(Position):
    name = "freecell"
    title = "FreeCell"
    columns = 8
    cell_count = 4
    builds = "alternate"
    empty_column_takes = "any"
    moves_runs = True
    cell_to_cell = True
    auto_rule = "other_colour"
