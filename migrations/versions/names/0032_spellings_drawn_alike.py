"""Names that copied another with a tatweel or a letter spelt another way: every key made anew.

service/players/names.py kept Arabic's tatweel, which only lengthens a join, in a name's
keys, and read apart letters spelt two ways that are drawn alike: Bengali's `র` and `ব`
with a nukta, Assamese's `ৰ` beside a virama, Tamil's two-part vowel signs typed the
other way round, Malayalam's chillus, Odia's subjoined VA and WA, Khmer's shifters
before a vowel above, Tibetan's TSA-PHRU, Arabic's African QAF and NOON, Greek's `϶` for
Cyrillic `э`, and others (marks._DRAWN_ALIKE, names._DRAWN_AS). `مـحـمـد`, `ব়াহুল` and
`மாேகன்` passed for names other than `محمد`, `রাহুল` and `மோகன்`. They are now read as
one, a mark written twice on a letter is refused wherever it stands, and Hebrew's shin and
sin dots count as their letter's own (`מְנַשֶּׁה` was refused for three marks). Existing
players get their keys anew (migrations/keys.py): the younger of such a pair keeps its
name, without the keys the older holds.

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

from migrations.keys import give_every_key

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    give_every_key(op.get_bind())


def downgrade() -> None:
    """The keys stay as made."""
