"""The migrations and service/database/tables.py describe the same schema (what
`alembic check` tests)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from service.database.embedded import sqlalchemy_url
from service.database.migrate import alembic_config
from service.database.tables import metadata

from .helpers import player_row


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, metadata))


async def test_models_match_the_migrated_database(db_url: str) -> None:
    engine = create_async_engine(sqlalchemy_url(db_url), poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            differences = await connection.run_sync(_differences)
    finally:
        await engine.dispose()
    assert differences == []


async def test_leaderboard_table_is_migrated(db_url: str) -> None:
    """The comparison above would pass on an empty metadata too: the tables are there."""
    engine = create_async_engine(sqlalchemy_url(db_url), poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            names = set(await connection.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()
    assert set(metadata.tables) <= names
    assert "leaderboard_entries" in names


async def test_leaderboards_migration_goes_down_and_up_again(db_url: str) -> None:
    """Down to 0001 restores its record_events (wins write no entry), down to 0003 its
    boards of one kind; up again brings back today's, with the wins recorded meanwhile."""
    head_call = (
        "SELECT * FROM record_events($1, 1, '[{\"type\": \"GameCreated\", \"data\": {}}]',"
        " $2, 'freecell', 1, false, 'won', 1, 0, 0, 52, 'now', 0, NULL, NULL, NULL, NULL)"
    )
    old_call = (
        "SELECT * FROM record_events($1, 1, '[{\"type\": \"GameCreated\", \"data\": {}}]',"
        " $3, $2, 'freecell', 1, false, 'won', 1, 0, 52, $3, 0, NULL, NULL, NULL, NULL)"
    )

    async def won(dsn: str, head: bool = True) -> bool | None:
        """Records one won game; whether it got a board entry (None: no table)."""
        conn = await asyncpg.connect(dsn)
        try:
            pid, gid = uuid.uuid4(), uuid.uuid4()
            await player_row(conn, pid, "ada")
            if head:
                await conn.execute(head_call, gid, pid)
            else:
                await conn.execute(old_call, gid, pid, datetime.now(UTC))
            if not await conn.fetchval("SELECT to_regclass('leaderboard_entries') IS NOT NULL"):
                return None
            entries = "SELECT count(*) FROM leaderboard_entries WHERE game_id = $1"
            return bool(await conn.fetchval(entries, gid))
        finally:
            await conn.close()

    async def games_on_boards() -> int:
        conn = await asyncpg.connect(db_url)
        try:
            count: int = await conn.fetchval(
                "SELECT count(DISTINCT game_id) FROM leaderboard_entries"
            )
            return count
        finally:
            await conn.close()

    config = alembic_config(db_url)
    assert await won(db_url) is True
    await asyncio.to_thread(command.downgrade, config, "0003")
    assert await won(db_url, head=False) is True
    await asyncio.to_thread(command.upgrade, config, "head")
    assert await games_on_boards() == 2
    await asyncio.to_thread(command.downgrade, config, "0001")
    assert await won(db_url, head=False) is None
    await asyncio.to_thread(command.upgrade, config, "head")
    # the win recorded while down was found in the projection and put on the board
    assert await games_on_boards() == 3
    assert await won(db_url) is True




async def test_the_stats_migration_counts_the_games_recorded_before(db_url: str) -> None:
    """Games recorded before migration 0013 are counted by it: played, won, won with
    help, best time, the bins of the median, and the streaks in the order games ended."""
    config = alembic_config(db_url)
    await asyncio.to_thread(command.downgrade, config, "0012")
    pid = uuid.uuid4()
    # (status, assisted, elapsed_ms, seconds after the first to end)
    games = [("won", False, 5_000, 1), ("won", False, 7_500, 2), ("blocked", False, None, 3),
             ("won", False, 9_000, 4), ("won", True, 4_000, 5), ("won", False, 6_000, 6),
             ("won", False, 8_000, 7), ("won", False, 3_000, 8), ("playing", False, None, 0),
             ("abandoned", False, None, 9)]  # fmt: skip
    conn = await asyncpg.connect(db_url)
    try:
        await player_row(conn, pid, "ada")
        t0 = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
        for status, assisted, elapsed, after in games:
            finished = None if status == "playing" else t0 + timedelta(seconds=after)
            await conn.execute(
                """INSERT INTO games (id, player_id, variant, deal, autoplay, status, version,
                                      moves, undos, foundation_cards, created_at, updated_at,
                                      finished_at, elapsed_ms, assisted)
                   VALUES ($1, $2, 'freecell', 1, false, $3, 2, 1, 0, 0, $4, $4, $5, $6, $7)""",
                uuid.uuid4(), pid, status, t0, finished, elapsed, assisted,
            )
    finally:
        await conn.close()
    await asyncio.to_thread(command.upgrade, config, "head")
    conn = await asyncpg.connect(db_url)
    try:
        row = await conn.fetchrow("SELECT * FROM player_stats WHERE player_id = $1", pid)
        bins = await conn.fetch(
            "SELECT bin, wins FROM player_time_bins WHERE player_id = $1 ORDER BY bin", pid)
    finally:
        await conn.close()
    assert dict(row) | {"player_id": None} == {
        "player_id": None, "variant": "freecell", "played": 10, "won": 7, "won_assisted": 1,
        # 2 clean wins, blocked; 1, the hinted win; 3, abandoned: 0 now, 3 at best
        "streak": 0, "best_streak": 3, "best_ms": 3_000,
    }  # fmt: skip
    assert [(b["bin"], b["wins"]) for b in bins] == [(second, 1) for second in range(3, 10)]


async def test_instances_started_at_once_migrate_one_after_the_other(
    pg_server_url: str,
) -> None:
    """Four processes migrate one empty database at once (instances started together):
    each waits for the one before (an advisory lock in their transaction, migrations/env.py)
    and all end at head; side by side, the later ones died creating alembic_version."""
    import subprocess
    import sys

    from service.database.embedded import with_database

    name = f"at_once_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(pg_server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = with_database(pg_server_url, name)
        code = "import sys; from service.database.migrate import upgrade; upgrade(sys.argv[1])"
        migrating = [
            await asyncio.create_subprocess_exec(
                sys.executable, "-c", code, url, stderr=subprocess.PIPE
            )
            for _ in range(4)
        ]
        ended = [await p.communicate() for p in migrating]
        assert [p.returncode for p in migrating] == [0] * 4, [err[-500:] for _, err in ended]
        conn = await asyncpg.connect(url)
        try:
            assert await conn.fetchval("SELECT count(*) FROM alembic_version") == 1
        finally:
            await conn.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
