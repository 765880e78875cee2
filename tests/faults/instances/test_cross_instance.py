"""Two service processes on one database: what a client is told by one holds on the other
at once. A move answered by a (201): b's next answer to the replaced tag is the new game,
never a 304 (a's answer waits until a hears its own NOTIFY back, which PostgreSQL delivers
to every listener at the commit); a token signed out on a (204): b refuses it next (401),
by the database's word. And after the database restarted, a move made on one instance
reaches the watchers of the other within a second of its return."""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import psutil
import pytest

from service.live import beats
from service.live.beats import PROOF_FOR
from service.live.hub import APPLICATION_NAME, HUB_KEY

from ...api.helpers import auth, instance, new_game, new_player
from ...api.live.helpers import receive
from ..helpers import ServiceProcess, migrated_database, private_postgres

TRIES = 300


@pytest.fixture
def two(db_url: str, tmp_path: Path) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    a = ServiceProcess(db_url, tmp_path / "a.log")
    b = ServiceProcess(db_url, tmp_path / "b.log")
    try:
        a.start()
        b.start()
        yield a, b
    finally:
        a.stop()
        b.stop()


async def call(s: aiohttp.ClientSession, method: str, url: str, status: int,
               token: str | None = None, **kw: Any) -> Any:
    headers = {**kw.pop("headers", {})}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with s.request(method, url, headers=headers, **kw) as r:
        assert r.status == status, (method, url, r.status, await r.text())
        return await r.json() if r.status not in (204, 304) else None


async def test_a_move_answered_by_one_instance_holds_on_the_other_at_once(
    two: tuple[ServiceProcess, ServiceProcess],
) -> None:
    a, b = two
    await a.ready()
    await b.ready()
    async with aiohttp.ClientSession() as s:
        ada = await call(s, "POST", f"{a.base}/v1/players", 201, json={"name": "ada"})
        token = ada["token"]
        game = await call(s, "POST", f"{a.base}/v1/games", 201, token,
                          json={"variant": "freecell", "deal": 617, "autoplay": False})
        url = f"/v1/games/{game['id']}"
        await call(s, "POST", f"{a.base}{url}/moves", 201, token, json={"from": "t1", "to": "c1"})
        stale = []
        for n in range(TRIES):
            async with s.get(b.base + url) as r:  # b reads the log: its memory is current
                tag = r.headers["ETag"]
            await call(s, "GET", b.base + url, 304, headers={"If-None-Match": tag})
            source, target = ("c1", "c2") if n % 2 == 0 else ("c2", "c1")
            await call(s, "POST", f"{a.base}{url}/moves", 201, token,
                       json={"from": source, "to": target})
            async with s.get(b.base + url, headers={"If-None-Match": tag}) as r:
                if r.status == 304:
                    stale.append(n)
        assert stale == [], f"b answered 304 for the replaced version at tries {stale}"


async def test_a_token_signed_out_on_one_instance_is_refused_by_the_other_next(
    two: tuple[ServiceProcess, ServiceProcess],
) -> None:
    a, b = two
    await a.ready()
    await b.ready()
    async with aiohttp.ClientSession() as s:
        ada = await call(s, "POST", f"{a.base}/v1/players", 201, json={"name": "ada"})
        accepted = []
        for n in range(TRIES):
            device = await call(s, "POST", f"{a.base}/v1/players/me/tokens", 201,
                                ada["token"], json={"device": f"phone {n}"})
            await call(s, "GET", f"{b.base}/v1/players/me", 200, device["token"])  # b keeps it
            await call(s, "DELETE", f"{a.base}/v1/players/me/tokens/{device['id']}", 204,
                       ada["token"])
            async with s.get(f"{b.base}/v1/players/me",
                             headers={"Authorization": f"Bearer {device['token']}"}) as r:
                if r.status != 401:
                    accepted.append((n, r.status))
        assert accepted == [], f"b took a signed-out token: {accepted}"


async def test_a_listener_that_hangs_stops_vouching_for_memory_within_its_proof(
    tmp_path: Path,
) -> None:
    """A listening connection that stops delivering without closing (its server process
    stopped here: a stuck backend, a half-open connection): within PROOF_FOR its instance
    answers from the log again, not from memory, and refuses a token signed out
    elsewhere (the LISTEN probe alone noticed it only after some 20 s)."""
    with private_postgres() as pg:
        url = await migrated_database(pg, "beats")
        async with instance(url) as a, instance(url) as b:
            ada = await new_player(a)
            device = await (await a.post("/v1/players/me/tokens", json={"device": "phone"},
                                         headers=auth(ada))).json()
            assert (await a.get("/v1/players/me", headers=auth(device))).status == 200
            gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
            tag = (await a.get(f"/v1/games/{gid}")).headers["ETag"]
            assert (await a.get(f"/v1/games/{gid}", headers={"If-None-Match": tag})).status == 304

            listeners = await listener_processes(url)
            assert len(listeners) == 2
            for proc in listeners:
                proc.send_signal(signal.SIGSTOP)
            try:
                frozen = time.monotonic()
                moved = await b.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c1"},
                                     headers=auth(ada))
                assert moved.status == 201
                gone = await b.delete(f"/v1/players/me/tokens/{device['id']}",
                                      headers=auth(ada))
                assert gone.status == 204
                # (a 304 from memory now waits for a beat of a's, which cannot come back)
                while (await a.get(f"/v1/games/{gid}",
                                   headers={"If-None-Match": tag})).status == 304:
                    assert time.monotonic() - frozen < PROOF_FOR + 1.0, "a vouched too long"
                    await asyncio.sleep(0.05)
                while (await a.get("/v1/players/me", headers=auth(device))).status != 401:
                    assert time.monotonic() - frozen < PROOF_FOR + 1.0, "a took the token"
                    await asyncio.sleep(0.05)
            finally:
                for proc in listeners:
                    proc.send_signal(signal.SIGCONT)


