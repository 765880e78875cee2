"""The service behind PgBouncer in transaction mode (DATABASE_POOLER=transaction): games,
batches, retries, conflicts between instances, a race, live events (the listener on the
direct LISTEN_DATABASE_URL), migrations through the pooler, one round trip per move.

The module runs its own pgbouncer (Debian's package; `make test` installs it when missing
and it runs as root) in front of the tests' PostgreSQL server."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import pytest
from aiohttp.test_utils import TestClient

from service.app import create_app
from service.base.settings import Settings
from service.database.connections import POOLER_HINT, create_pool
from service.database.migrate import upgrade
from service.database.probe import transaction_pooler
from service.database.store import EventStore
from service.live import beats
from service.live.hub import HUB_KEY

from ...conftest import NATS_SERVER, make_settings
from ...pgbouncer import Pgbouncer, installed
from ..games.helpers import batch
from ..helpers import auth, instance, new_game, new_player, shortest
from ..live.helpers import as_json, events_of, instances, receive, write
from ..races.helpers import race_from_creation_to_ranking as race_flow


@pytest.fixture(scope="module")
def pooler(pg_server_url: str) -> Iterator[Pgbouncer]:
    if installed() is None:
        if os.geteuid() == 0:  # CI: make test installs it; missing, the tests must not pass
            pytest.fail("pgbouncer is not installed (apt-get install pgbouncer; make test "
                        "installs it)")  # fmt: skip
        pytest.skip("pgbouncer is not installed: apt-get install pgbouncer (make test does,"
                    " as root)")  # fmt: skip
    with Pgbouncer(pg_server_url) as p:
        yield p


def database(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def through(pooler: Pgbouncer, db_url: str, **more: Any) -> dict[str, Any]:
    """Settings of an instance behind the pooler, listening on the direct connection."""
    return {
        "database_url": pooler.url(database(db_url)),
        "database_pooler": "transaction",
        "listen_database_url": db_url,
        **more,
    }


@pytest.fixture
async def pooled(db_url: str, pooler: Pgbouncer) -> AsyncIterator[TestClient]:
    """The app behind the pooler (every answer checked against openapi.yaml)."""
    client = instance(db_url, **through(pooler, db_url))
    async with client:
        yield client


async def test_a_game_through_the_pooler(pooled: TestClient) -> None:
    """Player, game, moves, undo, redo, a batch, a retried request, the log."""
    ada = await new_player(pooled)
    game = await new_game(pooled, ada, deal=617, autoplay=False)
    gid = game["id"]
    url = f"/v1/games/{gid}"
    r = await pooled.post(f"{url}/moves", json={"from": "t1", "to": "c"}, headers=auth(ada))
    assert r.status == 201, await r.text()
    r = await pooled.post(f"{url}/undo", json={"expected_version": 2}, headers=auth(ada))
    assert r.status == 201 and (await r.json())["game"]["state"] == game["state"]
    r = await pooled.post(f"{url}/redo", json={}, headers=auth(ada))
    assert r.status == 201 and (await r.json())["game"]["state"]["cells"][0] == "JD"
    hops = [{"from": "c1", "to": "c2"}, {"from": "c2", "to": "c3"}]
    answer = await batch(pooled, ada, gid, hops, expected_version=4)
    assert [e["seq"] for e in answer["events"]] == [5, 6]
    # a retry with the same key gets the first answer and appends nothing
    key = {**auth(ada), "Idempotency-Key": "hop-back"}
    first = await pooled.post(f"{url}/moves", json={"from": "c3", "to": "c1"}, headers=key)
    again = await pooled.post(f"{url}/moves", json={"from": "c3", "to": "c1"}, headers=key)
    assert first.status == again.status == 201
    assert await again.json() == await first.json()
    log = await events_of(pooled, gid)
    assert [e["type"] for e in log] == [
        "GameCreated", "CardMoved", "MoveUndone", "MoveRedone", "CardMoved", "CardMoved",
        "CardMoved",
    ]  # fmt: skip
    r = await pooled.get(f"{url}/legal-moves")
    assert r.status == 200 and (await r.json())["moves"]


async def test_a_whole_game_won_on_the_boards(pooled: TestClient) -> None:
    """A win through the pooler reaches the board (the leaderboard reads run in a
    read-only transaction of their own)."""
    deal, line = shortest("freecell")
    ada = await new_player(pooled)
    gid = (await new_game(pooled, ada, deal=deal, autoplay=False))["id"]
    won = await batch(pooled, ada, gid, [m.to_dict() for m in line])
    assert won["game"]["status"] == "won"
    r = await pooled.get(f"/v1/leaderboards/freecell/{deal}")
    assert r.status == 200, await r.text()
    entries = (await r.json())["entries"]
    assert [e["player"]["name"] for e in entries] == ["ada"]


class RoundTrips:
    """A TCP relay between the service and the pooler that counts round trips: each time
    a client, having been answered, speaks again."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.count = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> RoundTrips:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        answered = asyncio.Event()
        answered.set()

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, up: bool) -> None:
            try:
                while data := await src.read(65536):
                    if up and answered.is_set():
                        self.count += 1
                        answered.clear()
                    elif not up:
                        answered.set()
                    dst.write(data)
                    await dst.drain()
            except ConnectionError:
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer, False))


