"""Boards and records: best times per deal, players' records and games."""
