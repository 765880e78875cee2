"""A deal's board: its pages, fastest first, and the caller's place on it.

The board of a deal is the table `leaderboard_entries`, one row per player, written by
record_events in the transaction of the winning move (so only wins the server saw count,
timed by the server's clock), in the order of service/boards/order.py. Pages go by keyset
(the cursor is the last entry's sort key and rank, service/boards/cursors.py) so they
neither repeat nor skip entries while new wins arrive, and a deep page costs what the
first does. Ranks on a page read by cursor continue from the previous page's (wins that
arrived ahead of the cursor meanwhile are not counted); around=me counts the caller's
rank afresh: 1 + the entries before it, from the board's bins of time (board_bins) and
the index `leaderboard_entries_board` within the caller's bin.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import asyncpg

from service.base.backend import Backend
from service.base.errors import NotFound
from service.boards import order
from service.boards.cursors import board_cursor, board_key, parse_board_cursor
from service.deals.numbers import checked_deal
from service.players.accounts import Player

AROUND = 5  # entries shown above and below the caller's own with around=me

ENTRY = (
    "e.player_id, e.player_name AS name, e.game_id, e.elapsed_ms, e.moves, e.undos, e.finished_at,"
    " e.assisted, e.verified"
)
ORDER_BY = order.order_by("e")
_KEY_END = 3 + len(order.ORDER)  # the last of a key's parameters, from $4 on


BOARD_FIRST = f"""
SELECT {ENTRY}
FROM leaderboard_entries e
WHERE e.variant = $1 AND e.deal = $2 AND e.board = $4
ORDER BY {ORDER_BY}
LIMIT $3
"""

BOARD_AFTER = f"""
SELECT {ENTRY}
FROM leaderboard_entries e
WHERE e.variant = $1 AND e.deal = $2 AND e.board = ${_KEY_END + 1}
  AND {order.beyond("e", 4, later=True)}
ORDER BY {ORDER_BY}
LIMIT $3
"""

# The caller's entry, AROUND entries above it and AROUND + 1 below, and the count of the
# entries ahead of it, in one statement (one round trip, one snapshot). The count is the
# entries of the bins of time before the caller's (board_bins, kept by a trigger in each
# win's transaction, migration 0011) plus those ahead of it in its own bin, counted by an
# index-only scan of the board's index from the bin's start to its key: O(entries in a
# bin), not O(rank). `part` says which rows are which: 0 mine, 1 above, 2 below. (The
# limits are constants so that PostgreSQL's generic plan, made once, is estimated as well
# as one planned for each call, and chosen: planning this statement costs more than
# running it.)
BIN_MS: Final = 10_000  # the width of a bin, in elapsed_ms (as 0011_board_bins.sql's)
assert order.ORDER[0].name == "elapsed_ms" and not order.ORDER[0].descending, (
    "board_bins bins the first column of the boards' order: change both together"
)
_ON_BOARD = "e.variant = $1 AND e.deal = $2 AND e.board = $4"


def ahead_of(alias: str) -> str:
    """The count of the entries ahead of the entry `alias` on its board (the deal in $1,
    $2, the board in $4): the board's bins of time before its own, and the entries ahead
    of it within its bin, by an index-only scan from the bin's start to its key."""
    return f"""(SELECT coalesce(sum(b.entries), 0) FROM board_bins b
        WHERE b.variant = $1 AND b.deal = $2 AND b.board = $4
          AND b.bin < {alias}.elapsed_ms / {BIN_MS})
     + (SELECT count(*) FROM (
            SELECT 1 FROM leaderboard_entries e
            WHERE {_ON_BOARD} AND e.elapsed_ms >= {alias}.elapsed_ms / {BIN_MS} * {BIN_MS}
              AND {order.beyond("e", alias, later=False)}
            ORDER BY {ORDER_BY}
        ) AS ahead)"""


AROUND_ME = f"""
WITH mine AS (
    SELECT {ENTRY}
    FROM leaderboard_entries e
    WHERE {_ON_BOARD} AND e.player_id = $3
), above AS (
    -- (lateral: the caller's key reaches the index scan as a value, not a join filter)
    SELECT a.* FROM mine m CROSS JOIN LATERAL (
        SELECT {ENTRY}
        FROM leaderboard_entries e
        WHERE {_ON_BOARD} AND {order.beyond("e", "m", later=False)}
        ORDER BY {order.order_by("e", reverse=True)}
        LIMIT {AROUND}
    ) AS a
), below AS (
    SELECT b.* FROM mine m CROSS JOIN LATERAL (
        SELECT {ENTRY}
        FROM leaderboard_entries e
        WHERE {_ON_BOARD} AND {order.beyond("e", "m", later=True)}
        ORDER BY {ORDER_BY}
        LIMIT {AROUND + 1}
    ) AS b
)
SELECT 0 AS part, m.*, {ahead_of("m")} AS before
FROM mine m
UNION ALL SELECT 1, a.*, NULL FROM above a
UNION ALL SELECT 2, b.*, NULL FROM below b
"""