async def listener_processes(server_url: str) -> list[psutil.Process]:
    conn = await asyncpg.connect(server_url)
    try:
        pids = await conn.fetch("SELECT pid FROM pg_stat_activity WHERE application_name = $1",
                                APPLICATION_NAME)
    finally:
        await conn.close()
    return [psutil.Process(row["pid"]) for row in pids]


async def test_an_instance_alone_skips_the_grace_and_knows_a_new_one_before_it_serves(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An instance that heard no other for ALONE_AFTER answers its 304s from memory at
    once (it waits for no beat); one that starts beside it is heard before it answers anything:
    its start waits for its first beat to come back."""
    monkeypatch.setattr(beats, "BEAT_EVERY", 0.1)
    monkeypatch.setattr(beats, "ALONE_AFTER", 0.35)
    async with instance(db_url) as a:
        hub_a = a.app[HUB_KEY]
        assert hub_a.others()  # just started: it cannot know yet
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        tag = (await a.get(f"/v1/games/{gid}")).headers["ETag"]
        await asyncio.sleep(0.5)
        assert not hub_a.others()
        assert (await a.get(f"/v1/games/{gid}", headers={"If-None-Match": tag})).status == 304
        async with instance(db_url) as b:
            assert hub_a.others() and b.app[HUB_KEY].others()
            moved = await b.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"},
                                 headers=auth(ada))
            assert moved.status == 201
            assert (await a.get(f"/v1/games/{gid}", headers={"If-None-Match": tag})).status == 200
            await asyncio.sleep(0.5)  # each hears the other's beats: neither is alone
            assert hub_a.others() and b.app[HUB_KEY].others()


async def test_a_move_reaches_the_other_instances_watcher_within_a_second_of_a_restart(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """b only serves a watcher: it writes nothing, so only its listener's own tries tell
    it that the database is back. The database, stopped for 4 s, comes back just after
    one of them failed, when the wait for the next is longest (2.6 s or more with the
    old backoff, which doubled to 5 s), and b's sweep is off: a's move made at once
    reaches b's watcher within a second of the return. Nor did the listener try more
    than about twice a second meanwhile, and each instance warned once that its listener
    and its race clock failed, not at each try."""
    caplog.set_level(logging.DEBUG, logger="service.stream")
    caplog.set_level(logging.DEBUG, logger="service.races")

    def tries() -> int:  # b's listener's failed tries (a's listener stays down)
        return sum(r.getMessage().startswith("stream: listening failed") for r in caplog.records)

    with private_postgres() as pg:
        url = await migrated_database(pg, "restart")
        async with instance(url, ws_sweep=3600) as a, instance(url, ws_sweep=3600) as b:
            a.app[HUB_KEY].retry_first = a.app[HUB_KEY].retry_max = 60.0
            ada = await new_player(a)
            gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
            watcher = await b.ws_connect(f"/v1/games/{gid}/stream")
            assert len(await receive(watcher, 1)) == 1
            await asyncio.to_thread(pg.stop, "immediate")
            down = time.monotonic()
            await asyncio.sleep(4.0)
            before = tries()
            while tries() == before:  # (b's listener tries within 5 s, old or new)
                assert time.monotonic() - down < 12.0, "b's listener tried nothing"
                await asyncio.sleep(0.005)
            await asyncio.to_thread(pg.restart)
            back = time.monotonic()
            assert tries() <= 4 + (back - down) / 0.4, f"{tries()} tries in {back - down:.1f} s"
            warned = [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= 30]
            for logger in ("service.stream", "service.races"):  # (a's, b's)
                assert sum(name == logger for name, _ in warned) == 2, warned
            key = {"Idempotency-Key": "a move after the restart"}
            while (moved := await a.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c1"},
                                         headers={**auth(ada), **key})).status == 503:
                await asyncio.sleep(0.01)
            assert moved.status == 201, await moved.text()
            made = time.monotonic() - back
            [event] = await receive(watcher, 1)
            took = time.monotonic() - back
            print(f"\nrestart: a's move made {made:.2f} s and at b's watcher {took:.2f} s"
                  f" after the database was back, b's listener tried {tries()} times")
            assert event["seq"] == 2 and took < 1.0, f"at b's watcher {took:.2f} s after"
            await watcher.close()
