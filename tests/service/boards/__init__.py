"""Boards and players' records against a real PostgreSQL, through service/boards."""
