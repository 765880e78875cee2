-- The rules of the boards, each in one place (migration 0004).

-- A game's time: from its creation to its end, in whole milliseconds, never negative
-- (both times come from this database's clock).
CREATE FUNCTION game_elapsed_ms(p_created timestamptz, p_finished timestamptz)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT greatest(0, floor(extract(epoch FROM p_finished - p_created) * 1000))::bigint
$$;

-- The player's pace: the median time, in milliseconds, between two of the player's own
-- actions (a move, an undo, a redo), counting from the game's creation. Automatic moves
-- and hints are not the player's hand. NULL when the player made no move.
CREATE FUNCTION game_median_move_ms(p_game uuid)
RETURNS double precision LANGUAGE sql STABLE AS $$
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY gap)
    FROM (
        SELECT extract(epoch FROM at - lag(at) OVER (ORDER BY seq)) * 1000 AS gap
        FROM game_events
        WHERE game_id = p_game
          AND (seq = 1
               OR type IN ('MoveUndone', 'MoveRedone')
               OR (type = 'CardMoved' AND NOT coalesce((data->>'auto')::boolean, false)))
    ) AS gaps
    WHERE gap IS NOT NULL
$$;

-- The boards a win belongs on. 'assisted' lists every win (hinted or not, verified or
-- not); 'default' only wins with no hint, played at a hand's pace; the '_no_undo' boards
-- the same with no undo either.
CREATE FUNCTION win_boards(p_undos integer, p_assisted boolean, p_verified boolean)
RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT array_remove(ARRAY[
        'assisted',
        CASE WHEN p_undos = 0 THEN 'assisted_no_undo' END,
        CASE WHEN NOT p_assisted AND p_verified THEN 'default' END,
        CASE WHEN NOT p_assisted AND p_verified AND p_undos = 0 THEN 'no_undo' END
    ], NULL)
$$;

-- A won game becomes (or improves) its player's entry on each board it belongs on. An
-- entry is replaced only by a strictly better win: a shorter time, then fewer moves, then
-- an earlier finish (the boards' order, also in service/leaderboards.py's queries).
CREATE FUNCTION record_win(
    p_game uuid, p_player uuid, p_variant text, p_deal bigint, p_elapsed bigint,
    p_moves integer, p_undos integer, p_assisted boolean, p_min_median_ms integer,
    p_finished timestamptz
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_verified boolean := p_min_median_ms <= 0
        OR coalesce(game_median_move_ms(p_game), 0) >= p_min_median_ms;
BEGIN
    INSERT INTO leaderboard_entries AS e
        (variant, deal, board, player_id, game_id, elapsed_ms, moves, undos, assisted,
         verified, finished_at)
    SELECT p_variant, p_deal, b.board, p_player, p_game, p_elapsed, p_moves, p_undos,
           p_assisted, v_verified, p_finished
    FROM unnest(win_boards(p_undos, p_assisted, v_verified)) AS b(board)
    ON CONFLICT (variant, deal, board, player_id) DO UPDATE
        SET game_id = EXCLUDED.game_id, elapsed_ms = EXCLUDED.elapsed_ms,
            moves = EXCLUDED.moves, undos = EXCLUDED.undos, assisted = EXCLUDED.assisted,
            verified = EXCLUDED.verified, finished_at = EXCLUDED.finished_at
        WHERE (EXCLUDED.elapsed_ms, EXCLUDED.moves, EXCLUDED.finished_at)
            < (e.elapsed_ms, e.moves, e.finished_at);
END $$;
