-- record_events as of migration 0002: 0001's, plus: a won game becomes (or improves) its
-- player's entry on the deal's board, in the same statement as the winning move. An entry
-- is replaced only by a strictly better (elapsed_ms, moves, finished_at).
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
