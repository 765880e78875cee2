"""Friends: the players a player follows, for the boards of the people they know.

`friends` holds one row per (player, followed player); a player follows at most 1,000
(service/players/friends.py). The boards' `?friends=true` reads it.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "friends",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("friend_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False,
            server_default=sa.text("clock_timestamp()"),
        ),
        sa.PrimaryKeyConstraint("player_id", "friend_id", name="friends_pkey"),
    )


def downgrade() -> None:
    op.drop_table("friends")
