"""A write judged on a stale position is answered with the game's version, not an error.

A write whose first seq does not follow the game's version (another instance or worker
wrote first) failed with unique_violation, and in a batch of writes (one statement) that
failed the whole batch: each of its writes was sent again alone. With two workers whose
moves of one game alternate, nearly every batch held one. record_events now answers such a
write with the game's version when asked to (`p_stale_answered`; `current_version`, a new
column of its answer, so the function is dropped and created again:
migrations/sql/0020_record_events.sql) and appends nothing; the batch's other writes
commit. Called as before (code older than this, during an upgrade), it fails as before.
The key (game_id, seq) still refuses a writer that commits between the check and the
insert.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    run_sql("0020_record_events.sql")


def downgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    for statement in sql_statements("0019_record_events.sql"):
        op.execute(statement)
