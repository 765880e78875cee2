"""A deal's board: its pages, fastest first, and the caller's place on it.

The board of a deal is the table `leaderboard_entries`, one row per player, written by
record_events in the transaction of the winning move (so only wins the server saw count,
timed by the server's clock), in the order of service/boards/order.py. Pages go by keyset
(the cursor is the last entry's sort key and rank, service/boards/cursors.py) so they
neither repeat nor skip entries while new wins arrive, and a deep page costs what the
first does. Ranks on a page read by cursor continue from the previous page's (wins that
arrived ahead of the cursor meanwhile are not counted); around=me counts the caller's
rank afresh: 1 + the entries before it, counted on the index `leaderboard_entries_board`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import asyncpg

from service.base.backend import Backend
from service.base.errors import NotFound
from service.boards import order
from service.boards.cursors import board_cursor, parse_board_cursor
from service.deals.numbers import check_deal_number
from service.players.accounts import Player

AROUND = 5  # entries shown above and below the caller's own with around=me

_ENTRY = (
    "e.player_id, p.name, e.game_id, e.elapsed_ms, e.moves, e.undos, e.finished_at,"
    " e.assisted, e.verified"
)
_ORDER = order.order_by("e")
_KEY_END = 3 + len(order.ORDER)  # the last of a key's parameters, from $4 on


BOARD_FIRST = f"""
SELECT {_ENTRY}
FROM leaderboard_entries e JOIN players p ON p.id = e.player_id
WHERE e.variant = $1 AND e.deal = $2 AND e.board = $4
ORDER BY {_ORDER}
LIMIT $3
"""

BOARD_AFTER = f"""
SELECT {_ENTRY}
FROM leaderboard_entries e JOIN players p ON p.id = e.player_id
WHERE e.variant = $1 AND e.deal = $2 AND e.board = ${_KEY_END + 1}
  AND {order.beyond("e", 4, later=True)}
ORDER BY {_ORDER}
LIMIT $3
"""

MY_ENTRY = f"""
SELECT {_ENTRY}
FROM leaderboard_entries e JOIN players p ON p.id = e.player_id
WHERE e.variant = $1 AND e.deal = $2 AND e.player_id = $3 AND e.board = $4
"""

# The count of entries ahead of the key $3.., in board order: so the plan is an
# index-only scan of the board's index up to the key (O(rank)). Without the ORDER BY,
# PostgreSQL takes a sequential scan of the whole table for a deep key (cheaper by its
# estimate, slower in fact).
RANK_BEFORE = f"""
SELECT count(*) FROM (
    SELECT 1 FROM leaderboard_entries e
    WHERE e.variant = $1 AND e.deal = $2 AND e.board = ${_KEY_END}
      AND {order.beyond("e", 3, later=False)}
    ORDER BY {_ORDER}
) AS ahead
"""

ABOVE = f"""
SELECT {_ENTRY}
FROM leaderboard_entries e JOIN players p ON p.id = e.player_id
WHERE e.variant = $1 AND e.deal = $2 AND e.board = ${_KEY_END + 1}
  AND {order.beyond("e", 4, later=False)}
ORDER BY {order.order_by("e", reverse=True)}
LIMIT $3
"""

BELOW = BOARD_AFTER


def plain_uuid(value: uuid.UUID) -> uuid.UUID:
    """A plain uuid.UUID for asyncpg's own UUID type (which orjson does not serialise)."""
    return uuid.UUID(int=value.int)


def _entry(row: asyncpg.Record, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": {"id": plain_uuid(row["player_id"]), "name": row["name"]},
        "elapsed_ms": row["elapsed_ms"],
        "moves": row["moves"],
        "undos": row["undos"],
        "assisted": row["assisted"],
        "verified": row["verified"],
        "game_id": plain_uuid(row["game_id"]),
        "finished_at": row["finished_at"],
    }


def _page(rows: Sequence[asyncpg.Record], first_rank: int, limit: int) -> dict[str, Any]:
    shown = rows[:limit]
    entries = [_entry(row, first_rank + i) for i, row in enumerate(shown)]
    more = len(rows) > limit
    last = board_cursor(order.values(shown[-1]), first_rank + len(shown) - 1) if more else None
    return {"entries": entries, "next": last}


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
    variant = check_deal_number(variant, deal)
    timeout = backend.store.timeout
    if cursor:
        after, rank = parse_board_cursor(cursor)
        async with backend.store.connection() as conn:
            rows = await conn.fetch(
                BOARD_AFTER, variant, deal, limit + 1, *after, kind, timeout=timeout
            )
    else:
        rank = 0
        async with backend.store.connection() as conn:
            rows = await conn.fetch(BOARD_FIRST, variant, deal, limit + 1, kind, timeout=timeout)
    first_rank = rank + 1
    return {"variant": variant, "deal": deal, "board": kind, **_page(rows, first_rank, limit)}


async def board_around(
    backend: Backend,
    variant: str,
    deal: int,
    player: Player,
    around: int = AROUND,
    kind: str = "default",
) -> dict[str, Any]:
    """The caller's entry with `around` entries above and below it, and its rank."""
    variant = check_deal_number(variant, deal)
    timeout = backend.store.timeout
    async with (
        backend.store.connection() as conn,
        conn.transaction(isolation="repeatable_read", readonly=True),
    ):
        mine = await conn.fetchrow(MY_ENTRY, variant, deal, player.id, kind, timeout=timeout)
        if mine is None:
            raise NotFound(
                f"{player.name} has no entry on this board: only games won on deal {deal}"
                f" of {variant} count; win one first"
            )
        key = order.values(mine)
        before: int = await conn.fetchval(
            RANK_BEFORE, variant, deal, *key, kind, timeout=timeout
        )
        above = await conn.fetch(ABOVE, variant, deal, around, *key, kind, timeout=timeout)
        below = await conn.fetch(BELOW, variant, deal, around + 1, *key, kind, timeout=timeout)
    rank = before + 1
    rows = [*reversed(above), mine, *below]
    page = _page(rows, rank - len(above), len(above) + 1 + around)
    return {
        "variant": variant, "deal": deal, "board": kind, **page, "rank": rank,
        "me": _entry(mine, rank),
    }
