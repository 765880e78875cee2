"""Names that look alike as drawn: a third key, and all three made anew.

- `players.glyph_key`: the skeleton of the name's characters as typed, before their
  compatibility forms are folded, then case folded (service/players/names.py), under a
  UNIQUE index: `osϲar` (a Greek lunate sigma, whose compatibility form is `ς`) no longer
  passes for `oscar`, nor `ſred` for `fred`, nor `bi￨￨` (halfwidth bars) for `bill`.
- The small Cyrillic palochka is read as its capital, a bar like `l`, in every key
  (`heӏӏo` looked like `heiio`), so `name_key` and `shape_key` are computed anew.

As in 0017: existing players get their keys here, computed in Python with the service's
own functions; where existing names look alike by a key, the oldest player (by
created_at, then id) keeps it and the others' stay NULL (they keep their names).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.players.names import glyph_key, held_keys, name_key, shape_key

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

BATCH = 5000


def upgrade() -> None:
    op.add_column("players", sa.Column("glyph_key", sa.Text(), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, name FROM players ORDER BY created_at, id")).all()
    ordered = [name for _, name in rows]
    names, shapes, glyphs = (held_keys(ordered, key) for key in (name_key, shape_key, glyph_key))
    # (cleared first: a key made anew may be another player's old one until both are set)
    bind.execute(sa.text(
        "UPDATE players SET name_key = NULL, shape_key = NULL"
        " WHERE name_key IS NOT NULL OR shape_key IS NOT NULL"
    ))
    update = sa.text(
        "UPDATE players p SET name_key = k.name_key, shape_key = k.shape_key,"
        " glyph_key = k.glyph_key"
        " FROM unnest(CAST(:ids AS uuid[]), CAST(:names AS text[]), CAST(:shapes AS text[]),"
        " CAST(:glyphs AS text[])) AS k(id, name_key, shape_key, glyph_key) WHERE p.id = k.id"
    )
    ids = [player_id for player_id, _ in rows]
    for start in range(0, len(ids), BATCH):
        end = start + BATCH
        bind.execute(update, {"ids": ids[start:end], "names": names[start:end],
                              "shapes": shapes[start:end], "glyphs": glyphs[start:end]})
    op.create_index("players_glyph_key", "players", ["glyph_key"], unique=True)


def downgrade() -> None:
    op.drop_index("players_glyph_key", table_name="players")
    op.drop_column("players", "glyph_key")
