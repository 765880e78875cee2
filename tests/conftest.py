"""Shared fixtures: a real PostgreSQL (embedded unless DATABASE_URL is set), one fresh
database per test made from a migrated template, and the app on aiohttp's test client."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import asyncpg
import psutil
import pytest
from aiohttp.test_utils import TestClient, TestServer
from aiohttp.web_runner import BaseRunner

ROOT = Path(__file__).resolve().parent.parent
# this machine's mark in the names of its test templates: a PostgreSQL server shared by
# several machines (or containers, each with its own process ids) has each one's
# templates, and a session takes for stale only its own machine's
MACHINE = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """The server's URL (its maintenance database)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        from service.database.embedded import asyncpg_dsn

        yield asyncpg_dsn(url)
        return
    from service.database.embedded import EmbeddedPostgres

    embedded = EmbeddedPostgres(ROOT / ".pgdata-test")
    yield embedded.start()


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


@pytest.fixture(scope="session")
def template_db(pg_server_url: str) -> Iterator[str]:
    """A database migrated to head, used as the template of every test's database;
    dropped when the session ends."""
    from service.database.embedded import with_database
    from service.database.migrate import upgrade

    name = f"solitaire_tmpl_{MACHINE}_{_worker()}_{os.getpid()}"

    async def execute(*statements: str) -> None:
        conn = await asyncpg.connect(pg_server_url)
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()

    async def stale() -> list[str]:
        """Templates of earlier sessions on this machine whose process is gone (a worker
        that was stopped before its teardown leaves its template behind); another
        machine's are left alone, whatever its process ids."""
        conn = await asyncpg.connect(pg_server_url)
        try:
            names = await conn.fetch(
                "SELECT datname FROM pg_database WHERE datname LIKE $1",
                f"solitaire\\_tmpl\\_{MACHINE}\\_%",
            )
        finally:
            await conn.close()
        gone = []
        for (db,) in names:
            pid = db.rsplit("_", 1)[-1]
            if pid.isdigit() and not psutil.pid_exists(int(pid)):
                gone.append(db)
        return gone

    for db in asyncio.run(stale()):
        with contextlib.suppress(asyncpg.PostgresError):  # another worker dropped it first
            asyncio.run(execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))
    asyncio.run(execute(f'DROP DATABASE IF EXISTS "{name}"', f'CREATE DATABASE "{name}"'))
    upgrade(with_database(pg_server_url, name))
    yield name
    asyncio.run(execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
async def db_url(pg_server_url: str, template_db: str) -> AsyncIterator[str]:
    """A fresh, migrated database for one test, dropped afterwards."""
    from service.database.embedded import with_database

    name = f"t_{uuid.uuid4().hex[:20]}"
    conn = await asyncpg.connect(pg_server_url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_db}"')
    finally:
        await conn.close()
    yield with_database(pg_server_url, name)
    conn = await asyncpg.connect(pg_server_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


# TEST_POOLER=pgbouncer (make test-pooler): every service instance the tests start reaches
# PostgreSQL through a pgbouncer of this test process in transaction mode
# (DATABASE_POOLER=transaction), its live-event listener on the direct connection
# (LISTEN_DATABASE_URL); one pgbouncer per server, stopped when the session ends
_POOLERS: dict[tuple[str, int], Any] = {}


def through_pooler(db_url: str) -> dict[str, str]:
    """The settings that put an instance on `db_url` behind the session's pgbouncer, when
    TEST_POOLER is set (else none)."""
    if not os.environ.get("TEST_POOLER"):
        return {}
    from tests.pgbouncer import Pgbouncer

    pooler = Pgbouncer(db_url)
    key = (pooler.host, pooler.port)
    if key not in _POOLERS:
        _POOLERS[key] = pooler.start()
    parts = urlsplit(db_url)
    return {
        "database_url": _POOLERS[key].url(parts.path.lstrip("/")),
        "database_pooler": "transaction",
        "listen_database_url": db_url,
    }


def pytest_sessionfinish() -> None:
    for pooler in _POOLERS.values():
        pooler.stop()
    _POOLERS.clear()


# the broker's server, if installed (Debian puts it in /usr/sbin, off a user's PATH)
NATS_SERVER = shutil.which("nats-server") or shutil.which("nats-server", path="/usr/sbin:/sbin")


class NatsServer:
    """A nats-server of the tests' own (Debian's package) on a free port."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"nats://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [NATS_SERVER or "nats-server", "-a", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if time.monotonic() > deadline:
                raise AssertionError("nats-server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture(scope="session")
def nats_url() -> Iterator[str]:
    """The broker of the tests that run through NATS: EVENTS_BROKER when set (the whole
    suite then runs through it), else a nats-server of this session's own."""
    url = os.environ.get("EVENTS_BROKER")
    if url:
        yield url
        return
    if NATS_SERVER is None:
        pytest.skip("nats-server (Debian: nats-server) is needed")
    server = NatsServer()
    server.start()
    yield server.url
    server.stop()


@pytest.fixture(params=["listen", "nats"])
def transport(request: pytest.FixtureRequest) -> dict[str, object]:
    """The settings of the live events' wake-ups, once for each transport: PostgreSQL's
    LISTEN/NOTIFY, and NATS (EVENTS_BROKER)."""
    if request.param == "listen":
        return {"events_broker": None}
    return {"events_broker": request.getfixturevalue("nats_url")}


def make_settings(db_url: str, **overrides: object):  # type: ignore[no-untyped-def]
    from service.base.settings import Settings

    values: dict[str, object] = {
        "database_url": db_url,
        **through_pooler(db_url),
        "log_requests": False,
        "rate_limits": "off",
        "pool_min": 1,
        "pool_max": 8,
        # scripted players move faster than a hand: their wins count on the default boards
        # here; tests of the pace rule set it back
        "min_median_move_ms": 0,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


class Served(TestServer):
    """aiohttp's TestServer serving the app as `service run` does: the front first, where
    the 304s memory gives are answered (service/serving/front.py)."""

    async def _make_runner(self, **kwargs: Any) -> BaseRunner:
        from service.serving.server import FrontRunner

        return FrontRunner(self.app, **kwargs)


# what a test's request may take at most: a service that never answers fails the test at
# that request (aiohttp's default, 300 s, is the whole test's time: it said nothing of where)
REQUEST_TIMEOUT = aiohttp.ClientTimeout(total=60)


@pytest.fixture
async def client(db_url: str) -> AsyncIterator[TestClient]:
    from service.app import create_app
    from tests.openapi_check import validating_trace_config

    app = create_app(make_settings(db_url))
    # every response is checked against openapi.yaml, so the two cannot drift
    async with TestClient(
        Served(app), timeout=REQUEST_TIMEOUT, trace_configs=[validating_trace_config()]
    ) as c:
        yield c


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses a database is marked `db` (CI runs them on two servers)."""
    for item in items:
        if "db_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.db)
