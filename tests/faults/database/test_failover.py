"""The database machine lost: a primary with a synchronous streaming standby, the primary
killed (every process of it, SIGKILL) under a load of moves, the standby promoted. The
service, given both hosts in DATABASE_URL with target_session_attrs=read-write, finds the
new primary by itself; every acknowledged move is on it exactly once, reads are right,
and a live stream's client that reconnects with `after` misses nothing.

Each test has two PostgreSQL servers of its own (tests/faults/database/replicas.py)."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from typing import Any

import aiohttp
import asyncpg
import pytest

from bench.common import fresh_database
from service.app import create_app
from service.base.keys import BACKEND_KEY
from service.live.hub import HUB_KEY
from service.verify.run import verify

from ...conftest import Served, make_settings
from ..driver import Driver, check_log, player_moves
from ..helpers import until
from .replicas import Server, primary_and_standby

PLAYERS = 4
BEFORE = 40  # acknowledged requests before the primary is lost (all players)
AFTER = 5  # acknowledged requests per player on the new primary
FIND_S = 15.0  # the new primary found within this, after its promotion


async def replicated(primary: Server, standby: Server, name: str) -> None:
    """The database `name`, migrated on the primary, and the standby synchronous and
    caught up with it."""
    await fresh_database(primary.url(), name)
    conn = await asyncpg.connect(primary.url())
    try:
        deadline = time.monotonic() + 30
        while await conn.fetchval(
            "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'"
            " AND replay_lsn = pg_current_wal_lsn()"
        ) != 1:
            assert time.monotonic() < deadline, "the standby never caught up"
            await asyncio.sleep(0.1)
    finally:
        await conn.close()


class Watcher:
    """A live stream's client on a game: it keeps the seq of the last event it has and,
    whenever its socket ends, reconnects with `after` that seq."""

    def __init__(self, session: aiohttp.ClientSession, base: str, game_id: str) -> None:
        self.session, self.base, self.game_id = session, base, game_id
        self.events: list[dict[str, Any]] = []
        self.connections = 0
        self.ends: list[str] = []  # how each socket ended, when not by a close frame

    @property
    def last(self) -> int:
        return self.events[-1]["seq"] if self.events else 0

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            url = f"{self.base}/v1/games/{self.game_id}/stream?after={self.last}"
            try:
                async with self.session.ws_connect(url, heartbeat=2.0) as ws:
                    self.connections += 1
                    closing = asyncio.create_task(self._close_on(stop, ws))
                    try:
                        async for message in ws:
                            if message.type != aiohttp.WSMsgType.TEXT:
                                self.ends.append(str(message.type))
                                break
                            data = json.loads(message.data)
                            if "seq" in data:
                                self.events.append(data)
                    finally:
                        closing.cancel()
            except (aiohttp.ClientError, TimeoutError):
                pass
            await asyncio.sleep(0.2)

    @staticmethod
    async def _close_on(stop: asyncio.Event, ws: aiohttp.ClientWebSocketResponse) -> None:
        await stop.wait()
        await ws.close()


@pytest.mark.slow
async def test_a_promoted_synchronous_standby_has_every_acknowledged_move_once() -> None:
    with primary_and_standby(synchronous=True) as (primary, standby):
        await replicated(primary, standby, "failover")
        url = (f"postgresql://postgres@127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
               "/failover?target_session_attrs=read-write")  # fmt: skip
        # two instances: the players' moves go to the first, a stream is watched on the
        # second, which learns of them by its LISTEN connection, which must follow
        # (one write lane: batches of writes, group commit, are under way when it dies)
        server = Served(create_app(make_settings(url, db_timeout=1.0, write_lanes=1)))
        other = Served(create_app(make_settings(url, db_timeout=1.0)))
        await server.start_server()
        await other.start_server()
        base = str(server.make_url("")).rstrip("/")
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=15)) as s:
                drivers = [Driver(s, base, seed, retry_pause=0.1) for seed in range(PLAYERS)]
                for d in drivers:
                    await d.create()
                halt = asyncio.Event()
                watcher = Watcher(s, str(other.make_url("")).rstrip("/"), drivers[0].game_id)
                tasks = [asyncio.create_task(d.run(halt)) for d in drivers]
                watched = asyncio.Event()
                watching = asyncio.create_task(watcher.run(watched))
                try:
                    await until(lambda: sum(d.acknowledged for d in drivers) >= BEFORE, 30,
                                f"{BEFORE} acknowledged requests")
                    acked = {d.game_id: d.acknowledged for d in drivers}
                    await asyncio.to_thread(primary.kill)
                    await asyncio.sleep(1.0)  # (the time it takes to decide to promote)
                    promoted = time.monotonic()  # (asked: pg_ctl returns once it is done)
                    await asyncio.to_thread(standby.promote)
                    await until(
                        lambda: all(d.acknowledged >= acked[d.game_id] + AFTER for d in drivers),
                        FIND_S + 15, f"{AFTER} more acknowledged requests per player",
                    )
                    halt.set()
                    await asyncio.gather(*tasks)
                    # what the first instance took reaches a stream on the second, live
                    final = drivers[0].game.version  # type: ignore[union-attr]
                    await until(lambda: watcher.last >= final, 10, "the stream on the other")
                finally:
                    halt.set()
                    watched.set()
                    await asyncio.gather(*tasks, watching)
                batched = server.app[BACKEND_KEY].store.batched_writes
                assert batched > 0  # group commit was part of it
                hub = other.app[HUB_KEY]
                assert hub.connects >= 2, hub.connects  # its LISTEN followed the new primary
                found = min(sent + took for d in drivers for sent, outcome, took in d.history
                            if outcome == "201" and sent >= promoted)  # fmt: skip
                assert found - promoted < FIND_S, found - promoted
                outcomes = {outcome for d in drivers for _, outcome, _ in d.history}
                assert outcomes <= {"201", "503", "ServerDisconnectedError"}, outcomes
                logs = {d.game_id: await d.log() for d in drivers}
                for d in drivers:
                    check_log(d, logs[d.game_id])
                # the stream, resumed with `after` at each reconnection: every event once
                assert watcher.events == [
                    {k: e[k] for k in ("seq", "type", "data")} | {"at": e["at"]}
                    for e in logs[drivers[0].game_id]
                ], (watcher.connections, [e["seq"] for e in watcher.events])
        finally:
            await server.close()
            await other.close()
        report = await verify(standby.url("failover"))
        assert report.ok, [str(x) for x in report.differences]
        acknowledged = sum(d.acknowledged for d in drivers)
        assert sum(player_moves(log) for log in logs.values()) == acknowledged
        answers = Counter(outcome for d in drivers for _, outcome, _ in d.history)
        print(f"\nfailover: {acknowledged} requests acknowledged, each once on the promoted"
              f" standby ({batched} written in batches); the first 201"
              f" {found - promoted:.2f} s after the promotion was asked; all attempts:"
              f" {dict(answers)}; the stream's connections: {watcher.connections}")
