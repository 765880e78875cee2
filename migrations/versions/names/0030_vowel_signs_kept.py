"""Names in the scripts that spell syllables with marks: every key made anew, with them.

service/players/names.py left every combining mark out of a name's keys but the few drawn
as a letter. The Brahmic scripts' vowel signs and viramas, and Thai's, Myanmar's or
Tibetan's signs, are combining marks, so `राम` (Ram) and `रमा` (Rama), `பிரபு` and `பாபு`,
`ป่าน` and `ปาน` had one key, and the younger could not be created. Those marks are now
kept (service/players/marks.py). Existing players get their keys anew (migrations/keys.py:
the younger of such a pair, left without keys before, now has its own).

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

from migrations.keys import give_every_key

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    give_every_key(op.get_bind())


def downgrade() -> None:
    """The keys stay as made."""
