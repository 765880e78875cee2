"""Players' names that cannot pass for another's, link codes that die with their token.

- `players.name_key`: what the name looks like (service/players/names.py: NFKC_Casefold,
  then the confusable skeleton of Unicode TS #39), under a UNIQUE index, so that no two
  players' names look alike, even when created at once. Existing players get theirs here
  (migrations/keys.py: the oldest of lookalikes keeps the key; the others keep their
  names).
- `link_codes.token_id`: the device token that made the code; signing it out cancels
  the code. Codes are now stored as HMAC-SHA256 under a server key instead of a plain
  SHA-256: the codes stored the old way (they live ten minutes) are dropped.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations.keys import give_keys
from service.players.names import name_key

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("name_key", sa.Text(), nullable=True))
    give_keys(op.get_bind(), {"name_key": name_key})
    op.create_index("players_name_key", "players", ["name_key"], unique=True)
    op.execute("DELETE FROM link_codes")
    op.add_column(
        "link_codes",
        sa.Column("token_id", sa.Uuid(), sa.ForeignKey("device_tokens.id"), nullable=False),
    )
    op.create_index("link_codes_token", "link_codes", ["token_id"])


def downgrade() -> None:
    # codes under the server's key mean nothing to the plain hash of before
    op.execute("DELETE FROM link_codes")
    op.drop_index("link_codes_token", table_name="link_codes")
    op.drop_column("link_codes", "token_id")
    op.drop_index("players_name_key", table_name="players")
    op.drop_column("players", "name_key")
