"""Trustworthy records: hints on the record, boards by kind of win, one clock.

- `games.hints`: the hints given in the game's log (a hinted game is assisted).
- `leaderboard_entries` gains `board` (one entry per player on each of the boards
  'default', 'no_undo', 'assisted', 'assisted_no_undo'), `assisted` and `verified` (the
  player's pace: the median time between their own moves at least MIN_MEDIAN_MOVE_MS).
- record_events takes its time from the database's clock and computes `elapsed_ms`
  itself, so every instance measures alike.

The functions' SQL lives in migrations/sql/, one file per version.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.database.migrate import run_sql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# the pace below which wins recorded before this revision are unverified (the default)
MIN_MEDIAN_MOVE_MS = 200

OLD_RECORD_ARGS = (
    "uuid, integer, jsonb, timestamptz, uuid, text, bigint, boolean, text, integer, integer,"
    " integer, timestamptz, bigint, text, text, integer, jsonb"
)
NEW_RECORD_ARGS = (
    "uuid, integer, jsonb, uuid, text, bigint, boolean, text, integer, integer, integer,"
    " integer, text, integer, text, text, integer, jsonb"
)


def upgrade() -> None:
    op.add_column(
        "games", sa.Column("hints", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column(
        "leaderboard_entries",
        sa.Column("board", sa.Text(), nullable=False, server_default="default"),
    )
    op.add_column(
        "leaderboard_entries",
        sa.Column("assisted", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column(
        "leaderboard_entries",
        sa.Column("verified", sa.Boolean(), nullable=False, server_default=sa.true()),
    )
    op.alter_column("leaderboard_entries", "board", server_default=None)
    op.alter_column("leaderboard_entries", "assisted", server_default=None)
    op.alter_column("leaderboard_entries", "verified", server_default=None)
    op.drop_constraint("leaderboard_entries_pkey", "leaderboard_entries", type_="primary")
    op.create_primary_key(
        "leaderboard_entries_pkey", "leaderboard_entries",
        ["variant", "deal", "board", "player_id"],
    )
    op.drop_index("leaderboard_entries_board", table_name="leaderboard_entries")
    op.create_index(
        "leaderboard_entries_board",
        "leaderboard_entries",
        ["variant", "deal", "board", "elapsed_ms", "moves", "finished_at", "player_id"],
    )
    op.drop_index("leaderboard_entries_player", table_name="leaderboard_entries")
    op.create_index(
        "leaderboard_entries_player", "leaderboard_entries",
        ["player_id", "board", "variant", "deal"],
    )
    op.create_check_constraint(
        "leaderboard_entries_board_check", "leaderboard_entries",
        "board IN ('default', 'no_undo', 'assisted', 'assisted_no_undo')",
    )
    op.execute(f"DROP FUNCTION record_events({OLD_RECORD_ARGS})")
    run_sql("0004_boards.sql")
    run_sql("0004_record_events.sql")
    # wins recorded before: no hint was possible then; their pace decides 'verified', and
    # each goes on the other boards it belongs on
    op.execute(
        f"""UPDATE leaderboard_entries
            SET verified = coalesce(game_median_move_ms(game_id), 0) >= {MIN_MEDIAN_MOVE_MS}"""
    )
    op.execute(
        """INSERT INTO leaderboard_entries
               (variant, deal, board, player_id, game_id, elapsed_ms, moves, undos, assisted,
                verified, finished_at)
           SELECT e.variant, e.deal, b.board, e.player_id, e.game_id, e.elapsed_ms, e.moves,
                  e.undos, e.assisted, e.verified, e.finished_at
           FROM leaderboard_entries e,
                unnest(win_boards(e.undos, e.assisted, e.verified)) AS b(board)
           WHERE b.board <> 'default'"""
    )
    op.execute("DELETE FROM leaderboard_entries WHERE board = 'default' AND NOT verified")


def downgrade() -> None:
    op.execute(f"DROP FUNCTION record_events({NEW_RECORD_ARGS})")
    for function in (
        "record_win(uuid, uuid, text, bigint, bigint, integer, integer, boolean, integer,"
        " timestamptz)",
        "win_boards(integer, boolean, boolean)",
        "game_median_move_ms(uuid)",
        "game_elapsed_ms(timestamptz, timestamptz)",
    ):
        op.execute(f"DROP FUNCTION {function}")
    run_sql("0003_record_events.sql")
    op.drop_constraint("leaderboard_entries_board_check", "leaderboard_entries", type_="check")
    op.execute("DELETE FROM leaderboard_entries WHERE board <> 'default'")
    op.drop_constraint("leaderboard_entries_pkey", "leaderboard_entries", type_="primary")
    op.create_primary_key(
        "leaderboard_entries_pkey", "leaderboard_entries", ["variant", "deal", "player_id"]
    )
    op.drop_index("leaderboard_entries_board", table_name="leaderboard_entries")
    op.create_index(
        "leaderboard_entries_board",
        "leaderboard_entries",
        ["variant", "deal", "elapsed_ms", "moves", "finished_at", "player_id"],
    )
    op.drop_index("leaderboard_entries_player", table_name="leaderboard_entries")
    op.create_index(
        "leaderboard_entries_player", "leaderboard_entries", ["player_id", "variant", "deal"]
    )
    op.drop_column("leaderboard_entries", "verified")
    op.drop_column("leaderboard_entries", "assisted")
    op.drop_column("leaderboard_entries", "board")
    op.drop_column("games", "hints")
