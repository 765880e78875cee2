"""The order of a deal's board, in one place: which of two wins ranks higher.

Fastest first, then fewer moves, then the earlier finish (BETTER: which of a player's
wins is the better one); then the player id (TIE_BREAK), which makes the board's order
total. Everything in Python that ranks wins is built from these columns: the boards'
SQL (ORDER BY and the keyset comparisons of service/boards/board.py), the board's
cursors (service/boards/cursors.py), a player's best time (service/boards/records.py)
and verify's check of a player's best win (service/verify/games.py).

The database keeps the order where Python cannot reach it: record_win (its current body
in migrations/sql/0033_boards.sql) replaces a player's entry only with a strictly better
win by BETTER, and the index `leaderboard_entries_board` (as migration 0014 made it, with
its INCLUDE columns; service/database/tables.py lists it too) holds the entries in ORDER.
To change the order, change the columns here and add a migration that redefines
record_win's comparison and the index to match; tests/service/boards/test_leaderboards.py
holds both to this module (it fails until they agree).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class Column:
    """A column of `leaderboard_entries` the board sorts by, with its SQL type (which
    the cursors encode by)."""

    name: str
    type: str  # bigint, integer, timestamptz or uuid
    descending: bool = False  # the larger value ranks higher


BETTER: Final = (
    Column("elapsed_ms", "bigint"),
    Column("moves", "integer"),
    Column("finished_at", "timestamptz"),
)
TIE_BREAK: Final = Column("player_id", "uuid")
ORDER: Final = (*BETTER, TIE_BREAK)


@functools.total_ordering
@dataclass(frozen=True, slots=True)
class _Descending:
    """A value of a descending column: it sorts the other way round."""

    value: Any

    def __lt__(self, other: _Descending) -> bool:
        return bool(other.value < self.value)


def values(entry: Any, columns: tuple[Column, ...] = ORDER) -> tuple[Any, ...]:
    """The entry's values of `columns`, as stored (a keyset cursor's key). `entry` is a
    row (by column name) or an object with the columns as attributes."""
    if hasattr(entry, "__getitem__"):
        return tuple(entry[c.name] for c in columns)
    return tuple(getattr(entry, c.name) for c in columns)


def sort_key(entry: Any, columns: tuple[Column, ...] = ORDER) -> tuple[Any, ...]:
    """The entry's key in the order of `columns`: the smaller key ranks higher."""
    pairs = zip(columns, values(entry, columns), strict=True)
    return tuple(_Descending(v) if c.descending else v for c, v in pairs)


def better_key(entry: Any) -> tuple[Any, ...]:
    """The key that tells which of a player's wins is the better: the smaller."""
    return sort_key(entry, BETTER)


def order_by(alias: str, reverse: bool = False, columns: tuple[Column, ...] = ORDER) -> str:
    """The ORDER BY list of the order (or of its reverse) on the table aliased `alias`."""
    return ", ".join(
        f"{alias}.{c.name}{' DESC' if c.descending != reverse else ''}" for c in columns
    )


def beyond(
    alias: str, first: int | str, later: bool, columns: tuple[Column, ...] = ORDER
) -> str:
    """The condition that an entry comes after (`later`) or before the key given in the
    parameters $first, $first+1, ... (or, when `first` is an alias, in that row's
    columns): one row comparison, which PostgreSQL answers from the index
    `leaderboard_entries_board`, so every column sorts the same way."""
    directions = {c.descending for c in columns}
    if len(directions) != 1:
        raise ValueError("a keyset compares the key as one row: its columns sort one way")
    op = ">" if later != directions.pop() else "<"
    names = ", ".join(f"{alias}.{c.name}" for c in columns)
    if isinstance(first, str):
        key = ", ".join(f"{first}.{c.name}" for c in columns)
    else:
        key = ", ".join(f"${first + i}" for i in range(len(columns)))
    return f"({names}) {op} ({key})"
