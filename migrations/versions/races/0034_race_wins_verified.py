"""A race's stream says whether each win was played at a hand's pace, as its GET does.

Migration 0033 kept the boards' verdict on a won game's row (`games.verified`), and a
race's GET shows it beside each winner's rank; its stream did not, so a client that
follows the stream alone showed a scripted win (one batch, no times) like any other.
PlayerFinished and RaceEnded's ranking now carry `verified` (migrations/sql/0034_races.sql;
null for a game not won). Events written before keep their data as written, without it.

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None

REPLACED = ("FUNCTION race_end_if_done(", "FUNCTION race_progress(")


def upgrade() -> None:
    run_sql("0034_races.sql")


def downgrade() -> None:
    for statement in sql_statements("0006_races.sql"):
        if any(name in statement for name in REPLACED):
            op.execute(statement.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
