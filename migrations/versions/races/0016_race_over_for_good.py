"""No write lands in a race's game once the race is over, however it ended.

A race is over when every game in it is over, a blocked game included, or at its
ends_at. record_events refused a write to a race's game only at or after ends_at, so a
racer whose blocked game ended the race could undo, play on and win after RaceEnded had
ranked them (migrations/sql/0016_record_events.sql).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql("0016_record_events.sql")


def downgrade() -> None:
    for statement in sql_statements("0010_record_events.sql"):
        op.execute(statement.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
