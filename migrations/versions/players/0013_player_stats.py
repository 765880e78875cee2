"""A player's story: their figures per game, kept as they play.

- `player_stats`: per player and game (variant), the games played (every game begun),
  won, won with help (`assisted`), the streak of wins without a hint now and at its best
  (an assisted win, an abandoned or a blocked game ends a streak), the best time.
- `player_time_bins`: the player's winning times by the second, and an index of their won
  games by time: the median is found in its second, then read off the index.

A trigger on `games` (migrations/sql/0013_player_stats.sql) keeps both in the transaction
of the write that creates a game or changes its status, and only then: a move that leaves
the status as it was does not fire it. Games recorded before are counted here, their
streaks in the order they finished.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.database.migrate import run_sql

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_stats",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("won_assisted", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("best_streak", sa.Integer(), nullable=False),
        sa.Column("best_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("player_id", "variant", name="player_stats_pkey"),
    )
    op.create_table(
        "player_time_bins",
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("bin", sa.BigInteger(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "variant", "bin", name="player_time_bins_pkey"),
    )
    op.create_index(
        "games_player_finished", "games", ["player_id", "finished_at"],
        postgresql_where=sa.text("finished_at IS NOT NULL"),
    )
    op.create_index(
        "games_player_won_times", "games", ["player_id", "variant", "elapsed_ms"],
        postgresql_where=sa.text("status = 'won'"),
    )
    run_sql("0013_player_stats.sql")
    op.execute(
        """CREATE TRIGGER games_player_stats_new AFTER INSERT ON games
           FOR EACH ROW EXECUTE FUNCTION player_stats_follow()"""
    )
    op.execute(
        """CREATE TRIGGER games_player_stats_status AFTER UPDATE OF status ON games
           FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
           EXECUTE FUNCTION player_stats_follow()"""
    )
    # the games recorded before: counts, best times and bins, then the streaks, each
    # game's outcome in the order the games finished
    op.execute(
        """INSERT INTO player_stats (player_id, variant, played, won, won_assisted, streak,
                                     best_streak, best_ms)
           SELECT player_id, variant, count(*), count(*) FILTER (WHERE status = 'won'),
                  count(*) FILTER (WHERE status = 'won' AND assisted), 0, 0,
                  min(elapsed_ms) FILTER (WHERE status = 'won')
           FROM games GROUP BY player_id, variant"""
    )
    op.execute(
        """INSERT INTO player_time_bins (player_id, variant, bin, wins)
           SELECT player_id, variant, elapsed_ms / 1000, count(*) FROM games
           WHERE status = 'won' AND elapsed_ms IS NOT NULL
           GROUP BY player_id, variant, elapsed_ms / 1000"""
    )
    op.execute(
        """WITH ended AS (
               SELECT player_id, variant, finished_at, id,
                      (status = 'won' AND NOT assisted) AS clean
               FROM games WHERE status IN ('won', 'abandoned', 'blocked')
           ), runs AS (
               SELECT *, count(*) FILTER (WHERE NOT clean) OVER (
                   PARTITION BY player_id, variant ORDER BY finished_at, id) AS run
               FROM ended
           ), lengths AS (
               SELECT player_id, variant, run, count(*) FILTER (WHERE clean) AS wins
               FROM runs GROUP BY player_id, variant, run
           )
           UPDATE player_stats s SET
               best_streak = (SELECT max(l.wins) FROM lengths l
                              WHERE l.player_id = s.player_id AND l.variant = s.variant),
               streak = (SELECT l.wins FROM lengths l
                         WHERE l.player_id = s.player_id AND l.variant = s.variant
                         ORDER BY l.run DESC LIMIT 1)
           WHERE EXISTS (SELECT 1 FROM lengths l
                         WHERE l.player_id = s.player_id AND l.variant = s.variant)"""
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER games_player_stats_status ON games")
    op.execute("DROP TRIGGER games_player_stats_new ON games")
    op.execute("DROP FUNCTION player_stats_follow()")
    op.drop_index("games_player_won_times", table_name="games")
    op.drop_index("games_player_finished", table_name="games")
    op.drop_table("player_time_bins")
    op.drop_table("player_stats")
