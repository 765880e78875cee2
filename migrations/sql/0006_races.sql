-- Races (migration 0006): a race's stream, its steps and its ranking, each in one place.
--
-- A race's row is the lock of everything the race does: each function below that changes
-- a race, and record_events for a write to one of its games, first takes that row, so
-- the race's events get their seqs in commit order and every step (start, end) is taken
-- once whatever the number of instances asking for it.

-- The next event of a race's stream: seq = the race's version + 1 (the UPDATE takes the
-- row's lock, and (race_id, seq) is the primary key besides).
CREATE FUNCTION race_append(p_race uuid, p_type text, p_data jsonb, p_at timestamptz)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_seq integer;
BEGIN
    UPDATE races SET version = version + 1 WHERE id = p_race RETURNING version INTO v_seq;
    INSERT INTO race_events (race_id, seq, type, data, at)
    VALUES (p_race, v_seq, p_type, p_data, p_at);
    RETURN v_seq;
END $$;

-- The ranking of a race's players (API.md): winners by elapsed_ms, then fewer moves;
-- then the others by foundation cards (more first), then fewer moves. Equal players
-- share a rank. Only players with a game (the race has started) are ranked.
CREATE FUNCTION race_ranking(p_race uuid)
RETURNS TABLE (player_id uuid, rank integer) LANGUAGE sql STABLE AS $$
    SELECT g.player_id,
           (rank() OVER (ORDER BY g.status = 'won' DESC,
                                  CASE WHEN g.status = 'won' THEN g.elapsed_ms END,
                                  g.foundation_cards DESC, g.moves))::integer
    FROM games g WHERE g.race_id = p_race
$$;

-- The race ends, once, when none of its games is in play any more: RaceEnded carries the
-- final ranking. Returns whether it ended now.
CREATE FUNCTION race_end_if_done(p_race uuid, p_at timestamptz)
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
                   'foundation_cards', g.foundation_cards) ORDER BY k.rank, g.player_id),
               '[]'::jsonb)
        FROM games g JOIN race_ranking(p_race) k ON k.player_id = g.player_id
        WHERE g.race_id = p_race)), p_at);
    RETURN true;
END $$;

-- A write to a race's game (called by record_events, the race's row already locked):
-- Progress, and PlayerFinished when the write ended the game, then RaceEnded when it was
-- the last game in play. A race that is not running takes nothing.
CREATE FUNCTION race_progress(
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
            'player', p_player, 'status', p_status, 'elapsed_ms', p_elapsed), p_at);
        PERFORM race_end_if_done(p_race, p_at);
    END IF;
END $$;

-- A new race, its creator joined. Its deal (NULL: drawn at the start) is shown by no
-- event before the start. Times from this database's clock.
CREATE FUNCTION race_create(
    p_race uuid, p_creator uuid, p_variant text, p_deal bigint, p_autoplay boolean,
    p_max_players integer, p_starts_in_s double precision, p_length_s double precision
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_at timestamptz := clock_timestamp();
    v_starts timestamptz := v_at + make_interval(secs => p_starts_in_s);
    v_ends timestamptz := v_starts + make_interval(secs => p_length_s);
BEGIN
    INSERT INTO races (id, creator_id, variant, deal, autoplay, status, max_players, version,
                       created_at, starts_at, ends_at)
    VALUES (p_race, p_creator, p_variant, p_deal, p_autoplay, 'open', p_max_players, 0,
            v_at, v_starts, v_ends);
    PERFORM race_append(p_race, 'RaceCreated', jsonb_build_object(
        'variant', p_variant, 'autoplay', p_autoplay, 'max_players', p_max_players,
        'starts_at', v_starts, 'ends_at', v_ends, 'creator', p_creator), v_at);
    PERFORM race_join(p_race, p_creator);
END $$;

-- A player joins: 'joined', 'already' (nothing changes), 'started' (the race is no longer
-- open, or its start time has come), 'full', or 'unknown'.
CREATE FUNCTION race_join(p_race uuid, p_player uuid)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_at timestamptz := clock_timestamp();
    r races%ROWTYPE;
BEGIN
    SELECT * INTO r FROM races WHERE id = p_race FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'unknown';
    END IF;
    IF EXISTS (SELECT 1 FROM race_players WHERE race_id = p_race AND player_id = p_player) THEN
        RETURN 'already';
    END IF;
    IF r.status <> 'open' OR r.starts_at <= v_at THEN
        RETURN 'started';
    END IF;
    IF (SELECT count(*) FROM race_players WHERE race_id = p_race) >= r.max_players THEN
        RETURN 'full';
    END IF;
    INSERT INTO race_players (race_id, player_id, joined_at) VALUES (p_race, p_player, v_at);
    PERFORM race_append(p_race, 'PlayerJoined', jsonb_build_object(
        'player', p_player, 'name', (SELECT name FROM players WHERE id = p_player)), v_at);
    RETURN 'joined';
END $$;

-- The start, once: the one statement that turns an open race whose time has come into a
-- running one, then every player's game of the deal (the opening events the engine made,
-- p_events, with each player's id and the race's), written as of starts_at (their clock
-- starts then: created_at, updated_at and the events' time), and RaceStarted. p_deal is the race's deal, or the one drawn for it when it has none.
-- Returns false when the race was not open or its time had not come (nothing done).
CREATE FUNCTION race_start(
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
                           undos, hints, foundation_cards, created_at, updated_at, race_id)
        VALUES (v_game, v_player, r.variant, p_deal, r.autoplay, p_status, n, p_moves,
                p_undos, p_hints, p_foundation_cards, r.starts_at, r.starts_at, p_race);
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
    RETURN true;
END $$;

-- The end at ends_at, once: every game of the race still in play is abandoned, each by a
-- GameAbandoned event written as any write is (record_events, which appends the race's
-- Progress and PlayerFinished, and RaceEnded after the last one). Returns false when the
-- race was not running or its time had not come.
CREATE FUNCTION race_end(p_race uuid)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_at timestamptz := clock_timestamp();
    g games%ROWTYPE;
BEGIN
    PERFORM 1 FROM races WHERE id = p_race AND status = 'running' AND ends_at <= v_at
        FOR UPDATE;
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
