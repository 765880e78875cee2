"""A player's streaks, one rule for their record and their stats.

`player_streaks(player, variant)` (migrations/sql/0015_streaks.sql) counts them from the
games: wins without a hint in a row, in the order the games finished, an abandoned or a
blocked game or a win with a hint ending one. The record reads it (across every game);
the stats' trigger, which keeps the streaks step by step, counts a game's streaks again
with it when a blocked game leaves its place in the order (an undo revives it, or it is
abandoned), where a step would keep the streak that the block ended. The stats of the
games recorded before are counted again here.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql("0015_streaks.sql")
    op.execute(
        """UPDATE player_stats s SET (streak, best_streak) = (
               SELECT k.current, k.longest FROM player_streaks(s.player_id, s.variant) k)"""
    )


def downgrade() -> None:
    for statement in sql_statements("0013_player_stats.sql"):  # the trigger's function
        op.execute(statement.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
    op.execute("DROP FUNCTION player_streaks(uuid, text)")
