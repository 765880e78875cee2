"""The pace rule reads when a batch's moves were played (`played_ms`).

A move of a batch may say when it was played (`played_ms`, milliseconds since the game's
creation, kept in its CardMoved events' data: service/games/played.py). The boards' pace
rule, game_median_move_ms (migrations/sql/0009_pace.sql, same signature, so replaced in
place), reads that time where the data has it, else the event's `at` as before: a win
played offline at a person's pace is verified like one played online. No event recorded
before has `played_ms`, so no win's pace changes.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql("0009_pace.sql")


def downgrade() -> None:
    # game_median_move_ms as 0004_boards.sql made it (that file makes the other rules of
    # the boards too, which stay)
    (before,) = [s for s in sql_statements("0004_boards.sql")
                 if "FUNCTION game_median_move_ms(" in s]
    op.execute(before.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
