"""A won game keeps whether it was played at a hand's pace, for its race to show.

A race ranks its winners by time (API.md), and a scripted win (one batch, no times)
ranked first with nothing said. The verdict the boards give a win (record_win, the pace
rule of MIN_MEDIAN_MOVE_MS) is now kept on the game's row, `games.verified`, in the
win's own transaction, and a race shows it beside each winner's rank; computed at each
read instead, it cost a race's every GET each winner's whole log. Wins before this
migration take the verdict of their board entry (`assisted` lists every win); a win that
no longer has one (a better win of its player on the deal replaced it) keeps none (null).

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE games ADD COLUMN verified boolean")
    op.execute(
        "UPDATE games g SET verified = e.verified FROM leaderboard_entries e"
        " WHERE e.game_id = g.id AND e.board = 'assisted' AND g.status = 'won'"
    )
    run_sql("0033_boards.sql")


def downgrade() -> None:
    [record_win] = [s for s in sql_statements("0004_boards.sql") if "FUNCTION record_win" in s]
    op.execute(record_win.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"))
    op.execute("ALTER TABLE games DROP COLUMN verified")
