"""What the benchmarks share: a database, free ports, subprocess servers (the service alone
among them), percentiles."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import psutil

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def database_url() -> str:
    """DATABASE_URL, or an embedded PostgreSQL in .pgdata-bench."""
    url = os.environ.get("DATABASE_URL")
    if url:
        from service.database.embedded import asyncpg_dsn

        return asyncpg_dsn(url)
    from service.database.embedded import EmbeddedPostgres

    return EmbeddedPostgres(ROOT / ".pgdata-bench").start()


async def fresh_database(server_url: str, name: str) -> str:
    """A new, migrated database on the server (dropped first if it exists)."""
    import asyncpg

    from service.database.embedded import with_database
    from service.database.migrate import upgrade

    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    url = with_database(server_url, name)
    await asyncio.to_thread(upgrade, url)
    return url


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_process(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """A server in the background; its output goes to a log file in the temp folder."""
    log = tempfile.NamedTemporaryFile(prefix="bench-", suffix=".log", delete=False)  # noqa: SIM115
    return subprocess.Popen(
        args, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=log, stderr=log,
        start_new_session=True,  # its own group: stop_process ends whatever it started
    )


async def wait_http(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as s:
        while True:
            try:
                async with s.get(url) as r:
                    if r.status < 500:
                        return
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer within {timeout} s")
            await asyncio.sleep(0.1)


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


PYTHON = sys.executable


def cpu_total(procs: list[psutil.Process]) -> float:
    """User + system CPU of these processes so far (those gone since are skipped)."""
    total = 0.0
    for proc in procs:
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


@contextlib.asynccontextmanager
async def lone_service(name: str) -> AsyncIterator[tuple[str, str, subprocess.Popen[bytes]]]:
    """The service as `make run` starts it, with one worker and rate limits off, on a fresh
    database `name`: its base URL, a new player's token and its process (stopped after)."""
    db = await fresh_database(database_url(), name)
    port = free_port()
    proc = start_process([PYTHON, "-m", "service", "run"],
                         {"PORT": str(port), "DATABASE_URL": db, "RATE_LIMITS": "off",
                          "WORKERS": "1"})  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        await wait_http(f"{base}/healthz")
        async with (
            aiohttp.ClientSession() as s,
            s.post(f"{base}/v1/players", json={"name": "bench"}) as r,
        ):
            token = (await r.json())["token"]
        yield base, token, proc
    finally:
        stop_process(proc)
