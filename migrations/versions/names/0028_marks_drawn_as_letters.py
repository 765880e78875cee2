"""Names holding a mark drawn as a letter, a digit or a sign: every key made anew.

service/players/names.py left every combining mark out of a name's keys, the few that
Unicode TS #39's data makes a character that is no mark among them: the Telugu, Kannada,
Malayalam and Sinhala anusvaras are drawn as `o`, the Oriya visarga as `8`, and `roంt`
passed for a name other than `root`. Those marks are now read as drawn. Existing players
get their keys anew (migrations/keys.py: the oldest of lookalikes keeps a key; the others
keep their names).

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

from migrations.keys import give_every_key

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    give_every_key(op.get_bind())


def downgrade() -> None:
    """The keys stay as made."""
