"""A request whose transaction meets a hung database answers 503 within DB_TIMEOUT: a
statement that waited its time out ends the transaction by closing its connection, not by
a ROLLBACK that would wait as long again."""

from __future__ import annotations

import asyncio
import signal
import time
import uuid

import aiohttp
import asyncpg

from service.app import create_app
from service.database.embedded import EmbeddedPostgres, asyncpg_dsn

from ...conftest import Served, make_settings
from ..helpers import migrated_database, signal_all

DB_TIMEOUT = 2.0



async def test_a_transaction_that_meets_a_hung_database_answers_within_its_budget(
    own_postgres: EmbeddedPostgres,
) -> None:
    url = await migrated_database(own_postgres, "transactions")
    server = Served(create_app(make_settings(url, db_timeout=DB_TIMEOUT)))
    await server.start_server()
    base = str(server.make_url("")).rstrip("/")
    holder = await asyncpg.connect(asyncpg_dsn(url))
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as s:
            async with s.post(f"{base}/v1/players", json={"name": "ada"}) as r:
                assert r.status == 201
                ada = await r.json()
            # another session holds the player's row: adding a token waits for it, and
            # meanwhile the server hangs
            lock = holder.transaction()
            await lock.start()
            await holder.execute("SELECT 1 FROM players WHERE id = $1 FOR UPDATE",
                                 uuid.UUID(ada["id"]))
            t0 = time.monotonic()
            adding = asyncio.create_task(s.post(
                f"{base}/v1/players/me/tokens", json={"device": "tablet"},
                headers={"Authorization": f"Bearer {ada['token']}"}))
            await asyncio.sleep(0.5)
            signal_all(own_postgres, signal.SIGSTOP)
            try:
                async with await adding as r:
                    took = time.monotonic() - t0
                    assert r.status == 503, await r.text()
            finally:
                signal_all(own_postgres, signal.SIGCONT)
            assert took < DB_TIMEOUT + 1.0, took
            await lock.rollback()
    finally:
        holder.terminate()
        await server.close()


async def test_the_service_stops_within_db_timeout_though_a_connection_never_comes_back(
    db_url: str,
) -> None:
    """A connection taken from the pool and never given back (a request cancelled at
    shutdown, whose release waits for a hung server's word): the stop closes the pool
    gracefully for DB_TIMEOUT at most, then cuts what is left, instead of waiting forever."""
    from service.base.keys import BACKEND_KEY

    app = create_app(make_settings(db_url, db_timeout=DB_TIMEOUT))
    server = Served(app)
    await server.start_server()
    held = await app[BACKEND_KEY].store.pool.acquire()
    pid = held.get_server_pid()
    t0 = time.monotonic()
    await asyncio.wait_for(server.close(), DB_TIMEOUT + 10)
    assert time.monotonic() - t0 < DB_TIMEOUT + 3
    conn = await asyncpg.connect(db_url)  # (and its session is gone with it)
    try:
        for _ in range(50):
            if not await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the connection held was left open")
    finally:
        await conn.close()
