-- race_end, as of migration 0018: the end at ends_at, as of ends_at.
--
-- New in 0018: the games still in play are abandoned as of the race's ends_at (their
-- GameAbandoned, finished_at and elapsed_ms, the race's Progress, PlayerFinished and
-- RaceEnded, and its ended_at), however late after it the clock task or a late write
-- comes to take the end: a race's games start as of its starts_at (race_start, 0006), and
-- now end as of its ends_at, so an abandoned racer's elapsed_ms is the race's length.
-- No event of the race or of its games is later than ends_at: a write at or after it is
-- refused (record_events), and one taken before it is timed before it.
--
-- As in 0007: race_end takes the end with one UPDATE of the race's row that only a running
-- race whose ends_at has passed and whose end nobody has taken yet (ended_at IS NULL)
-- passes; record_events tells race_end's own abandonments from a late write by that mark.
-- Returns false when the race was not running, its time had not come, or its end was
-- taken already.
CREATE OR REPLACE FUNCTION race_end(p_race uuid)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_ends timestamptz;
    g games%ROWTYPE;
BEGIN
    UPDATE races SET ended_at = ends_at
    WHERE id = p_race AND status = 'running' AND ends_at <= clock_timestamp()
      AND ended_at IS NULL
    RETURNING ends_at INTO v_ends;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    FOR g IN SELECT * FROM games WHERE race_id = p_race AND status = 'playing' ORDER BY id LOOP
        PERFORM * FROM record_events(
            g.id, g.version + 1, '[{"type": "GameAbandoned", "data": {}}]'::jsonb,
            g.player_id, g.variant, g.deal, g.autoplay, 'abandoned', g.moves, g.undos,
            g.hints, g.foundation_cards, 'now', 0, NULL, NULL, NULL, NULL, NULL, v_ends);
    END LOOP;
    PERFORM race_end_if_done(p_race, v_ends);
    RETURN true;
END $$;
