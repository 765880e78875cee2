"""The embedded PostgreSQL (no DATABASE_URL) is the service's own: when it dies (its
postmaster killed, as the kernel's OOM killer does), the serving process starts it again,
and the service takes up its work with nothing acknowledged lost."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections import Counter
from pathlib import Path

import aiohttp
import psutil

from service.database.embedded import EmbeddedPostgres, stop_embedded

from ..driver import new_game
from ..helpers import ServiceProcess, postgres_processes, private_postgres


async def test_the_embedded_database_killed_is_started_again_and_keeps_what_was_acknowledged(
    tmp_path: Path,
) -> None:
    with private_postgres() as pg:  # (its folder: the service starts the server there)
        await killed_and_started_again(pg, tmp_path)


async def killed_and_started_again(pg: EmbeddedPostgres, tmp_path: Path) -> None:
    folder = pg.data_dir

    def postmaster() -> int:
        return postgres_processes(pg)[0].pid

    svc = ServiceProcess("", tmp_path / "service.log", DATA_DIR=str(folder), DB_TIMEOUT="1")
    try:
        svc.start()
        await svc.ready(timeout=180)  # (a new server: initdb first)
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{svc.base}/v1/players", json={"name": "phoenix"}) as r:
                assert r.status == 201, await r.text()
                token = (await r.json())["token"]
            auth = {"Authorization": f"Bearer {token}"}
            game = await new_game(s, svc.base, token, "freecell", 617, autoplay=False)
            moves = f"{svc.base}/v1/games/{game['id']}/moves"
            async with s.post(moves, json={"from": "t1", "to": "c1"}, headers=auth) as r:
                assert r.status == 201, await r.text()

            first = postmaster()
            os.kill(first, signal.SIGKILL)
            # started again, by the service (its old backends may answer a moment more)
            deadline = time.monotonic() + 60
            while True:
                with contextlib.suppress(OSError, ValueError, IndexError, psutil.Error):
                    if postmaster() != first:
                        break
                assert time.monotonic() < deadline, (
                    "the embedded PostgreSQL was not started again within 60 s\n"
                    + svc.output()[-3000:]
                )
                await asyncio.sleep(0.1)

            # the next move, sent again with its key until it is taken: 503s meanwhile
            key = {**auth, "Idempotency-Key": "after-the-kill-0001"}
            answers: list[int] = []
            deadline = time.monotonic() + 60
            while True:
                with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                    async with s.post(moves, json={"from": "c1", "to": "c2"}, headers=key,
                                      timeout=aiohttp.ClientTimeout(total=5)) as r:
                        answers.append(r.status)
                        if r.status == 201:
                            break
                        assert r.status == 503, await r.text()
                        assert "Retry-After" in r.headers
                assert time.monotonic() < deadline, (
                    f"no move taken within 60 s of the kill: {Counter(answers)}\n"
                    + svc.output()[-3000:]
                )
                await asyncio.sleep(0.2)

            async with s.get(f"{svc.base}/v1/games/{game['id']}/events") as r:
                assert r.status == 200
                log = (await r.json())["events"]
            played = [(e["data"]["from"], e["data"]["to"]) for e in log
                      if e["type"] == "CardMoved"]  # fmt: skip
            assert played == [("t1", "c1"), ("c1", "c2")]
    finally:
        svc.stop()
        with contextlib.suppress(Exception):  # (the service's server: private_postgres's
            stop_embedded(folder)  # own stop needs a server it started itself)
