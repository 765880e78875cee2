"""Names that look alike as written: a second key, and both keys made anew.

- `players.shape_key`: the skeleton of the name as written, case folded after
  (service/players/names.py), under a UNIQUE index: `Ian` no longer passes for `lan`, nor
  `0scar` for `Oscar`, which the key that folds case first (`name_key`) let through.
- Both keys now drop spaces (a thin space shows as next to nothing) and combining marks
  (`I an`, `Ada  Lovelace`, `Adà Lovelace`), so `name_key` is computed anew for every
  player.

As in 0008: existing players get their keys here, computed in Python with the service's
own functions; where existing names look alike by a key, the oldest player (by
created_at, then id) keeps it and the others' stay NULL (they keep their names).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.players.names import held_keys, name_key, shape_key

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

BATCH = 5000



def upgrade() -> None:
    op.add_column("players", sa.Column("shape_key", sa.Text(), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, name FROM players ORDER BY created_at, id")).all()
    ordered = [name for _, name in rows]
    names, shapes = held_keys(ordered, name_key), held_keys(ordered, shape_key)
    bind.execute(sa.text("UPDATE players SET name_key = NULL WHERE name_key IS NOT NULL"))
    update = sa.text(
        "UPDATE players p SET name_key = k.name_key, shape_key = k.shape_key"
        " FROM unnest(CAST(:ids AS uuid[]), CAST(:names AS text[]), CAST(:shapes AS text[]))"
        " AS k(id, name_key, shape_key) WHERE p.id = k.id"
    )
    ids = [player_id for player_id, _ in rows]
    for start in range(0, len(ids), BATCH):
        end = start + BATCH
        bind.execute(update, {"ids": ids[start:end], "names": names[start:end],
                              "shapes": shapes[start:end]})
    op.create_index("players_shape_key", "players", ["shape_key"], unique=True)


def downgrade() -> None:
    op.drop_index("players_shape_key", table_name="players")
    op.drop_column("players", "shape_key")
