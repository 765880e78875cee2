"""GET /healthz says whether the database answers (API.md): not whether the pool has a
connection free, and not what an old connection says after the server restarted."""

from __future__ import annotations

import asyncio
import time

import asyncpg
from aiohttp.test_utils import TestClient

from service.app import create_app
from service.base.keys import BACKEND_KEY
from service.database.embedded import EmbeddedPostgres
from tests.api.helpers import auth, instance, new_game, new_player
from tests.conftest import Served, make_settings
from tests.faults.helpers import migrated_database


async def test_health_answers_while_every_pooled_connection_is_taken(db_url: str) -> None:
    """A burst of requests holding all of the pool's connections: the database still
    answers, and /healthz says so (200) rather than waiting DB_TIMEOUT for the pool."""
    app = create_app(make_settings(db_url, pool_min=1, pool_max=2, db_timeout=2))
    async with TestClient(Served(app)) as client:
        pool = app[BACKEND_KEY].store.pool
        held = [await pool.acquire(), await pool.acquire()]
        try:
            assert pool.get_idle_size() == 0
            r = await asyncio.wait_for(client.get("/healthz"), 1.5)
            assert r.status == 200, await r.text()
            assert await r.json() == {"status": "ok"}
        finally:
            for conn in held:
                await pool.release(conn)


async def test_health_after_the_database_restarted_answers_200_at_once(
    own_postgres: EmbeddedPostgres,
) -> None:
    """Down: 503 with Retry-After. Back (a new server process, the probe's old connection
    gone with the old one): the first /healthz after answers 200."""
    url = await migrated_database(own_postgres, "health")
    app = create_app(make_settings(url, pool_min=1, pool_max=2, db_timeout=2))
    async with TestClient(Served(app)) as client:
        assert (await client.get("/healthz")).status == 200
        await asyncio.to_thread(own_postgres.stop, "fast")
        r = await client.get("/healthz")
        assert r.status == 503 and r.headers["Retry-After"].isdigit()
        await asyncio.to_thread(own_postgres.restart)
        assert (await client.get("/healthz")).status == 200
        # stopped and started again between two checks: the first check after it finds
        # its connection gone with the old server, and asks on a new one
        await asyncio.to_thread(own_postgres.stop, "fast")
        await asyncio.to_thread(own_postgres.restart)
        assert (await client.get("/healthz")).status == 200


async def _takes_writes(db_url: str, writes: bool) -> None:
    """The database set to take writes or not (default_transaction_read_only, as a managed
    database sets it when its disk is full), its sessions cut so that every new one has it."""
    conn = await asyncpg.connect(db_url, server_settings={"default_transaction_read_only": "off"})
    try:
        name = await conn.fetchval("SELECT current_database()")
        setting = "off" if writes else "on"
        await conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = {setting}')
        await conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()


async def test_a_database_that_takes_no_writes_is_unavailable_not_an_error(
    db_url: str,
) -> None:
    """A database that refuses writes: a move and a new player answer 503 with
    Retry-After, as an unreachable database does (not 500), saying the database takes no
    writes, and /healthz says 503; a game
    and a player's own record (with a token) are still read. Once it takes writes again,
    so does the service, by itself."""
    async with instance(db_url) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=1, autoplay=False)
        moves = f"/v1/games/{game['id']}/moves"
        move = (await (await c.get(f"/v1/games/{game['id']}/legal-moves")).json())["moves"][0]
        await _takes_writes(db_url, False)
        try:
            for _ in range(3):  # (the first may meet a connection cut: 503 as well)
                r = await c.post(moves, json=move, headers=auth(ada))
                assert r.status == 503 and r.headers["Retry-After"].isdigit(), await r.text()
            # (said as it is: the database is there, and takes no writes)
            assert "takes no writes" in (await r.json())["detail"], await r.text()
            for r in (await c.post("/v1/players", json={"name": "bob"}),
                      await c.get("/healthz")):  # fmt: skip
                assert r.status == 503, await r.text()
                assert "takes no writes" in (await r.json())["detail"], await r.text()
            # reads go on, a token's included (its use is not noted meanwhile)
            assert (await c.get(f"/v1/games/{game['id']}")).status == 200
            me = await c.get("/v1/players/me", headers=auth(ada))
            assert me.status == 200 and (await me.json())["id"] == ada["id"]
        finally:
            await _takes_writes(db_url, True)
        deadline = time.monotonic() + 5
        while (r := await c.post(moves, json=move, headers=auth(ada))).status == 503:
            assert time.monotonic() < deadline, await r.text()
        assert r.status == 201, await r.text()
        assert (await c.get("/healthz")).status == 200


async def test_a_database_that_refuses_connections_is_unavailable_not_an_error(
    db_url: str, pg_server_url: str
) -> None:
    """A database that accepts no connections (ALLOW_CONNECTIONS false, as for maintenance)
    refuses the pool's new ones with an error of its own (55000, "not currently accepting
    connections"): reads and writes answer 503 with Retry-After, as for an unreachable
    database, not 500. Once it accepts them again, so does the service, by itself."""
    async with instance(db_url) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=1, autoplay=False)
        path = f"/v1/games/{game['id']}"
        move = (await (await c.get(f"{path}/legal-moves")).json())["moves"][0]
        conn = await asyncpg.connect(db_url)
        name = await conn.fetchval("SELECT current_database()")
        await conn.close()
        control = await asyncpg.connect(pg_server_url)  # (on another database)
        try:
            await control.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            await control.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
            )
            for _ in range(3):
                for r in (await c.get(path), await c.post(f"{path}/moves", json=move,
                                                          headers=auth(ada))):  # fmt: skip
                    assert r.status == 503, await r.text()
                    assert r.headers["Retry-After"].isdigit()
                    assert (await r.json())["type"].endswith("/database-unavailable")
        finally:
            await control.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            await control.close()
        deadline = time.monotonic() + 5
        while (r := await c.post(f"{path}/moves", json=move, headers=auth(ada))).status == 503:
            assert time.monotonic() < deadline, await r.text()
        assert r.status == 201, await r.text()
