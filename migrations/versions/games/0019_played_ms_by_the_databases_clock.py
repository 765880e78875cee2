"""No move may say it was played after its write came, by the database's clock.

A batch's `played_ms` (ms since the game's creation) were bounded by the service
machine's clock, while the game's times are the database's: with the service's clock
ahead, a batch could claim moves played after the win was recorded, and the pace rule read
those times. record_events now refuses such a write itself and answers with the moment it
came (`arrived_ms`, a new column of its answer, so the function is dropped and created
again: migrations/sql/0019_record_events.sql).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    run_sql("0019_record_events.sql")


def downgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    for statement in sql_statements("0018_record_events.sql"):
        op.execute(statement)