def _entry(row: asyncpg.Record, rank: int) -> dict[str, Any]:
    # (ids as their text, as the answer shows them: asyncpg's own UUIDs, made plain
    # uuid.UUIDs, cost a page as much as its statement did)
    return {
        "rank": rank,
        "player": {"id": str(row["player_id"]), "name": row["name"]},
        "elapsed_ms": row["elapsed_ms"],
        "moves": row["moves"],
        "undos": row["undos"],
        "assisted": row["assisted"],
        "verified": row["verified"],
        "game_id": str(row["game_id"]),
        "finished_at": row["finished_at"],
    }


def _page(
    rows: Sequence[asyncpg.Record], first_rank: int, limit: int, secret: bytes
) -> dict[str, Any]:
    return page_of(rows, range(first_rank, first_rank + len(rows)), limit, secret)


def page_of(
    rows: Sequence[asyncpg.Record], ranks: Sequence[int], limit: int, secret: bytes
) -> dict[str, Any]:
    """The first `limit` rows as entries with their `ranks`, and the cursor after the last
    when there are more (signed with `secret`, Backend.cursor_key)."""
    shown = rows[:limit]
    entries = [_entry(row, rank) for row, rank in zip(shown, ranks, strict=False)]
    more = len(rows) > limit
    last = order.values(shown[-1]) if more else None
    cursor = None if last is None else board_cursor(last, ranks[len(shown) - 1], secret)
    return {"entries": entries, "next": cursor}


def board_name(assisted: bool = False, no_undo: bool = False) -> str:
    """Which of a deal's boards (migrations/sql/0004_boards.sql, win_boards): by default
    wins with no hint at a hand's pace; `assisted` lists every win; `no_undo` only wins
    with no undo."""
    name = "assisted" if assisted else "default"
    if no_undo:
        return "no_undo" if name == "default" else "assisted_no_undo"
    return name


async def board(
    backend: Backend,
    variant: str,
    deal: int,
    limit: int = 20,
    cursor: str | None = None,
    kind: str = "default",
) -> dict[str, Any]:
    """One page of the deal's board `kind` (board_name), fastest first; `next` continues
    after its last entry."""
    variant = checked_deal(variant, deal)
    signer = board_key(backend.cursor_key, variant, deal, kind)
    timeout = backend.store.timeout
    if cursor:
        after, rank = parse_board_cursor(cursor, signer)
        async with backend.store.connection() as conn:
            rows = await conn.fetch(
                BOARD_AFTER, variant, deal, limit + 1, *after, kind, timeout=timeout
            )
    else:
        rank = 0
        async with backend.store.connection() as conn:
            rows = await conn.fetch(BOARD_FIRST, variant, deal, limit + 1, kind, timeout=timeout)
    first_rank = rank + 1
    page = _page(rows, first_rank, limit, signer)
    return {"variant": variant, "deal": deal, "board": kind, **page}


async def board_around(
    backend: Backend,
    variant: str,
    deal: int,
    player: Player,
    kind: str = "default",
) -> dict[str, Any]:
    """The caller's entry with AROUND entries above and below it, and its rank."""
    variant = checked_deal(variant, deal)
    async with backend.store.connection() as conn:
        rows = await conn.fetch(
            AROUND_ME, variant, deal, player.id, kind, timeout=backend.store.timeout
        )
    mine = next((r for r in rows if r["part"] == 0), None)
    if mine is None:
        raise NotFound(
            f"{player.name} has no entry on this board: only games won on deal {deal}"
            f" of {variant} count; win one first"
        )
    above = sorted((r for r in rows if r["part"] == 1), key=order.sort_key)
    below = sorted((r for r in rows if r["part"] == 2), key=order.sort_key)
    rank = mine["before"] + 1
    page = _page(
        [*above, mine, *below], rank - len(above), len(above) + 1 + AROUND,
        board_key(backend.cursor_key, variant, deal, kind),
    )
    return {
        "variant": variant, "deal": deal, "board": kind, **page, "rank": rank,
        "me": _entry(mine, rank),
    }