async def test_one_round_trip_per_move(
    db_url: str, pooler: Pgbouncer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move is one statement, sent as one message (Parse, Bind, Execute, Sync): one
    round trip through the pooler, as on a direct connection. (asyncpg without its
    statement cache would first prepare it: Parse, Describe, Flush, and wait: two.)"""
    # the listener's beats, but the first, out of the count (service/live/beats.py)
    monkeypatch.setattr(beats, "BEAT_EVERY", 3600.0)
    async with RoundTrips(pooler.listen_port) as relay:
        # one pool connection; no race clock asking for races due meanwhile
        settings = through(pooler, db_url, pool_min=1, pool_max=1, race_tick_s=3600)
        settings["database_url"] = settings["database_url"].replace(
            f":{pooler.listen_port}/", f":{relay.port}/"
        )
        client = instance(db_url, **settings)
        async with client:
            client.app[HUB_KEY].publish_every = 3600  # no NOTIFY through the pool meanwhile
            ada = await new_player(client)
            gid = (await new_game(client, ada, deal=617, autoplay=False))["id"]
            url = f"/v1/games/{gid}/moves"
            r = await client.post(url, json={"from": "t1", "to": "c1"}, headers=auth(ada))
            assert r.status == 201
            before = relay.count
            moves = 20
            for j in range(moves):
                hop = {"from": f"c{1 + j % 4}", "to": f"c{1 + (j + 1) % 4}"}
                r = await client.post(url, json=hop, headers=auth(ada))
                assert r.status == 201, await r.text()
            assert relay.count - before == moves


async def test_the_same_expected_version_from_two_instances(
    db_url: str, pooler: Pgbouncer
) -> None:
    """Two instances behind the pooler move one game at the same expected_version at
    once, many times: one 201, one 409, and the log holds the one."""
    settings = through(pooler, db_url)
    async with instances(db_url, settings, settings) as (a, b):
        ada = await new_player(a)
        for _ in range(6):
            gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
            await b.get(f"/v1/games/{gid}")  # both know the game at version 1
            ra, rb = await asyncio.gather(
                a.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c1",
                       "expected_version": 1}, headers=auth(ada)),
                b.post(f"/v1/games/{gid}/moves", json={"from": "t2", "to": "c1",
                       "expected_version": 1}, headers=auth(ada)),
            )  # fmt: skip
            assert sorted((ra.status, rb.status)) == [201, 409]
            winner = await (ra if ra.status == 201 else rb).json()
            log = await events_of(a, gid)
            assert [e["seq"] for e in log] == [1, 2]
            assert log[1]["data"] == winner["events"][0]["data"]


async def test_live_events_reach_another_instance(db_url: str, pooler: Pgbouncer) -> None:
    """B's watcher sees A's moves at once, the sweep out of the way: A's NOTIFY went
    through the pooler, B LISTENs on the direct connection."""
    settings = through(pooler, db_url, ws_sweep=3600)
    async with instances(db_url, settings, settings) as (a, b):
        assert all(c.app[HUB_KEY].listening.is_set() for c in (a, b))
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=True))["id"]
        wb = await b.ws_connect(f"/v1/games/{gid}/stream")
        assert len(await receive(wb, 1)) == 1
        rng = random.Random(19)
        for _ in range(6):
            answer = await write(a, ada, gid, rng)
            started = time.monotonic()
            got = await receive(wb, len(answer["events"]))
            assert got == as_json(answer["events"])
            assert time.monotonic() - started < 2.0
        await wb.close()


@pytest.mark.skipif(NATS_SERVER is None,
                    reason="nats-server (Debian: nats-server) is needed")
async def test_live_events_through_the_broker_with_no_direct_connection(
    db_url: str, pooler: Pgbouncer, nats_url: str,
) -> None:
    """With EVENTS_BROKER, nothing of the service's is direct: B's watcher still sees
    A's moves at once."""
    settings = through(pooler, db_url, ws_sweep=3600, listen_database_url=None,
                       events_broker=nats_url)  # fmt: skip
    async with instances(db_url, settings, settings) as (a, b):
        assert all(c.app[HUB_KEY].listening.is_set() for c in (a, b))
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=True))["id"]
        wb = await b.ws_connect(f"/v1/games/{gid}/stream")
        assert len(await receive(wb, 1)) == 1
        rng = random.Random(20)
        for _ in range(4):
            answer = await write(a, ada, gid, rng)
            got = await receive(wb, len(answer["events"]))
            assert got == as_json(answer["events"])
        await wb.close()


