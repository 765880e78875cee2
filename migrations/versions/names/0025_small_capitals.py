"""Names drawn alike that Unicode's confusables leave apart: every key made anew.

service/players/names.py now reads the Latin small capitals as their letters (`ᴀᴅᴀ` no
longer passes for a name other than `ada`), single vertical strokes (box drawing's, `⏐`,
`❘`, `▏`, `〡`, the CJK stroke U+4E28) as a vertical line (`ada│` looks like `adal`), and
the tone six `ƅ` as `b`.
Existing players get their keys anew (migrations/keys.py: the oldest of lookalikes keeps
a key; the others keep their names).

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

from migrations.keys import give_every_key

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    give_every_key(op.get_bind())


def downgrade() -> None:
    """The keys stay as made: the earlier rules' keys are the same or fewer alike."""
