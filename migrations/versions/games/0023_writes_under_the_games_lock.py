"""A write moves its game's row on before it appends; lock_game holds the row for a write.

A write judged on a position read from the log could lose to another instance's write of
the same game again and again (that one's copy current, one round trip; its own, two),
and a move sent without `expected_version` ended in 409. A writer whose writes met others'
now reads the log and judges under the game's locks, taken by lock_game, and commits
before another write of the game can land. For that, every write of a game takes its
locks in one order: its race's row, the game's row (moved on before the events are
appended, and only from the version the write follows), then its idempotency key. Before,
a write kept its key first and updated the row last, after reading the version without a
lock: a writer that came meanwhile would have appended, or held the key the locked one
needed, and deadlocked with it (migrations/sql/0023_record_events.sql).

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    run_sql("0023_record_events.sql")


def downgrade() -> None:
    op.execute("DROP FUNCTION lock_game")
    op.execute("DROP FUNCTION record_events")
    for statement in sql_statements("0020_record_events.sql"):
        op.execute(statement)
