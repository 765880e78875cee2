"""A page of a board reads one index: each entry carries its player's name, and the
boards' index holds every column a page shows.

`leaderboard_entries.player_name` is filled from `players` by a trigger when the entry is
inserted (migrations/sql/0014_entry_names.sql); the entries written before are filled
here. A player's name never changes, so the copy stays right. The index
`leaderboard_entries_board` (the boards' order) now INCLUDEs the entry's other columns, so
that a page, a deep page and the neighbours of `around=me` are index-only scans: no join,
and no visit to the table's pages for the rows shown.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.database.migrate import run_sql

# the columns of an entry beside the boards' order (service/boards/board.py: ENTRY)
INCLUDED = ("game_id", "undos", "assisted", "verified", "player_name")
ORDER = ("variant", "deal", "board", "elapsed_ms", "moves", "finished_at", "player_id")

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("leaderboard_entries", sa.Column("player_name", sa.Text(), nullable=True))
    run_sql("0014_entry_names.sql")
    op.execute(
        """CREATE TRIGGER leaderboard_entries_name
           BEFORE INSERT ON leaderboard_entries
           FOR EACH ROW EXECUTE FUNCTION entry_player_name()"""
    )
    op.execute(
        """UPDATE leaderboard_entries e SET player_name = p.name
           FROM players p WHERE p.id = e.player_id"""
    )
    op.alter_column("leaderboard_entries", "player_name", nullable=False)
    _board_index(include=INCLUDED)


def downgrade() -> None:
    _board_index(include=())
    op.execute("DROP TRIGGER leaderboard_entries_name ON leaderboard_entries")
    op.execute("DROP FUNCTION entry_player_name()")
    op.drop_column("leaderboard_entries", "player_name")


def _board_index(include: tuple[str, ...]) -> None:
    op.drop_index("leaderboard_entries_board", table_name="leaderboard_entries")
    op.create_index(
        "leaderboard_entries_board", "leaderboard_entries", list(ORDER),
        postgresql_include=list(include),
    )
