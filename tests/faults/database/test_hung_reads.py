"""A conditional read beside other instances while the database hangs: its wait for a beat
(which comes back through the database) is one of its waits, and the whole request answers
503 within DB_TIMEOUT, not DB_TIMEOUT after that wait."""

from __future__ import annotations

import asyncio
import signal
import time

import aiohttp
import pytest

from service.app import create_app
from service.database.embedded import EmbeddedPostgres

from ...api.helpers import auth
from ...conftest import Served, make_settings
from ..helpers import migrated_database, signal_all

DB_TIMEOUT = 1.0


async def test_a_304_asked_of_memory_answers_503_within_db_timeout_when_the_database_hangs(
    own_postgres: EmbeddedPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a beat's wait as long as the whole budget: without it counted, 2 s in all
    monkeypatch.setattr("service.live.beats.CAUGHT_UP_WAIT", DB_TIMEOUT)
    url = await migrated_database(own_postgres, "hung_reads")
    servers = [Served(create_app(make_settings(url, db_timeout=DB_TIMEOUT))) for _ in "ab"]
    for server in servers:  # two instances: a 304 from memory waits for a beat
        await server.start_server()
    base = str(servers[0].make_url("")).rstrip("/")
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=40)) as session:
            async with session.post(f"{base}/v1/players", json={"name": "ada"}) as r:
                ada = await r.json()
            async with session.post(f"{base}/v1/games", headers=auth(ada),
                                    json={"variant": "freecell", "deal": 617}) as r:
                game = f"{base}/v1/games/{(await r.json())['id']}"
            async with session.get(game) as r:
                tag = r.headers["ETag"]
            asked = {"If-None-Match": tag}
            async with session.get(game, headers=asked) as r:
                assert r.status == 304
            signal_all(own_postgres, signal.SIGSTOP)
            try:
                started = time.monotonic()
                async with session.get(game, headers=asked) as r:
                    assert r.status == 503, await r.text()
                    assert r.headers["Retry-After"]
                took = time.monotonic() - started
                assert took < DB_TIMEOUT + 0.6, took
            finally:
                signal_all(own_postgres, signal.SIGCONT)
            for _ in range(50):  # and memory answers again once the database is back
                async with session.get(game, headers=asked) as r:
                    if r.status == 304:
                        break
                await asyncio.sleep(0.2)
            assert r.status == 304
    finally:
        for server in servers:
            await server.close()
