-- Races, as of migration 0007: the end at ends_at taken by setting the race's ended_at.
--
-- New in 0007: race_end takes the end with one UPDATE of the race's row that only a
-- running race whose ends_at has passed and whose end nobody has taken yet (ended_at IS
-- NULL) passes, then abandons the games still in play. record_events (0007) tells a write
-- after ends_at from race_end's own abandonments by that mark: while race_end runs, the
-- race is still 'running' but its ended_at is set (in that transaction only, the race's
-- row locked). race_end_if_done then sets the race 'over' and ended_at to RaceEnded's time.

-- The end at ends_at, once: every game of the race still in play is abandoned, each by a
-- GameAbandoned event written as any write is (record_events, which appends the race's
-- Progress and PlayerFinished, and RaceEnded after the last one). Returns false when the
-- race was not running, its time had not come, or its end was taken already.
CREATE OR REPLACE FUNCTION race_end(p_race uuid)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_at timestamptz := clock_timestamp();
    g games%ROWTYPE;
BEGIN
    UPDATE races SET ended_at = v_at
    WHERE id = p_race AND status = 'running' AND ends_at <= v_at AND ended_at IS NULL;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    FOR g IN SELECT * FROM games WHERE race_id = p_race AND status = 'playing' ORDER BY id LOOP
        PERFORM * FROM record_events(
            g.id, g.version + 1, '[{"type": "GameAbandoned", "data": {}}]'::jsonb,
            g.player_id, g.variant, g.deal, g.autoplay, 'abandoned', g.moves, g.undos,
            g.hints, g.foundation_cards, 'now', 0, NULL, NULL, NULL, NULL);
    END LOOP;
    PERFORM race_end_if_done(p_race, v_at);
    RETURN true;
END $$;
