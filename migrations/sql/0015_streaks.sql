-- A player's streaks, the one rule for their record and their stats (migration 0015):
-- wins without a hint in a row, in the order the games finished; an abandoned or a
-- blocked game, or a win with a hint, ends one; a game still played neither extends nor
-- ends one. `current` is the run up to the latest finished game, `longest` the longest
-- run; p_variant NULL counts every game of the player.
CREATE FUNCTION player_streaks(p_player uuid, p_variant text,
                               OUT current integer, OUT longest integer)
LANGUAGE sql STABLE AS $$
    WITH ended AS (
        SELECT status = 'won' AND NOT assisted AS clean, finished_at, id
        FROM games
        WHERE player_id = p_player AND (p_variant IS NULL OR variant = p_variant)
          AND status IN ('won', 'abandoned', 'blocked')
    ), runs AS (
        SELECT clean,
               count(*) FILTER (WHERE NOT clean) OVER (ORDER BY finished_at, id) AS run
        FROM ended
    ), lengths AS (
        SELECT run, count(*) FILTER (WHERE clean) AS wins FROM runs GROUP BY run
    )
    SELECT coalesce((SELECT wins FROM lengths ORDER BY run DESC LIMIT 1), 0)::integer,
           coalesce((SELECT max(wins) FROM lengths), 0)::integer
$$;

-- The stats' streaks are kept as the player plays (migration 0013): a game that ends
-- goes after every game ended before it. A blocked game that an undo revives, or that is
-- abandoned, leaves its place in that order (it ends later, or not yet), which no step
-- can follow: its player's streaks in that game are counted again from the games, then.
CREATE OR REPLACE FUNCTION player_stats_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_win boolean := NEW.status = 'won';
    v_clean boolean := NEW.status = 'won' AND NOT NEW.assisted;
    v_break boolean := NEW.status IN ('abandoned', 'blocked')
                       OR (NEW.status = 'won' AND NEW.assisted);
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO player_stats AS s (player_id, variant, played, won, won_assisted, streak,
                                      best_streak, best_ms)
        VALUES (NEW.player_id, NEW.variant, 1, 0, 0, 0, 0, NULL)
        ON CONFLICT (player_id, variant) DO UPDATE SET played = s.played + 1;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.status = 'blocked' THEN
        UPDATE player_stats AS s SET (streak, best_streak) = (
            SELECT k.current, k.longest FROM player_streaks(NEW.player_id, NEW.variant) k)
        WHERE s.player_id = NEW.player_id AND s.variant = NEW.variant;
    ELSIF TG_OP = 'UPDATE' OR NEW.status <> 'playing' THEN
        UPDATE player_stats AS s SET
            won = s.won + v_win::integer,
            won_assisted = s.won_assisted + (v_win AND NEW.assisted)::integer,
            streak = CASE WHEN v_clean THEN s.streak + 1 WHEN v_break THEN 0 ELSE s.streak END,
            best_streak = greatest(s.best_streak, CASE WHEN v_clean THEN s.streak + 1 ELSE 0 END),
            best_ms = CASE WHEN v_win THEN least(s.best_ms, NEW.elapsed_ms) ELSE s.best_ms END
        WHERE s.player_id = NEW.player_id AND s.variant = NEW.variant;
        IF v_win AND NEW.elapsed_ms IS NOT NULL THEN
            INSERT INTO player_time_bins AS b (player_id, variant, bin, wins)
            VALUES (NEW.player_id, NEW.variant, NEW.elapsed_ms / 1000, 1)
            ON CONFLICT (player_id, variant, bin) DO UPDATE SET wins = b.wins + 1;
        END IF;
    END IF;
    RETURN NULL;
END $$;
