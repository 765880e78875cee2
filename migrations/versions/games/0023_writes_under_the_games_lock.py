"""A write moves its game's row on before it appends; lock_game holds the row for a write.

A write judged on a position read from the log could lose to another instance's write of
the same game again and again (that one's copy current, one round trip; its own, two),
and a move sent without `expected_version` ended in 409. A writer whose writes met others'
now reads the log and judges under the game's locks, taken by lock_game, and commits
before another write of the game can land. For that, record_events moves the game's row
on (taking its lock, after its race's) before it appends the events, and only from the
version the write follows, where it read the version without a lock and updated the row
last: a writer that comes meanwhile waits, then appends nothing, where it would have
appended and then deadlocked with the locked one (migrations/sql/0023_record_events.sql).

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
