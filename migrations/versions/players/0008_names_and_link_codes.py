"""Players' names that cannot pass for another's, link codes that die with their token.

- `players.name_key`: what the name looks like (service/players/names.py: NFKC_Casefold,
  then the confusable skeleton of Unicode TS #39), under a UNIQUE index, so that no two
  players' names look alike, even when created at once. Existing players get theirs here,
  computed in Python with the service's own function; where existing names look alike,
  the oldest player (by created_at, then id) keeps the key and the others' stay NULL
  (they keep their names).
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

from service.players.names import held_keys, name_key

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

BATCH = 5000


def _backfill_name_keys() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, name FROM players ORDER BY created_at, id")).all()
    held = held_keys([name for _, name in rows], name_key)
    # (a younger lookalike keeps its name, without a key)
    ids = [player_id for (player_id, _), key in zip(rows, held, strict=True) if key is not None]
    keys = [key for key in held if key is not None]
    update = sa.text(
        "UPDATE players p SET name_key = k.key"
        " FROM unnest(CAST(:ids AS uuid[]), CAST(:keys AS text[])) AS k(id, key)"
        " WHERE p.id = k.id"
    )
    for start in range(0, len(ids), BATCH):
        bind.execute(
            update, {"ids": ids[start:start + BATCH], "keys": keys[start:start + BATCH]}
        )


def upgrade() -> None:
    op.add_column("players", sa.Column("name_key", sa.Text(), nullable=True))
    _backfill_name_keys()
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
