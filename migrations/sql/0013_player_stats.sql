-- A player's figures per game (player_stats) and their winning times by the second
-- (player_time_bins), kept in step with `games` by this trigger, in the transaction of
-- the write that creates a game or changes its status (migration 0013): a new game is
-- played; a win counts, with its time, and continues the streak of wins without a hint
-- (an assisted win ends it, as an abandoned or blocked game does).
CREATE FUNCTION player_stats_follow() RETURNS trigger LANGUAGE plpgsql AS $$
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
    IF TG_OP = 'UPDATE' OR NEW.status <> 'playing' THEN
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
