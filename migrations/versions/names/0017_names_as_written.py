"""Names that look alike as written: a second key, and both keys made anew.

- `players.shape_key`: the skeleton of the name as written, case folded after
  (service/players/names.py), under a UNIQUE index: `Ian` no longer passes for `lan`, nor
  `0scar` for `Oscar`, which the key that folds case first (`name_key`) let through.
- Both keys now drop spaces (a thin space shows as next to nothing) and combining marks
  (`I an`, `Ada  Lovelace`, `Adà Lovelace`), so `name_key` is computed anew for every
  player.

Existing players get their keys here (migrations/keys.py: the oldest of lookalikes keeps
a key; the others keep their names).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations.keys import give_keys
from service.players.names import name_key, shape_key

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("shape_key", sa.Text(), nullable=True))
    give_keys(op.get_bind(), {"name_key": name_key, "shape_key": shape_key})
    op.create_index("players_shape_key", "players", ["shape_key"], unique=True)


def downgrade() -> None:
    op.drop_index("players_shape_key", table_name="players")
    op.drop_column("players", "shape_key")
