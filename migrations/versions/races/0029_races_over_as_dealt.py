"""A race on a deal whose games are over as dealt ends at its start.

race_start (migrations/sql/0029_races.sql) writes such games' finished_at (starts_at) and
elapsed_ms (0), as a game over at its creation has them, gives each player PlayerFinished
and ends the race at once. Games of races started before keep their logs; their rows get
the finished_at and elapsed_ms their logs say (a race's game over with its row's
finished_at NULL was over from its start: a later write would have set it).

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql("0029_races.sql")
    op.execute(
        "UPDATE games SET finished_at = created_at, elapsed_ms = 0"
        " WHERE race_id IS NOT NULL AND status <> 'playing' AND finished_at IS NULL"
    )


def downgrade() -> None:
    (start,) = [s for s in sql_statements("0006_races.sql") if "FUNCTION race_start(" in s]
    op.execute(start.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
