-- A race's stream says of each win what its GET says (migration 0034): whether it was
-- played at a hand's pace (`verified`, the verdict record_win keeps on the game's row in
-- the same transaction, before this is called), in PlayerFinished and in RaceEnded's
-- ranking; null for a game not won. As before otherwise (0006_races.sql).

-- The race ends, once, when none of its games is in play any more: RaceEnded carries the
-- final ranking. Returns whether it ended now.
CREATE OR REPLACE FUNCTION race_end_if_done(p_race uuid, p_at timestamptz)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM games WHERE race_id = p_race AND status = 'playing') THEN
        RETURN false;
    END IF;
    UPDATE races SET status = 'over', ended_at = p_at WHERE id = p_race AND status = 'running';
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM race_append(p_race, 'RaceEnded', jsonb_build_object('ranking', (
        SELECT coalesce(jsonb_agg(jsonb_build_object(
                   'player', g.player_id, 'rank', k.rank, 'status', g.status,
                   'elapsed_ms', g.elapsed_ms, 'moves', g.moves,
                   'foundation_cards', g.foundation_cards, 'verified', g.verified)
                   ORDER BY k.rank, g.player_id),
               '[]'::jsonb)
        FROM games g JOIN race_ranking(p_race) k ON k.player_id = g.player_id
        WHERE g.race_id = p_race)), p_at);
    RETURN true;
END $$;

-- A write to a race's game (called by record_events, the race's row already locked):
-- Progress, and PlayerFinished when the write ended the game, then RaceEnded when it was
-- the last game in play. A race that is not running takes nothing.
CREATE OR REPLACE FUNCTION race_progress(
    p_race uuid, p_player uuid, p_status text, p_moves integer, p_foundation_cards integer,
    p_finish text, p_elapsed bigint, p_at timestamptz
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM races WHERE id = p_race AND status = 'running') THEN
        RETURN;
    END IF;
    PERFORM race_append(p_race, 'Progress', jsonb_build_object(
        'player', p_player, 'moves', p_moves, 'foundation_cards', p_foundation_cards,
        'status', p_status), p_at);
    IF p_finish = 'now' THEN
        PERFORM race_append(p_race, 'PlayerFinished', jsonb_build_object(
            'player', p_player, 'status', p_status, 'elapsed_ms', p_elapsed,
            'verified', (SELECT g.verified FROM games g
                         WHERE g.race_id = p_race AND g.player_id = p_player)), p_at);
        PERFORM race_end_if_done(p_race, p_at);
    END IF;
END $$;
