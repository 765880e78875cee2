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

import importlib.util
from pathlib import Path

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_spec = importlib.util.spec_from_file_location(
    "_migration_0002", Path(__file__).with_name("0002_leaderboards.py")
)
assert _spec is not None and _spec.loader is not None
_previous = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_previous)
NOTIFY = "    PERFORM pg_notify('game_events', p_game::text || ' ' || (p_first_seq + n - 1)::text);\n"
assert NOTIFY in _previous.RECORD, "0002's record_events changed: update this migration"
RECORD = _previous.RECORD.replace(NOTIFY, "")


def upgrade() -> None:
    op.drop_constraint("game_events_game_id_fkey", "game_events", type_="foreignkey")
    op.execute(RECORD)


def downgrade() -> None:
    op.execute(_previous.RECORD)
    op.create_foreign_key(
        "game_events_game_id_fkey", "game_events", "games", ["game_id"], ["id"]
    )
