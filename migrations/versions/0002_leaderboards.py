"""Leaderboards: each player's best won game per deal, written with the winning move.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


# record_events of 0001, plus: a won game becomes (or improves) its player's entry on the
# deal's board, in the same statement as the winning move. Time, moves and undos are the
# server's (the projection's values); an entry is replaced only by a strictly better
# (elapsed_ms, moves, finished_at), so a slower win never overwrites a faster one.
RECORD = """
CREATE OR REPLACE FUNCTION record_events(
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
    IF p_status = 'won' THEN
        INSERT INTO leaderboard_entries AS e
            (variant, deal, player_id, game_id, elapsed_ms, moves, undos, finished_at)
        VALUES (p_variant, p_deal, p_player, p_game, p_elapsed_ms, p_moves, p_undos,
                p_finished_at)
        ON CONFLICT (variant, deal, player_id) DO UPDATE
            SET game_id = EXCLUDED.game_id, elapsed_ms = EXCLUDED.elapsed_ms,
                moves = EXCLUDED.moves, undos = EXCLUDED.undos,
                finished_at = EXCLUDED.finished_at
            WHERE (EXCLUDED.elapsed_ms, EXCLUDED.moves, EXCLUDED.finished_at)
                < (e.elapsed_ms, e.moves, e.finished_at);
    END IF;
    PERFORM pg_notify('game_events', p_game::text || ' ' || (p_first_seq + n - 1)::text);
    RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::jsonb;
END $$;
"""


def _record_of_0001() -> str:
    """0001's record_events, to put back on downgrade."""
    path = Path(__file__).with_name("0001_event_log.py")
    spec = importlib.util.spec_from_file_location("migration_0001", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.RECORD
    return text.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


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
    op.execute(RECORD)


def downgrade() -> None:
    op.execute(_record_of_0001())
    op.drop_index("leaderboard_entries_player", table_name="leaderboard_entries")
    op.drop_index("leaderboard_entries_board", table_name="leaderboard_entries")
    op.drop_table("leaderboard_entries")
