-- race_start, as of migration 0029: a deal whose games are over as dealt.
--
-- New in 0029: when the deal leaves no legal move once its automatic moves are played
-- (Beleaguered Castle deal 21173, say), every player's game is over at starts_at: its row
-- says so (finished_at = starts_at, elapsed_ms = 0, as record_events writes a game over
-- at its creation), each player gets PlayerFinished after RaceStarted, and the race ends
-- at once (RaceEnded), as API.md says of a race whose every game is over. Before, the
-- rows kept finished_at and elapsed_ms NULL and the race ran to its ends_at.
CREATE OR REPLACE FUNCTION race_start(
    p_race uuid, p_deal bigint, p_events jsonb, p_status text, p_moves integer,
    p_undos integer, p_hints integer, p_foundation_cards integer
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_at timestamptz := clock_timestamp();
    n integer := jsonb_array_length(p_events);
    r races%ROWTYPE;
    v_player uuid;
    v_game uuid;
    v_players jsonb := '[]'::jsonb;
    v_over boolean := p_status <> 'playing';
BEGIN
    UPDATE races SET status = 'running', deal = p_deal, started_at = v_at
    WHERE id = p_race AND status = 'open' AND starts_at <= v_at
      AND (deal IS NULL OR deal = p_deal)
    RETURNING * INTO r;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    FOR v_player IN
        SELECT player_id FROM race_players WHERE race_id = p_race ORDER BY joined_at, player_id
    LOOP
        v_game := gen_random_uuid();
        INSERT INTO games (id, player_id, variant, deal, autoplay, status, version, moves,
                           undos, hints, foundation_cards, created_at, updated_at, race_id,
                           finished_at, elapsed_ms)
        VALUES (v_game, v_player, r.variant, p_deal, r.autoplay, p_status, n, p_moves,
                p_undos, p_hints, p_foundation_cards, r.starts_at, r.starts_at, p_race,
                CASE WHEN v_over THEN r.starts_at END, CASE WHEN v_over THEN 0 END);
        INSERT INTO game_events (game_id, seq, type, data, at)
            SELECT v_game, e.ord::integer, e.value->>'type',
                   CASE WHEN e.ord = 1
                        THEN e.value->'data' || jsonb_build_object('player_id', v_player,
                                                                   'race_id', p_race)
                        ELSE e.value->'data' END,
                   r.starts_at
            FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(value, ord);
        v_players := v_players || jsonb_build_array(
            jsonb_build_object('player', v_player, 'game_id', v_game));
    END LOOP;
    PERFORM race_append(p_race, 'RaceStarted', jsonb_build_object(
        'deal', p_deal, 'starts_at', r.starts_at, 'players', v_players), v_at);
    IF v_over THEN
        FOR v_player IN
            SELECT player_id FROM race_players WHERE race_id = p_race
            ORDER BY joined_at, player_id
        LOOP
            PERFORM race_append(p_race, 'PlayerFinished', jsonb_build_object(
                'player', v_player, 'status', p_status, 'elapsed_ms', 0), v_at);
        END LOOP;
        PERFORM race_end_if_done(p_race, v_at);
    END IF;
    RETURN true;
END $$;
