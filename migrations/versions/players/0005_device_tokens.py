"""Device tokens and link codes (issue 17): a player has a token per device, each with its
name and last use, and links a new device with a short code used once.

- `device_tokens`: one row per token, its hash (never the token), the device's name, when
  it was made and last used; a token signed out (`DELETE /v1/players/me/tokens/{id}`) keeps
  its row with `revoked_at` set and is refused from then on.
- `link_codes`: the hash of each code, whose player it links to, when it expires and when
  it was used.
- Every player's token so far becomes their device token "first device". From here on
  the service no longer reads `players.token_hash` and leaves it NULL for new players: it
  stays, nullable, so that a downgrade can bring the old tokens back.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

FIRST_DEVICE = "first device"


def upgrade() -> None:
    op.create_table(
        "device_tokens",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("token_hash", sa.LargeBinary(), nullable=False, unique=True),
        sa.Column("device", sa.Text(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False,
            server_default=sa.text("now()"),
        ),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("device_tokens_player", "device_tokens", ["player_id", "created_at"])
    op.create_table(
        "link_codes",
        sa.Column("code_hash", sa.LargeBinary(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("link_codes_expires", "link_codes", ["expires_at"])
    op.execute(
        f"""INSERT INTO device_tokens (id, player_id, token_hash, device, created_at)
            SELECT gen_random_uuid(), id, token_hash, '{FIRST_DEVICE}', created_at
            FROM players WHERE token_hash IS NOT NULL"""
    )
    op.alter_column("players", "token_hash", nullable=True)


def downgrade() -> None:
    # each player's earliest token still in use comes back; a player with none keeps a
    # random hash (no token matches it)
    op.execute(
        """UPDATE players p SET token_hash = coalesce(
               (SELECT t.token_hash FROM device_tokens t
                WHERE t.player_id = p.id AND t.revoked_at IS NULL
                ORDER BY t.created_at LIMIT 1),
               p.token_hash,
               decode(md5(random()::text || p.id::text), 'hex'))
           WHERE p.token_hash IS NULL
              OR p.token_hash NOT IN (SELECT token_hash FROM device_tokens
                                      WHERE revoked_at IS NULL)"""
    )
    op.alter_column("players", "token_hash", nullable=False)
    op.drop_index("link_codes_expires", table_name="link_codes")
    op.drop_table("link_codes")
    op.drop_index("device_tokens_player", table_name="device_tokens")
    op.drop_table("device_tokens")
