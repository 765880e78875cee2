"""Leaderboards: each player's best won game per deal, written with the winning move.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.database.migrate import run_sql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leaderboard_entries",
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("deal", sa.BigInteger(), nullable=False),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("elapsed_ms", sa.BigInteger(), nullable=False),
        sa.Column("moves", sa.Integer(), nullable=False),
        sa.Column("undos", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("variant", "deal", "player_id", name="leaderboard_entries_pkey"),
    )
    # the board in order (pages by keyset, ranks by counting what comes before)
    op.create_index(
        "leaderboard_entries_board",
        "leaderboard_entries",
        ["variant", "deal", "elapsed_ms", "moves", "finished_at", "player_id"],
    )
    # a player's record: best time per variant and the deals won
    op.create_index(
        "leaderboard_entries_player", "leaderboard_entries", ["player_id", "variant", "deal"]
    )
    # wins recorded before this revision: the projection has their server-side times
    op.execute(
        """INSERT INTO leaderboard_entries
               (variant, deal, player_id, game_id, elapsed_ms, moves, undos, finished_at)
           SELECT DISTINCT ON (variant, deal, player_id)
                  variant, deal, player_id, id, elapsed_ms, moves, undos, finished_at
           FROM games
           WHERE status = 'won' AND elapsed_ms IS NOT NULL AND finished_at IS NOT NULL
           ORDER BY variant, deal, player_id, elapsed_ms, moves, finished_at"""
    )
    run_sql("0002_record_events.sql")


def downgrade() -> None:
    run_sql("0001_record_events.sql")
    op.drop_index("leaderboard_entries_player", table_name="leaderboard_entries")
    op.drop_index("leaderboard_entries_board", table_name="leaderboard_entries")
    op.drop_table("leaderboard_entries")
