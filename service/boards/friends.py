"""The board of a player and those they follow (`?friends=true`), ranked as the full
board: each entry's rank is its place among every entry of the board, not among the
friends' (service/boards/board.py: ahead_of). Pages go by keyset as the full board's do.
"""

from __future__ import annotations

from typing import Any

from service.base.backend import Backend
from service.boards import order
from service.boards.board import ENTRY, ORDER_BY, ahead_of, page_of
from service.boards.cursors import board_key, parse_board_cursor
from service.deals.numbers import checked_deal
from service.players.accounts import Player

_FRIENDS = """(e.player_id = $5
      OR e.player_id IN (SELECT friend_id FROM friends WHERE player_id = $5))"""
_PAGE = """
SELECT x.*, {ahead} AS ahead FROM (
    SELECT {entry}
    FROM leaderboard_entries e
    WHERE e.variant = $1 AND e.deal = $2 AND e.board = $4 AND {friends} {after}
    ORDER BY {order}
    LIMIT $3
) AS x
ORDER BY {x_order}
"""
FRIENDS_FIRST = _PAGE.format(
    ahead=ahead_of("x"), entry=ENTRY, friends=_FRIENDS, after="", order=ORDER_BY,
    x_order=order.order_by("x"),
)
FRIENDS_AFTER = _PAGE.format(
    ahead=ahead_of("x"), entry=ENTRY, friends=_FRIENDS,
    after=f"AND {order.beyond('e', 6, later=True)}", order=ORDER_BY,
    x_order=order.order_by("x"),
)


async def friends_board(
    backend: Backend,
    variant: str,
    deal: int,
    player: Player,
    limit: int = 20,
    cursor: str | None = None,
    kind: str = "default",
) -> dict[str, Any]:
    """One page of the board `kind` with the entries of `player` and those they follow
    only, each with its rank on the full board; `next` continues after its last entry."""
    variant = checked_deal(variant, deal)
    signer = board_key(backend.cursor_key, variant, deal, kind, friends_of=player.id)
    timeout = backend.store.timeout
    async with backend.store.connection() as conn:
        if cursor:
            after, _rank = parse_board_cursor(cursor, signer)
            rows = await conn.fetch(FRIENDS_AFTER, variant, deal, limit + 1, kind, player.id,
                                    *after, timeout=timeout)  # fmt: skip
        else:
            rows = await conn.fetch(FRIENDS_FIRST, variant, deal, limit + 1, kind, player.id,
                                    timeout=timeout)  # fmt: skip
    ranks = [row["ahead"] + 1 for row in rows]
    page = page_of(rows, ranks, limit, signer)
    return {"variant": variant, "deal": deal, "board": kind, **page}
