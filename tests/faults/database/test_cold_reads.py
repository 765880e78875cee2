"""Reads of a long game that memory does not hold, while the database hangs: one request
reads the log, the others wait for it from their own budgets, so every one answers 503
within DB_TIMEOUT (not after its own read once the first failed); once the database is
back they all answer the game."""

from __future__ import annotations

import asyncio
import signal
import time

import aiohttp

from service.app import create_app
from service.database.embedded import EmbeddedPostgres

from ...api.contract.test_limits import longest_game
from ...conftest import Served, make_settings
from ..helpers import migrated_database, signal_all

DB_TIMEOUT = 2.0
READS = 10



async def test_reads_of_a_long_game_waiting_for_one_replay_keep_to_their_budget(
    own_postgres: EmbeddedPostgres,
) -> None:
    url = await migrated_database(own_postgres, "cold")
    _ada, gid = await longest_game(url)
    server = Served(create_app(make_settings(url, db_timeout=DB_TIMEOUT)))
    await server.start_server()  # a new instance: nothing of the game in memory
    base = str(server.make_url("")).rstrip("/")
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as s:

            async def read() -> tuple[int, float, dict[str, object]]:
                t0 = time.monotonic()
                async with s.get(f"{base}/v1/games/{gid}") as r:
                    return r.status, time.monotonic() - t0, await r.json()

            async with s.get(f"{base}/healthz") as r:  # (the pool opened)
                assert r.status == 200
            signal_all(own_postgres, signal.SIGSTOP)
            try:
                answers = await asyncio.gather(*(read() for _ in range(READS)))
            finally:
                signal_all(own_postgres, signal.SIGCONT)
            assert [status for status, _, _ in answers] == [503] * READS, answers
            slowest = max(t for _, t, _ in answers)
            assert slowest < DB_TIMEOUT + 1.0, sorted(t for _, t, _ in answers)
            answers = await asyncio.gather(*(read() for _ in range(READS)))
            assert {(status, body["version"]) for status, _, body in answers} == {(200, 5000)}
    finally:
        await server.close()
