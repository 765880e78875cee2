"""A board's entries counted by bin of time, for ranks that cost no count of the board.

`board_bins` holds, for each board of each deal, how many entries fall in each bin of 10
seconds of `elapsed_ms`, the first column of the boards' order. A trigger on
`leaderboard_entries` (migrations/sql/0011_board_bins.sql) keeps it in step in the
transaction of every win that adds or improves an entry. An entry's rank is then the sum
of the bins before its own and a count within its own bin (service/boards/board.py),
instead of a count of every entry ahead of it.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.database.migrate import run_sql

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "board_bins",
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("deal", sa.BigInteger(), nullable=False),
        sa.Column("board", sa.Text(), nullable=False),
        sa.Column("bin", sa.BigInteger(), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("variant", "deal", "board", "bin", name="board_bins_pkey"),
    )
    run_sql("0011_board_bins.sql")
    op.execute(
        """CREATE TRIGGER leaderboard_entries_bins
           AFTER INSERT OR UPDATE OR DELETE ON leaderboard_entries
           FOR EACH ROW EXECUTE FUNCTION board_bins_follow()"""
    )
    op.execute(
        """INSERT INTO board_bins (variant, deal, board, bin, entries)
           SELECT variant, deal, board, elapsed_ms / 10000, count(*)
           FROM leaderboard_entries GROUP BY variant, deal, board, elapsed_ms / 10000"""
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER leaderboard_entries_bins ON leaderboard_entries")
    op.execute("DROP FUNCTION board_bins_follow()")
    op.drop_table("board_bins")
