"""Writes no longer NOTIFY inside their transaction; the log no longer references the
projection.

PostgreSQL serialises the commits of transactions that NOTIFY (a global lock at commit),
which capped the moves a second; each instance now publishes its commits in batches after
the fact (service/stream.py). And the foreign key from game_events to games pointed from
the truth to a projection that can be rebuilt from it: record_events writes both in one
transaction, so it only cost a lookup and a row lock on every append.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_constraint("game_events_game_id_fkey", "game_events", type_="foreignkey")
    run_sql("0003_record_events.sql")


def downgrade() -> None:
    run_sql("0002_record_events.sql")
    op.create_foreign_key(
        "game_events_game_id_fkey", "game_events", "games", ["game_id"], ["id"]
    )
