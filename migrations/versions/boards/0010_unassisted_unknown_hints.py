"""A hint that found nothing (`unknown`, no move) does not make the game assisted.

- `games.assisted`: a hint of the game gave something away, a move or a verdict (the
  engine's GameRecord.assisted, engine.events.hint_assists); a hint that found nothing
  still counts in `hints`.
- record_events (migrations/sql/0010_record_events.sql) takes the engine's flag
  (`p_assisted`, last, NULL by default: race_end's calls leave the flag as it was), keeps
  it in the projection and puts a win on the boards by it instead of by `p_hints > 0`.
- Games recorded before: `assisted` from their logs; a won game whose hints all found
  nothing gets its entries on the boards without hints too (its pace judged against the
  default MIN_MEDIAN_MOVE_MS, as migration 0004 did), and its entries say `assisted` false.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.database.migrate import run_sql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

# the pace below which the wins put on the boards here are unverified (the default)
MIN_MEDIAN_MOVE_MS = 200

# record_events' arguments before this revision, and now
OLD_RECORD_ARGS = (
    "uuid, integer, jsonb, uuid, text, bigint, boolean, text, integer, integer, integer,"
    " integer, text, integer, text, text, integer, jsonb"
)
NEW_RECORD_ARGS = f"{OLD_RECORD_ARGS}, boolean"
# the record_events the downgrade brings back
PREVIOUS_RECORD_EVENTS = "0007_record_events.sql"

# a won game's entries, by record_win (the boards' rule, migrations/sql/0004_boards.sql)
RECORD_WIN = (
    "SELECT count(record_win(g.id, g.player_id, g.variant, g.deal, g.elapsed_ms, g.moves,"
    f" g.undos, g.assisted, {MIN_MEDIAN_MOVE_MS}, g.finished_at)) FROM games g"
    " WHERE g.status = 'won' AND g.elapsed_ms IS NOT NULL AND g.finished_at IS NOT NULL"
)


def upgrade() -> None:
    op.add_column(
        "games", sa.Column("assisted", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.execute(
        """UPDATE games g SET assisted = true
           WHERE g.hints > 0 AND EXISTS (
               SELECT 1 FROM game_events e
               WHERE e.game_id = g.id AND e.type = 'HintGiven'
                 AND (jsonb_typeof(e.data->'move') = 'object'
                      OR e.data->>'verdict' IS DISTINCT FROM 'unknown'))"""
    )
    op.execute(f"DROP FUNCTION record_events({OLD_RECORD_ARGS})")
    run_sql("0010_record_events.sql")
    # wins whose hints all found nothing: unassisted now, on the boards without hints too
    op.execute(
        """UPDATE leaderboard_entries e SET assisted = false FROM games g
           WHERE e.game_id = g.id AND e.assisted AND NOT g.assisted"""
    )
    op.execute(f"{RECORD_WIN} AND g.hints > 0 AND NOT g.assisted")


def downgrade() -> None:
    op.execute(f"DROP FUNCTION record_events({NEW_RECORD_ARGS})")
    run_sql(PREVIOUS_RECORD_EVENTS)
    # every hinted win is assisted again: off the boards without hints, where a player's
    # best win without a hint (if any) takes its place
    op.execute(
        """DELETE FROM leaderboard_entries e USING games g
           WHERE e.game_id = g.id AND g.hints > 0 AND e.board IN ('default', 'no_undo')"""
    )
    op.execute(
        """UPDATE leaderboard_entries e SET assisted = true FROM games g
           WHERE e.game_id = g.id AND g.hints > 0 AND NOT e.assisted"""
    )
    op.execute(
        f"""{RECORD_WIN} AND g.hints = 0 AND EXISTS (
               SELECT 1 FROM games h
               WHERE h.player_id = g.player_id AND h.variant = g.variant AND h.deal = g.deal
                 AND h.status = 'won' AND h.hints > 0 AND NOT h.assisted)"""
    )
    op.drop_column("games", "assisted")
