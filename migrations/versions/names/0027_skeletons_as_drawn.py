"""Names whose skeleton holds a letter drawn as another: every key made anew.

service/players/names.py now reads the Latin small capitals, the bars and the tone six as
drawn in a name's skeleton too, not only in the name (the skeleton of Cyrillic `в` is the
small capital `ʙ`, drawn as `b`: `вat` passed for a name other than `bat`), without the
marks a skeleton may add, and `name_key` is TS #39's skeleton as Unicode's data has it
(`ᴢᴏꭱꭱᴏ` and `ᴢᴏʀʀᴏ` share one, `ᴍ` and `м`, and the small palochka is an `i` there).
Existing players get their keys anew (migrations/keys.py: the oldest of lookalikes keeps
a key; the others keep their names).

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

from migrations.keys import give_every_key

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    give_every_key(op.get_bind())


def downgrade() -> None:
    """The keys stay as made."""
