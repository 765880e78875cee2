"""Link-code tries per client address, counted by the database: every instance of the
service sees the same count (API.md: more than 10 tries a minute from one address, 429).

`link_tries` holds one row per address that tried lately: the times of its tries within
the last minute, oldest first. A try updates its address's row under the row's lock, so
concurrent tries from one address, on any instance, count one after another
(service/players/tries.py); the service purges rows whose last try is old.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "link_tries",
        sa.Column("address", sa.Text(), primary_key=True),
        sa.Column("tries", postgresql.ARRAY(sa.DateTime(timezone=True)), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("link_tries")
