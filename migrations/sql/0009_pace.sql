-- The pace rule reads when the player's actions were played (migration 0009).

-- The player's pace: the median time, in milliseconds, between two of the player's own
-- actions (a move, an undo, a redo), counting from the game's creation. Automatic moves
-- and hints are not the player's hand. An action was played when its data's `played_ms`
-- says (milliseconds since the game's creation: a batch's move may say, by the client's
-- clock, as service/games/played.py checks), else when it arrived (its `at`). NULL when
-- the player made no move.
CREATE OR REPLACE FUNCTION game_median_move_ms(p_game uuid)
RETURNS double precision LANGUAGE sql STABLE AS $$
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY gap)
    FROM (
        SELECT extract(epoch FROM played - lag(played) OVER (ORDER BY seq)) * 1000 AS gap
        FROM (
            SELECT e.seq,
                   coalesce(c.at + (e.data->>'played_ms')::bigint * interval '1 millisecond',
                            e.at) AS played
            FROM game_events e
            JOIN game_events c ON c.game_id = e.game_id AND c.seq = 1
            WHERE e.game_id = p_game
              AND (e.seq = 1
                   OR e.type IN ('MoveUndone', 'MoveRedone')
                   OR (e.type = 'CardMoved'
                       AND NOT coalesce((e.data->>'auto')::boolean, false)))
        ) AS actions
    ) AS gaps
    WHERE gap IS NOT NULL
$$;
