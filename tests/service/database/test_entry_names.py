"""Migration 0014: a board entry carries its player's name, so that a board's page reads
one table. Entries written before it get their names; entries written after it, by a win
or directly, get theirs from the trigger."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import asyncpg
from alembic import command

from service.database.migrate import alembic_config

from .helpers import player_row

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


async def player_with_a_win(conn: asyncpg.Connection, name: str, seconds: int) -> uuid.UUID:
    """A player, a won game of FreeCell deal 1 and its entry on the default board."""
    pid, gid = uuid.uuid4(), uuid.uuid4()
    await player_row(conn, pid, name)
    await conn.execute(
        "INSERT INTO games (id, player_id, variant, deal, autoplay, status, version, moves,"
        " undos, foundation_cards, created_at, updated_at, finished_at, elapsed_ms)"
        " VALUES ($1, $2, 'freecell', 1, false, 'won', 3, 2, 0, 52, $3, $3, $3, $4)",
        gid, pid, T0, seconds * 1000,
    )
    await conn.execute(
        "INSERT INTO leaderboard_entries (variant, deal, board, player_id, game_id,"
        " elapsed_ms, moves, undos, assisted, verified, finished_at)"
        " VALUES ('freecell', 1, 'default', $1, $2, $3, 2, 0, false, true, $4)",
        pid, gid, seconds * 1000, T0,
    )
    return pid


async def names(conn: asyncpg.Connection) -> dict[uuid.UUID, str]:
    rows = await conn.fetch("SELECT player_id, player_name FROM leaderboard_entries")
    return {r["player_id"]: r["player_name"] for r in rows}


async def test_0014_names_the_entries_before_it_and_after_it(db_url: str) -> None:
    config = alembic_config(db_url)
    await asyncio.to_thread(command.downgrade, config, "0013")
    conn = await asyncpg.connect(db_url)
    try:
        ada = await player_with_a_win(conn, "ada", 60)
        bob = await player_with_a_win(conn, "bob", 90)
        await asyncio.to_thread(command.upgrade, config, "head")
        assert await names(conn) == {ada: "ada", bob: "bob"}
        cyd = await player_with_a_win(conn, "cyd", 30)
        assert await names(conn) == {ada: "ada", bob: "bob", cyd: "cyd"}
        # an entry improved by a better win keeps its name
        await conn.execute(
            "UPDATE leaderboard_entries SET elapsed_ms = 20000 WHERE player_id = $1", bob
        )
        assert (await names(conn))[bob] == "bob"
    finally:
        await conn.close()
