"""A player's record and games: counts, streaks, best times, deals won; games by page.

Counted from the `games` projection and the player's entries on the default boards; a
player's best time of a variant is the best of those entries by the board's order
(service/boards/order.py). The games come newest first, by keyset
(service/boards/cursors.py).
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg

from service.base.backend import Backend
from service.base.errors import NotFound
from service.base.requests import parse_id
from service.boards import order
from service.boards.cursors import games_cursor, parse_games_cursor
from service.database.connections import plain, transaction

PLAYER = "SELECT id, name, created_at FROM players WHERE id = $1"

PLAYER_COUNTS = """
SELECT count(*) AS played,
       count(*) FILTER (WHERE status = 'won' AND NOT assisted) AS won,
       count(*) FILTER (WHERE status = 'won' AND assisted) AS won_assisted,
       count(*) FILTER (WHERE status = 'abandoned') AS abandoned,
       count(*) FILTER (WHERE status = 'blocked') AS blocked,
       count(*) FILTER (WHERE status = 'playing') AS playing
FROM games WHERE player_id = $1
"""

# wins without a hint in a row, in the order games finished, across every game: the rule
# the stats share (migrations/sql/0015_streaks.sql)
PLAYER_STREAKS = "SELECT current, longest FROM player_streaks($1, NULL)"

PLAYER_ENTRIES = """
SELECT variant, deal, game_id, elapsed_ms, moves, undos, finished_at
FROM leaderboard_entries WHERE player_id = $1 AND board = 'default'
ORDER BY variant, deal
"""

_GAME = (
    "id, variant, deal, autoplay, status, version, moves, undos, foundation_cards,"
    " created_at, finished_at, elapsed_ms"
)

GAMES_FIRST = f"""
SELECT {_GAME} FROM games WHERE player_id = $1
ORDER BY created_at DESC, id DESC LIMIT $2
"""

GAMES_AFTER = f"""
SELECT {_GAME} FROM games WHERE player_id = $1 AND (created_at, id) < ($3, $4)
ORDER BY created_at DESC, id DESC LIMIT $2
"""


async def player_record(backend: Backend, player_id: str | uuid.UUID) -> dict[str, Any]:
    """A player's counts, win rate, streaks, best time per variant and deals won."""
    pid = player_id if isinstance(player_id, uuid.UUID) else parse_id(player_id, "player")
    timeout = backend.store.timeout
    async with (
        backend.store.connection() as conn,
        transaction(conn, timeout, repeatable_read=True, read_only=True),
    ):
        who = await conn.fetchrow(PLAYER, pid, timeout=timeout)
        if who is None:
            raise NotFound(f"there is no player with id {pid}")
        counts = await conn.fetchrow(PLAYER_COUNTS, pid, timeout=timeout)
        streaks = await conn.fetchrow(PLAYER_STREAKS, pid, timeout=timeout)
        entries = await conn.fetch(PLAYER_ENTRIES, pid, timeout=timeout)
    assert counts is not None and streaks is not None
    best: dict[str, asyncpg.Record] = {}
    won_deals: dict[str, list[int]] = {}
    for row in entries:  # ordered by variant, deal
        won_deals.setdefault(row["variant"], []).append(row["deal"])
        held = best.get(row["variant"])
        if held is None or order.better_key(row) < order.better_key(held):
            best[row["variant"]] = row
    played = counts["played"]
    return {
        "id": plain(who["id"]),
        "name": who["name"],
        "created_at": who["created_at"],
        "games_played": played,
        "won": counts["won"],
        "won_assisted": counts["won_assisted"],
        "abandoned": counts["abandoned"],
        "blocked": counts["blocked"],
        "playing": counts["playing"],
        "win_rate": round(counts["won"] / played, 4) if played else 0.0,  # as /stats
        "current_streak": streaks["current"],
        "longest_streak": streaks["longest"],
        "best_times": {
            variant: {
                "elapsed_ms": row["elapsed_ms"],
                "moves": row["moves"],
                "undos": row["undos"],
                "deal": row["deal"],
                "game_id": plain(row["game_id"]),
                "finished_at": row["finished_at"],
            }
            for variant, row in best.items()
        },
        "won_deals": won_deals,
    }


def _game_summary(row: asyncpg.Record) -> dict[str, Any]:
    summary = dict(row.items())
    summary["id"] = plain(row["id"])
    return summary


async def player_games(
    backend: Backend, player_id: str | uuid.UUID, limit: int = 20, cursor: str | None = None
) -> dict[str, Any]:
    """The player's games, newest first, one page; `next` continues after its last game."""
    pid = player_id if isinstance(player_id, uuid.UUID) else parse_id(player_id, "player")
    after = parse_games_cursor(cursor) if cursor else None
    timeout = backend.store.timeout
    async with backend.store.connection() as conn:
        if after is None:
            rows = await conn.fetch(GAMES_FIRST, pid, limit + 1, timeout=timeout)
        else:
            rows = await conn.fetch(GAMES_AFTER, pid, limit + 1, *after, timeout=timeout)
        if not rows and await conn.fetchrow(PLAYER, pid, timeout=timeout) is None:
            raise NotFound(f"there is no player with id {pid}")
    shown = rows[:limit]
    more = len(rows) > limit
    last = shown[-1] if shown else None
    return {
        "games": [_game_summary(row) for row in shown],
        "next": games_cursor(last["created_at"], last["id"]) if more and last else None,
    }
