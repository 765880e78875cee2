-- A board's entries counted by bin of time (board_bins, migration 0011), kept in step with
-- leaderboard_entries by this trigger, in the transaction of the win that changes them:
-- the rank of an entry is then the entries of the bins before its own plus those ahead
-- of it in its own bin (service/boards/board.py), not a count of the whole board ahead.
-- The bin of an entry is elapsed_ms / 10000 (BIN_MS there).
CREATE FUNCTION board_bins_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE board_bins SET entries = entries - 1
        WHERE variant = OLD.variant AND deal = OLD.deal AND board = OLD.board
          AND bin = OLD.elapsed_ms / 10000;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO board_bins AS b (variant, deal, board, bin, entries)
        VALUES (NEW.variant, NEW.deal, NEW.board, NEW.elapsed_ms / 10000, 1)
        ON CONFLICT (variant, deal, board, bin) DO UPDATE SET entries = b.entries + 1;
    END IF;
    RETURN NULL;
END $$;
