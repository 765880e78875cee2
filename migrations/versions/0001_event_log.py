"""The event log, its projection, players and idempotency keys.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

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

# One call, one round trip, one transaction: the idempotency record (if a key is given),
# the events, the projection, and the notification for live streams. The primary key
# (game_id, seq) is the concurrency control: a writer whose position is stale collides
# with the event already there and the whole call fails with unique_violation.
RECORD = """
CREATE FUNCTION record_events(
    p_game uuid, p_first_seq integer, p_events jsonb, p_at timestamptz,
    p_player uuid, p_variant text, p_deal bigint, p_autoplay boolean,
    p_status text, p_moves integer, p_undos integer, p_foundation_cards integer,
    p_finished_at timestamptz, p_elapsed_ms bigint,
    p_key text, p_request_hash text, p_http_status integer, p_response jsonb
) RETURNS TABLE (replayed boolean, request_hash text, http_status integer, response jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    n integer := jsonb_array_length(p_events);
BEGIN
    IF p_key IS NOT NULL THEN
        INSERT INTO idempotency_keys AS k (player_id, key, request_hash, status, response, created_at)
        VALUES (p_player, p_key, p_request_hash, p_http_status, p_response, p_at)
        ON CONFLICT (player_id, key) DO NOTHING;
        IF NOT FOUND THEN
            RETURN QUERY SELECT true, k.request_hash, k.status, k.response
                FROM idempotency_keys k WHERE k.player_id = p_player AND k.key = p_key;
            RETURN;
        END IF;
    END IF;
    IF p_first_seq = 1 THEN
        INSERT INTO games (id, player_id, variant, deal, autoplay, status, version, moves, undos,
                           foundation_cards, created_at, updated_at, finished_at, elapsed_ms)
        VALUES (p_game, p_player, p_variant, p_deal, p_autoplay, p_status, n, p_moves, p_undos,
                p_foundation_cards, p_at, p_at, p_finished_at, p_elapsed_ms);
    END IF;
    INSERT INTO game_events (game_id, seq, type, data, at)
        SELECT p_game, p_first_seq + e.ord::integer - 1, e.value->>'type', e.value->'data', p_at
        FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(value, ord);
    IF p_first_seq > 1 THEN
        UPDATE games SET status = p_status, version = p_first_seq + n - 1, moves = p_moves,
                         undos = p_undos, foundation_cards = p_foundation_cards, updated_at = p_at,
                         finished_at = p_finished_at, elapsed_ms = p_elapsed_ms
        WHERE id = p_game;
    END IF;
    PERFORM pg_notify('game_events', p_game::text || ' ' || (p_first_seq + n - 1)::text);
    RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::jsonb;
END $$;
"""


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
    op.execute(RECORD)


def downgrade() -> None:
    op.execute("DROP FUNCTION record_events")
    op.drop_table("idempotency_keys")
    op.drop_table("game_events")
    op.execute("DROP FUNCTION game_events_append_only")
    op.drop_index("games_player_created", table_name="games")
    op.drop_table("games")
    op.drop_table("players")
