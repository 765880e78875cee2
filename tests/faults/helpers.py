"""What the fault tests share: the service as a real process, and a PostgreSQL of a test's
own (the players that keep making moves are in driver.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import aiohttp
import psutil

from bench.common import fresh_database
from service.database.embedded import EmbeddedPostgres

from ..conftest import through_pooler

ROOT = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)


class ServiceProcess:
    """`python -m service run` on a port of its own, with its output in a file."""

    def __init__(self, db_url: str, log: Path, **env: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.env = {
            **os.environ,
            "DATABASE_URL": db_url,
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "RATE_LIMITS": "off",
            "LOG_REQUESTS": "false",
            "WORKERS": "1",
            # TEST_POOLER: behind the session's pgbouncer (tests/conftest.py)
            **{k.upper(): v for k, v in through_pooler(db_url).items()},
            **env,
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None
        self.starts += 1
        with self.log.open("ab") as out:
            out.write(f"--- start {self.starts}\n".encode())
            out.flush()
            # its own session (process group): the teardown kills the group, so nothing it
            # started (the solver's forkserver and workers) outlives the test
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "service", "run"],
                cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    async def ready(self, timeout: float = 30.0) -> float:
        """Seconds until /healthz answers 200 from this service: a port another test's
        service took meanwhile (free_port's, chosen by two test workers at once) answers
        too, and this one exits, refused the port; at its first start it takes another."""
        started = time.monotonic()
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as s:
            while True:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    if self.starts == 1 and "cannot be served" in self.output():
                        self.port = free_port()
                        self.env["PORT"] = str(self.port)
                        self.base = f"http://127.0.0.1:{self.port}"
                        self.start()
                        continue
                    raise AssertionError(f"the service exited ({self.proc.returncode}):\n"
                                         + self.output()[-3000:])
                try:
                    async with s.get(f"{self.base}/healthz") as r:
                        if r.status == 200 and self.listens():
                            return time.monotonic() - started
                except (aiohttp.ClientError, TimeoutError):
                    pass
                if time.monotonic() - started > timeout:
                    raise AssertionError("the service did not become ready:\n"
                                         + self.output()[-3000:])
                await asyncio.sleep(0.05)

    def signal(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL, and wait until the process is gone."""
        self.signal(signal.SIGKILL)  # (which asserts there is one)
        self.proc.wait(10)  # type: ignore[union-attr]

    async def exited(self, timeout: float) -> int:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the service was still running after {timeout} s, its"
                                     f" processes {self.group()}:\n{self.output()[-3000:]}")
            await asyncio.sleep(0.02)
        return self.proc.returncode

    def stop(self) -> None:
        """For fixture teardown: whatever state it is in, it is gone afterwards, with every
        process of its group."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def group(self) -> list[int]:
        """The processes still alive in the service's session (it and what it started)."""
        assert self.proc is not None
        sid = self.proc.pid
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            # fields after the name: state, ppid, pgrp, session...; zombies do not count
            if fields[0] != "Z" and int(fields[3]) == sid:
                found.append(int(entry))
        return found

    def listens(self) -> bool:
        """Whether this service (its process or its workers) listens on its port."""
        assert self.proc is not None
        try:
            main = psutil.Process(self.proc.pid)
            for process in (main, *main.children(recursive=True)):
                for conn in process.net_connections(kind="tcp"):
                    if conn.status == psutil.CONN_LISTEN and conn.laddr.port == self.port:
                        return True
        except psutil.Error:  # (gone meanwhile: the next look says why)
            return False
        return False

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


# ---------------------------------------------------------------- a PostgreSQL of a test's own


def postgres_processes(pg: EmbeddedPostgres) -> list[psutil.Process]:
    pid = int((pg.data_dir / "postmaster.pid").read_text().split()[0])
    postmaster = psutil.Process(pid)
    return [postmaster, *postmaster.children(recursive=True)]


def signal_all(pg: EmbeddedPostgres, sig: signal.Signals) -> None:
    for proc in postgres_processes(pg):
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.send_signal(sig)


@contextlib.contextmanager
def private_postgres() -> Iterator[EmbeddedPostgres]:
    """An embedded PostgreSQL (not started yet) that the test may stop, kill or freeze:
    in a folder under the checkout (as root the server runs as another user, which cannot
    enter pytest's private temporary folders); continued, stopped and removed after."""
    folder = ROOT / ".pgdata-outage" / uuid.uuid4().hex[:12]
    pg = EmbeddedPostgres(folder)
    try:
        yield pg
    finally:
        with contextlib.suppress(Exception):  # never started, or already stopped
            signal_all(pg, signal.SIGCONT)
            pg.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)


async def migrated_database(pg: EmbeddedPostgres, name: str) -> str:
    """`pg` started, a database `name` made on it and migrated: its URL."""
    return await fresh_database(await asyncio.to_thread(pg.start), name)
