-- A board entry carries its player's name (migration 0014), copied from players when the
-- entry is first written, so that a page of a board reads leaderboard_entries alone. A
-- player's name is chosen once and never changes, so the copy stays right; an entry that
-- a better win improves keeps its row and its name.
CREATE FUNCTION entry_player_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.player_name := (SELECT name FROM players WHERE id = NEW.player_id);
    RETURN NEW;
END $$;
