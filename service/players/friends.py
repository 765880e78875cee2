"""Friends: the players a player follows (API.md, "Grades, standings and a player's
story"), and whom the boards' `?friends=true` lists (service/boards/board.py).

Following is idempotent and so is unfollowing; a player follows at most MAX_FRIENDS, a
cap kept under a lock on the player's row, as the tokens' is (accounts.py)."""

from __future__ import annotations

import uuid
from typing import Any, Final

from service.base.backend import Backend
from service.base.errors import Conflict, NotFound, Unprocessable
from service.database.connections import plain, transaction
from service.players.accounts import LOCK_PLAYER, Player

MAX_FRIENDS: Final = 1000

FOLLOW = """
INSERT INTO friends (player_id, friend_id)
SELECT $1, $2 WHERE (SELECT count(*) FROM friends WHERE player_id = $1) < $3
ON CONFLICT DO NOTHING
"""
FRIENDS = """
SELECT p.id, p.name FROM friends f JOIN players p ON p.id = f.friend_id
WHERE f.player_id = $1 ORDER BY f.created_at, p.id
"""


async def follow(backend: Backend, player: Player, friend_id: uuid.UUID) -> None:
    """`player` follows `friend_id` (nothing changes when they do already). 404 for no such
    player, 422 for oneself, 409 past MAX_FRIENDS."""
    if friend_id == player.id:
        raise Unprocessable("a player does not follow themselves: their own entry is on"
                            " their friends' boards already")  # fmt: skip
    timeout = backend.store.timeout
    async with backend.store.connection() as conn, transaction(conn, timeout):
        await conn.execute(LOCK_PLAYER, player.id, timeout=timeout)
        if await conn.fetchval("SELECT 1 FROM players WHERE id = $1", friend_id,
                               timeout=timeout) is None:  # fmt: skip
            raise NotFound(f"there is no player with id {friend_id}")
        if await conn.fetchval("SELECT 1 FROM friends WHERE player_id = $1 AND friend_id = $2",
                               player.id, friend_id, timeout=timeout):  # fmt: skip
            return
        done = await conn.execute(FOLLOW, player.id, friend_id, MAX_FRIENDS, timeout=timeout)
        if done == "INSERT 0 0":
            raise Conflict(f"a player follows {MAX_FRIENDS} players at most; unfollow one"
                           " first (DELETE /v1/players/me/friends/{player_id})")  # fmt: skip


async def unfollow(backend: Backend, player: Player, friend_id: uuid.UUID) -> None:
    async with backend.store.connection() as conn:
        await conn.execute(
            "DELETE FROM friends WHERE player_id = $1 AND friend_id = $2",
            player.id, friend_id, timeout=backend.store.timeout,
        )


async def friends(backend: Backend, player: Player) -> dict[str, Any]:
    """{"friends": [{"id", "name"}, ...]}, in the order they were followed."""
    async with backend.store.connection() as conn:
        rows = await conn.fetch(FRIENDS, player.id, timeout=backend.store.timeout)
    return {"friends": [{"id": plain(r["id"]), "name": r["name"]} for r in rows]}