async def test_a_race_through_the_pooler(pooled: TestClient) -> None:
    await race_flow(pooled)


async def test_without_a_direct_listener_the_service_does_not_start(
    db_url: str, pooler: Pgbouncer
) -> None:
    """LISTEN through a pooler in transaction mode would listen on whichever server
    connection ran it: with neither LISTEN_DATABASE_URL nor EVENTS_BROKER, the service
    refuses to start rather than lose its live events."""
    settings = make_settings(db_url, **through(pooler, db_url, listen_database_url=None))
    with pytest.raises(RuntimeError, match="LISTEN_DATABASE_URL"):
        create_app(settings)
    assert Settings(database_pooler="transaction", events_broker="nats://127.0.0.1:4222",
                    database_url=db_url).listener_problem() is None  # fmt: skip


async def test_migrations_and_the_store_through_the_pooler(
    pg_server_url: str, pooler: Pgbouncer
) -> None:
    """An empty database migrated through the pooler (alembic in one transaction, no
    prepared statements kept), then the store's reads on it."""
    from service.database.embedded import with_database

    name = f"t_pooled_{os.getpid()}"
    conn = await asyncpg.connect(pg_server_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    try:
        await asyncio.to_thread(upgrade, pooler.url(name), True)
        direct = await asyncpg.connect(with_database(pg_server_url, name))
        try:
            version = await direct.fetchval("SELECT version_num FROM alembic_version")
            functions = await direct.fetchval(
                "SELECT count(*) FROM pg_proc WHERE proname = 'record_events'"
            )
        finally:
            await direct.close()
        assert version and functions >= 1
        pool = await create_pool(pooler.url(name), 2, 4, pooler=True)
        try:
            store = EventStore(pool)
            results = await asyncio.gather(*(store.versions([]) for _ in range(40)))
            assert results == [{}] * 40
        finally:
            await pool.close()
    finally:
        conn = await asyncpg.connect(pg_server_url)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


async def test_a_lost_prepared_statement_names_the_setting(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """What a transaction-mode pooler does to a service not told about it (a named
    statement gone from the server connection), made on purpose: the log says which
    setting is missing."""
    pool = await create_pool(db_url, 1, 1)
    try:
        store = EventStore(pool)
        assert await store.read_events(uuid.uuid4()) == []  # prepared, named, cached
        async with pool.acquire() as conn:
            await conn.execute("DEALLOCATE ALL")
        with (
            caplog.at_level(logging.ERROR, logger="service.database.store"),
            pytest.raises(asyncpg.exceptions.InvalidSQLStatementNameError),
        ):
            await store.read_events(uuid.uuid4())
        assert POOLER_HINT in caplog.text and "DATABASE_POOLER=transaction" in caplog.text
    finally:
        await pool.close()


@pytest.mark.parametrize("pool_size", [20, 1])
async def test_the_probe_tells_a_transaction_pooler_from_a_session(
    db_url: str, pg_server_url: str, pool_size: int
) -> None:
    """Direct, or through a pooler in session mode, a client keeps its backend: no pooler
    to be told of. In transaction mode, with one server connection or more: one."""
    name = database(db_url)
    assert await transaction_pooler(db_url) is False
    with Pgbouncer(pg_server_url, pool_size=pool_size, pool_mode="session") as session:
        assert await transaction_pooler(session.url(name)) is False
    with Pgbouncer(pg_server_url, pool_size=pool_size) as transaction:
        assert await transaction_pooler(transaction.url(name)) is True


async def test_a_service_not_told_of_the_pooler_does_not_start(
    db_url: str, pooler: Pgbouncer, tmp_path: Path
) -> None:
    """Behind a pooler in transaction mode without DATABASE_POOLER, the service would lose
    its prepared statements at the first move (a 500): it does not start, and says which
    settings to give."""
    env = {**os.environ, "DATABASE_URL": pooler.url(database(db_url)), "PORT": "0",
           "DATA_DIR": str(tmp_path)}  # fmt: skip
    env.pop("DATABASE_POOLER", None)
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "service", "run"], env=env,
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "DATABASE_POOLER=transaction" in done.stderr
    assert "LISTEN_DATABASE_URL" in done.stderr
