"""The event log, its projection, players and idempotency keys.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from service.database.migrate import run_sql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


APPEND_ONLY = [
    """CREATE FUNCTION game_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'game_events is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$""",
    """CREATE TRIGGER game_events_no_update BEFORE UPDATE OR DELETE ON game_events
    FOR EACH ROW EXECUTE FUNCTION game_events_append_only()""",
    """CREATE TRIGGER game_events_no_truncate BEFORE TRUNCATE ON game_events
    FOR EACH STATEMENT EXECUTE FUNCTION game_events_append_only()""",
]

def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.LargeBinary(), nullable=False, unique=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")
        ),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("deal", sa.BigInteger(), nullable=False),
        sa.Column("autoplay", sa.Boolean(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("moves", sa.Integer(), nullable=False),
        sa.Column("undos", sa.Integer(), nullable=False),
        sa.Column("foundation_cards", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("elapsed_ms", sa.BigInteger(), nullable=True),
        sa.CheckConstraint(
            "status IN ('playing', 'won', 'blocked', 'abandoned')", name="games_status_check"
        ),
    )
    op.create_index("games_player_created", "games", ["player_id", "created_at"])
    op.create_table(
        "game_events",
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("data", JSONB(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq", name="game_events_pkey"),
        sa.CheckConstraint("seq >= 1", name="game_events_seq_check"),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("request_hash", sa.Text(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("response", JSONB(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "key", name="idempotency_keys_pkey"),
    )
    op.create_index("idempotency_keys_created", "idempotency_keys", ["created_at"])
    for statement in APPEND_ONLY:
        op.execute(statement)
    run_sql("0001_record_events.sql")


def downgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    op.drop_table("idempotency_keys")
    op.drop_table("game_events")
    op.execute("DROP FUNCTION game_events_append_only")
    op.drop_index("games_player_created", table_name="games")
    op.drop_table("games")
    op.drop_table("players")
