"""GET /healthz says whether the database answers (API.md): not whether the pool has a
connection free, and not what an old connection says after the server restarted."""

from __future__ import annotations

import asyncio

from aiohttp.test_utils import TestClient, TestServer

from service.app import create_app
from service.base.keys import BACKEND_KEY
from service.database.embedded import EmbeddedPostgres
from tests.conftest import make_settings
from tests.faults.helpers import migrated_database


async def test_health_answers_while_every_pooled_connection_is_taken(db_url: str) -> None:
    """A burst of requests holding all of the pool's connections: the database still
    answers, and /healthz says so (200) rather than waiting DB_TIMEOUT for the pool."""
    app = create_app(make_settings(db_url, pool_min=1, pool_max=2, db_timeout=2))
    async with TestClient(TestServer(app)) as client:
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
    async with TestClient(TestServer(app)) as client:
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
