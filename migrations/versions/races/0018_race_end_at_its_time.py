"""A race's end abandons the games still in play as of its ends_at.

A race's games start as of its starts_at; its end was taken when the clock task (twice a
second) or a late write came to it, 350 to 450 ms after ends_at here, and the abandoned
games were stamped then: their elapsed_ms exceeded the race's length. record_events takes
an optional time (`p_at`, a new parameter, so the function is dropped and created again),
which only race_end gives (migrations/sql/0018_*.sql).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    run_sql("0018_record_events.sql")
    run_sql("0018_races.sql")


def downgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    for statement in sql_statements("0016_record_events.sql"):
        op.execute(statement.replace("CREATE OR REPLACE FUNCTION", "CREATE FUNCTION", 1))
    run_sql("0007_races.sql")
