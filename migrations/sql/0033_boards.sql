-- A won game becomes (or improves) its player's entry on each board it belongs on, and
-- keeps on its row whether it was played at a hand's pace (migration 0033: a race shows
-- it beside each winner's rank). An entry is replaced only by a strictly better win: a
-- shorter time, then fewer moves, then an earlier finish (the boards' order, also in
-- service/boards/board.py's queries).
CREATE OR REPLACE FUNCTION record_win(
    p_game uuid, p_player uuid, p_variant text, p_deal bigint, p_elapsed bigint,
    p_moves integer, p_undos integer, p_assisted boolean, p_min_median_ms integer,
    p_finished timestamptz
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_verified boolean := p_min_median_ms <= 0
        OR coalesce(game_median_move_ms(p_game), 0) >= p_min_median_ms;
BEGIN
    UPDATE games SET verified = v_verified WHERE id = p_game;
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
