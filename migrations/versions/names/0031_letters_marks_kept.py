"""Names whose letters differ by a mark that makes another letter: every key made anew.

service/players/names.py left out of two of a name's keys the marks of scripts that do not
spell syllables with them, as accents. Some make another letter: Arabic's dots, which
TS #39's data writes `ش` with (`شیما`, Shima, and `سیما`, Sima, had those keys alike), and
the kana's voicing marks (`だいき`, Daiki, and `たいき`, Taiki): the younger of such a pair
could not be created. Those marks are now kept where they make another letter
(service/players/marks.py). Existing players get their keys anew (migrations/keys.py).

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

from migrations.keys import give_every_key

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    give_every_key(op.get_bind())


def downgrade() -> None:
    """The keys stay as made."""
