-- record_events, as of migration 0023, and lock_game: one call, one round trip, one
-- transaction.
--
-- New in 0023: a write of a game takes its locks in one order, the one race_end and
-- lock_game (below) take too: its race's row, then the game's row, then its idempotency
-- key. The game's row is moved on (and so locked) before the events are appended, and
-- only from the version the write follows; the key is kept after it (a key seen before is
-- read first, without a lock, and its first answer given). Before, a write kept its key
-- first and updated the game's row last, after reading the version without a lock.
-- A write judged under lock_game (service/games/write.py, after its writes met others')
-- then holds the game from its read of the log to its commit; a writer that comes
-- meanwhile waits, then finds the version moved on and appends nothing
-- (`current_version`), where it would have appended first, or held the key that the
-- locked one needed, and deadlocked with it. No lock more than before on a write's path.
--
-- As in 0020: a write whose first seq does not follow the game's version (its writer
-- judged a stale position: another instance, or another worker, wrote first) appends
-- nothing. Asked so (`p_stale_answered`), the call answers it with the game's version
-- (`current_version`), and a batch of writes (one statement, service/database/store.py)
-- commits its other writes instead of failing whole and sending each again alone; else it
-- fails with unique_violation. The primary key (game_id, seq) is still the concurrency
-- control for a game's first write.
--
-- As in 0019: no move of a write may say it was played (`played_ms` in its events' data,
-- ms since the game's creation) after the write came, by this database's clock. Such a
-- write appends nothing and is answered with the moment it came (`arrived_ms`).
--
-- As in 0018: a write may be taken as of a given time (`p_at`, NULL: now by this
-- database's clock), which only race_end gives. As in 0016: no write lands in a race's
-- game once the race is over, and such a write is answered with the race's end
-- (`race_ends_at`). The `games` projection says whether the game is assisted
-- (`p_assisted`; NULL leaves the flag as it was). A write to a race's game first locks the
-- race's row and appends the race's Progress, PlayerFinished and RaceEnded (race_progress,
-- 0006_races.sql) in this same transaction.
--
-- It appends a write's events, updates the `games` projection, records the idempotency key
-- (when one is given) and, for a winning write, the game's entries on the deal's boards.
-- Times come from this database's clock (one clock for every instance): the write's
-- events, the game's creation and its finish all take `clock_timestamp()` of this call (or
-- `p_at`), and `elapsed_ms` is computed here, never negative. `p_finish` says what the
-- write does to the game's finish time: 'now' (the game came to an end with this write),
-- 'keep' (it stays at the end it had) or 'none' (it is in play).
--
-- Returns whether the key was seen before (then the earlier answer, and nothing is
-- appended), the write's time with the game's creation and finish times, `race_ends_at`
-- for a write refused because its race was over, `arrived_ms` for one refused because
-- a move says it was played later, and `current_version` for one whose first seq does not
-- follow the game's version.
CREATE FUNCTION record_events(
    p_game uuid, p_first_seq integer, p_events jsonb,
    p_player uuid, p_variant text, p_deal bigint, p_autoplay boolean,
    p_status text, p_moves integer, p_undos integer, p_hints integer,
    p_foundation_cards integer, p_finish text, p_min_median_ms integer,
    p_key text, p_request_hash text, p_http_status integer, p_response jsonb,
    p_assisted boolean DEFAULT NULL, p_at timestamptz DEFAULT NULL,
    p_stale_answered boolean DEFAULT false
) RETURNS TABLE (replayed boolean, request_hash text, http_status integer, response jsonb,
                 at timestamptz, created_at timestamptz, finished_at timestamptz,
                 elapsed_ms bigint, race_ends_at timestamptz, arrived_ms bigint,
                 current_version integer)
LANGUAGE plpgsql AS $$
DECLARE
    n integer := jsonb_array_length(p_events);
    v_at timestamptz := coalesce(p_at, clock_timestamp());
    v_created timestamptz;
    v_finished timestamptz;
    v_elapsed bigint;
    v_assisted boolean;
    v_race uuid;
    v_version integer;
    r races%ROWTYPE;
BEGIN
    -- a key seen before: its first answer (read without a lock; kept below, under the
    -- game's row lock, which every writer of the game takes before its key)
    IF p_key IS NOT NULL AND p_first_seq > 1 THEN
        PERFORM 1 FROM idempotency_keys k WHERE k.player_id = p_player AND k.key = p_key;
        IF FOUND THEN
            RETURN QUERY SELECT true, k.request_hash, k.status, k.response, k.created_at,
                                NULL::timestamptz, NULL::timestamptz, NULL::bigint,
                                NULL::timestamptz, NULL::bigint, NULL::integer
                FROM idempotency_keys k WHERE k.player_id = p_player AND k.key = p_key;
            RETURN;
        END IF;
    END IF;
    IF p_first_seq > 1 THEN
        SELECT g.race_id, g.created_at INTO v_race, v_created FROM games g WHERE g.id = p_game;
        IF v_race IS NOT NULL THEN
            SELECT * INTO r FROM races WHERE id = v_race FOR UPDATE;
            IF r.status = 'over'
               OR (r.ends_at <= v_at AND NOT (r.status = 'running' AND r.ended_at IS NOT NULL)) THEN
                IF r.ended_at IS NULL THEN
                    PERFORM race_end(v_race);
                END IF;
                RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::jsonb, v_at,
                                    NULL::timestamptz, NULL::timestamptz, NULL::bigint,
                                    least(r.ends_at, r.ended_at), NULL::bigint, NULL::integer;
                RETURN;
            END IF;
        END IF;
        -- (numeric: a claim past bigint's range is refused, not an error)
        IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_events) AS e(value)
                   WHERE (e.value->'data'->>'played_ms')::numeric
                         > game_elapsed_ms(v_created, v_at)) THEN
            RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::jsonb, v_at, v_created,
                                NULL::timestamptz, NULL::bigint, NULL::timestamptz,
                                game_elapsed_ms(v_created, v_at), NULL::integer;
            RETURN;
        END IF;
        -- The game's row, locked after the race's (as race_end and lock_game take them)
        -- and moved on in the same step, only from the version this write follows. A
        -- writer that holds it (lock_game) is waited for, and its version then read.
        UPDATE games AS g SET status = p_status, version = p_first_seq + n - 1, moves = p_moves,
                         undos = p_undos, hints = p_hints, foundation_cards = p_foundation_cards,
                         assisted = coalesce(p_assisted, g.assisted), updated_at = v_at,
                         finished_at = CASE p_finish WHEN 'now' THEN v_at
                                                     WHEN 'keep' THEN g.finished_at END,
                         elapsed_ms = CASE p_finish
                             WHEN 'now' THEN game_elapsed_ms(g.created_at, v_at)
                             WHEN 'keep' THEN g.elapsed_ms END
        WHERE g.id = p_game AND g.version = p_first_seq - 1
        RETURNING g.created_at, g.finished_at, g.elapsed_ms, g.assisted
        INTO v_created, v_finished, v_elapsed, v_assisted;
        IF NOT FOUND THEN
            SELECT g.version INTO v_version FROM games g WHERE g.id = p_game;
            IF v_version IS NOT NULL THEN  -- (no game: the insert below fails, as before)
                IF NOT p_stale_answered THEN
                    RAISE unique_violation USING MESSAGE = format(
                        'game %s is at seq %s, not %s', p_game, v_version, p_first_seq - 1);
                END IF;
                RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::jsonb, v_at,
                                    NULL::timestamptz, NULL::timestamptz, NULL::bigint,
                                    NULL::timestamptz, NULL::bigint, v_version;
                RETURN;
            END IF;
        END IF;
    END IF;
    IF p_key IS NOT NULL THEN
        INSERT INTO idempotency_keys AS k (player_id, key, request_hash, status, response, created_at)
        VALUES (p_player, p_key, p_request_hash, p_http_status, p_response, v_at)
        ON CONFLICT (player_id, key) DO NOTHING;
        IF NOT FOUND THEN
            IF p_first_seq > 1 THEN  -- (kept since the read above: a refusal's, by the
                -- service; the game's row is moved on already, so all of it goes back)
                RAISE unique_violation USING MESSAGE = format(
                    'the key of this write of game %s was kept meanwhile', p_game);
            END IF;
            RETURN QUERY SELECT true, k.request_hash, k.status, k.response, k.created_at,
                                NULL::timestamptz, NULL::timestamptz, NULL::bigint,
                                NULL::timestamptz, NULL::bigint, NULL::integer
                FROM idempotency_keys k WHERE k.player_id = p_player AND k.key = p_key;
            RETURN;
        END IF;
    END IF;
    IF p_first_seq = 1 THEN
        v_created := v_at;
        v_finished := CASE WHEN p_finish = 'now' THEN v_at END;
        v_elapsed := CASE WHEN p_finish = 'now' THEN 0 END;
        v_assisted := coalesce(p_assisted, false);
        INSERT INTO games (id, player_id, variant, deal, autoplay, status, version, moves, undos,
                           hints, assisted, foundation_cards, created_at, updated_at,
                           finished_at, elapsed_ms)
        VALUES (p_game, p_player, p_variant, p_deal, p_autoplay, p_status, n, p_moves, p_undos,
                p_hints, v_assisted, p_foundation_cards, v_at, v_at, v_finished, v_elapsed);
    END IF;
    INSERT INTO game_events (game_id, seq, type, data, at)
        SELECT p_game, p_first_seq + e.ord::integer - 1, e.value->>'type', e.value->'data', v_at
        FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(value, ord);
    IF p_status = 'won' AND p_finish = 'now' THEN
        PERFORM record_win(p_game, p_player, p_variant, p_deal, v_elapsed, p_moves, p_undos,
                           v_assisted, p_min_median_ms, v_finished);
    END IF;
    IF v_race IS NOT NULL THEN
        PERFORM race_progress(v_race, p_player, p_status, p_moves, p_foundation_cards,
                              p_finish, v_elapsed, v_at);
    END IF;
    RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::jsonb, v_at, v_created,
                        v_finished, v_elapsed, NULL::timestamptz, NULL::bigint, NULL::integer;
END $$;

-- The locks a write of the game takes, in the order every write takes them: its race's
-- row (a race's game), then its own row. Taken first in a transaction, they hold the
-- game until its commit: the writer reads the log and judges under them, and its
-- record_events then cannot find the version moved on.
CREATE FUNCTION lock_game(p_game uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_race uuid;
BEGIN
    SELECT g.race_id INTO v_race FROM games g WHERE g.id = p_game;
    IF v_race IS NOT NULL THEN
        PERFORM 1 FROM races WHERE id = v_race FOR UPDATE;
    END IF;
    PERFORM 1 FROM games g WHERE g.id = p_game FOR NO KEY UPDATE;
END $$;
