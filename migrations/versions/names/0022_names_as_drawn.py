"""Names that look alike as drawn: a third key, and all three made anew.

- `players.glyph_key`: the skeleton of the name's characters as typed, before their
  compatibility forms are folded, then case folded (service/players/names.py), under a
  UNIQUE index: `osϲar` (a Greek lunate sigma, whose compatibility form is `ς`) no longer
  passes for `oscar`, nor `ſred` for `fred`, nor `bi￨￨` (halfwidth bars) for `bill`.
- The small Cyrillic palochka is read as its capital, a bar like `l`, in every key
  (`heӏӏo` looked like `heiio`), so `name_key` and `shape_key` are computed anew.

Existing players get their keys here (migrations/keys.py: the oldest of lookalikes keeps
a key; the others keep their names).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations.keys import give_keys
from service.players.names import glyph_key, name_key, shape_key

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("glyph_key", sa.Text(), nullable=True))
    give_keys(op.get_bind(), {"name_key": name_key, "shape_key": shape_key,
                              "glyph_key": glyph_key})
    op.create_index("players_glyph_key", "players", ["glyph_key"], unique=True)


def downgrade() -> None:
    op.drop_index("players_glyph_key", table_name="players")
    op.drop_column("players", "glyph_key")
