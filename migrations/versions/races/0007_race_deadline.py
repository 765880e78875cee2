"""No write to a race's game after the race's ends_at (issue 18).

record_events (0007) refuses a write to a race's game that comes at or after the race's
ends_at by the database's clock, and ends the race then when nobody has yet (the games
still in play abandoned, RaceEnded), in the same transaction: the end holds without the
instances' clocks and costs no round trip more. It answers a refused write with the race's
ends_at (a new column, so the function is dropped and created again). race_end (0007)
takes the end by setting the race's ended_at, which is how record_events tells race_end's
own abandonments from a late write.

The functions' SQL lives in migrations/sql/0007_*.sql.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    run_sql("0007_record_events.sql")
    run_sql("0007_races.sql")


def downgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    run_sql("0006_record_events.sql")
    # race_end as 0006 had it: 0006_races.sql creates every race function, so all go first
    for function in (
        "race_end", "race_start", "race_join", "race_create", "race_progress",
        "race_end_if_done", "race_ranking", "race_append",
    ):
        op.execute(f"DROP FUNCTION {function}")
    run_sql("0006_races.sql")
