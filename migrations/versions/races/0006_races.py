"""Races (issue 18): several players, one deal, one clock, watched live.

- `races`: one row a race, its deal (kept secret until it starts: a random deal is drawn
  then), its status (open → running → over, each step taken once, by one statement on
  this row), its times and `version`, the seq of the last event of its stream.
- `race_players`: who joined, when.
- `race_events`: the race's own log (RaceCreated, PlayerJoined, RaceStarted, Progress,
  PlayerFinished, RaceEnded), keyed by (race_id, seq) like a game's; the next seq is taken
  by an UPDATE of the race's row, which also serialises every write to the race's games.
- `games.race_id`: the race a game belongs to. record_events (0006) appends the race's
  Progress, PlayerFinished and RaceEnded in the transaction of the game's write.

The functions' SQL lives in migrations/sql/0006_*.sql.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from service.database.migrate import run_sql

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# dropped by name: each has one signature
RACE_FUNCTIONS = (
    "race_end", "race_start", "race_join", "race_create", "race_progress",
    "race_end_if_done", "race_ranking", "race_append",
)


def upgrade() -> None:
    op.create_table(
        "races",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("creator_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("deal", sa.BigInteger(), nullable=True),
        sa.Column("autoplay", sa.Boolean(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('open', 'running', 'over')", name="races_status_check"),
    )
    op.create_index("races_due", "races", ["status", "starts_at", "ends_at"])
    op.create_table(
        "race_players",
        sa.Column("race_id", sa.Uuid(), sa.ForeignKey("races.id"), nullable=False),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("race_id", "player_id", name="race_players_pkey"),
    )
    op.create_table(
        "race_events",
        sa.Column("race_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("data", JSONB(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("race_id", "seq", name="race_events_pkey"),
        sa.CheckConstraint("seq >= 1", name="race_events_seq_check"),
    )
    op.add_column(
        "games", sa.Column("race_id", sa.Uuid(), sa.ForeignKey("races.id"), nullable=True)
    )
    op.create_index("games_race", "games", ["race_id", "player_id"])
    run_sql("0006_races.sql")
    run_sql("0006_record_events.sql")


def downgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    run_sql("0004_record_events.sql")
    for function in RACE_FUNCTIONS:
        op.execute(f"DROP FUNCTION {function}")
    op.drop_index("games_race", table_name="games")
    op.drop_column("games", "race_id")
    op.drop_table("race_events")
    op.drop_table("race_players")
    op.drop_index("races_due", table_name="races")
    op.drop_table("races")
