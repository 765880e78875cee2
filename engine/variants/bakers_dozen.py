"""Baker's Dozen (seed 002): 13 columns of 4 with the kings at the buried end (the kings
and the other cards each keeping their order: engine/deals.py), no cells, a card goes on
any card one rank higher, an empty column stays empty."""

from __future__ import annotations

from engine.position import Position


class BakersDozen(Position):
    name = "bakers_dozen"
    title = "Baker's Dozen"
    columns = 13
    cell_count = 0
    builds = "any"
    empty_column_takes = "none"
    moves_runs = False
    cell_to_cell = False
    auto_rule = "all_four"
