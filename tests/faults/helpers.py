"""What the fault tests share: the service as a real process, and players that keep making
moves the way a careful mobile client does.

A `Driver` is one player with one game. It plays legal moves (and now and then an undo or
a redo) one request at a time, each with its own Idempotency-Key and `expected_version`,
and keeps its own copy of the game from the events it is answered. A request whose outcome
it did not learn (the connection broke, the server was gone, a 5xx) is sent again with the
same key and body until an answer comes: that is what makes a retry safe, and what the
tests check the service for. `check_log` then holds the game's log against the answers:
the creation's events, then those of every acknowledged request, each once, in order: no
acknowledged move lost, none doubled, nothing else."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
import psutil

from bench.common import fresh_database
from engine import Event, Game
from service.database.embedded import EmbeddedPostgres

from ..conftest import through_pooler

ROOT = Path(__file__).resolve().parent.parent.parent
VARIANTS = ("freecell", "bakers_game", "bakers_dozen", "beleaguered_castle")


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
        """Seconds until /healthz answers 200."""
        started = time.monotonic()
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as s:
            while True:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    raise AssertionError(f"the service exited ({self.proc.returncode}):\n"
                                         + self.output()[-3000:])
                try:
                    async with s.get(f"{self.base}/healthz") as r:
                        if r.status == 200:
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

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


async def new_game(
    session: aiohttp.ClientSession, base: str, token: str, variant: str, deal: int,
    autoplay: bool = True,
) -> dict[str, Any]:
    """A game of `deal`, or of the next deal not known to have no solution."""
    for number in range(deal, deal + 50):
        body = {"variant": variant, "deal": number, "autoplay": autoplay}
        async with session.post(f"{base}/v1/games", json=body,
                                headers={"Authorization": f"Bearer {token}"}) as r:
            if r.status == 422:
                continue  # a deal with no solution (service/deals/tables)
            assert r.status == 201, await r.text()
            game: dict[str, Any] = await r.json()
            return game
    raise AssertionError(f"no {variant} deal from {deal} on could be played")


@dataclass
class Request:
    """One logical write and every attempt to get its answer."""

    path: str
    body: dict[str, Any]
    key: str = field(default_factory=lambda: uuid.uuid4().hex)
    attempts: list[str] = field(default_factory=list)  # status code or error, per attempt
    slowest: float = 0.0  # seconds, the slowest attempt that got an HTTP answer
    status: int | None = None
    answer: dict[str, Any] | None = None
    sent_at: float = 0.0  # time.time() of the first attempt

    @property
    def retried(self) -> bool:
        return len(self.attempts) > 1


class Driver:
    """One player playing one game through the API; see the module docstring."""

    def __init__(
        self, session: aiohttp.ClientSession, base: str, seed: int, retry_pause: float = 0.05
    ) -> None:
        self.session = session
        self.base = base
        self.rng = random.Random(seed)
        self.seed = seed
        self.retry_pause = retry_pause
        self.token = ""
        self.game_id = ""
        self.game: Game | None = None
        self.created: list[dict[str, Any]] = []
        self.done: list[Request] = []  # acknowledged requests, in order
        self.pending: Request | None = None
        self.statuses: Counter[str] = Counter()  # every attempt's outcome
        # every attempt: (time.monotonic() when sent, outcome, seconds until it came)
        self.history: list[tuple[float, str, float]] = []
        # set by a test to stop retrying after a connection error (graceful shutdown)
        self.give_up_on_errors = False
        self.gave_up: Request | None = None

    def headers(self, key: str | None = None) -> dict[str, str]:
        h = {"Authorization": f"Bearer {self.token}"}
        if key is not None:
            h["Idempotency-Key"] = key
        return h

    async def create(self, variant: str | None = None, deal: int | None = None) -> None:
        async with self.session.post(f"{self.base}/v1/players",
                                     json={"name": f"driver {self.seed}"}) as r:
            assert r.status == 201, await r.text()
            self.token = (await r.json())["token"]
        created = await new_game(
            self.session, self.base, self.token, variant or VARIANTS[self.seed % len(VARIANTS)],
            deal or 1 + self.seed, autoplay=self.seed % 3 != 0,
        )
        self.game_id = created["id"]
        self.created = created["events"]
        self.game = Game.replay(Event(e["type"], e["data"]) for e in self.created)

    @property
    def acknowledged(self) -> int:
        return len(self.done)

    def next_request(self) -> Request | None:
        game = self.game
        assert game is not None
        if game.is_over:
            return None
        legal = list(game.position.legal_moves)
        url = f"/v1/games/{self.game_id}"
        versioned = {"expected_version": game.version}
        roll = self.rng.random()
        if game.can_redo and roll < 0.3:
            return Request(f"{url}/redo", versioned)
        if game.can_undo and (not legal or roll < 0.1):
            return Request(f"{url}/undo", versioned)
        if not legal:
            return None
        move = self.rng.choice(legal)
        return Request(f"{url}/moves", {**move.to_dict(), **versioned})

    async def send(self, req: Request) -> tuple[int, dict[str, Any]] | None:
        """One attempt: the status and body, or None when the outcome stayed unknown."""
        if not req.sent_at:
            req.sent_at = time.time()
        started = time.monotonic()
        try:
            async with self.session.post(self.base + req.path, json=req.body,
                                         headers=self.headers(req.key)) as r:
                body = await r.json(content_type=None)
                took = time.monotonic() - started
                req.slowest = max(req.slowest, took)
                req.attempts.append(str(r.status))
                self.statuses[str(r.status)] += 1
                self.history.append((started, str(r.status), took))
                if r.status >= 500:
                    # the database is away: a problem that says when to come back; any
                    # other 5xx is a bug
                    assert r.status == 503, (req.path, r.status, body)
                    assert r.content_type == "application/problem+json", body
                    assert r.headers.get("Retry-After", "").isdigit(), dict(r.headers)
                    return None
                return r.status, body
        except (aiohttp.ClientError, TimeoutError) as exc:
            name = type(exc).__name__
            req.attempts.append(name)
            self.statuses[name] += 1
            self.history.append((started, name, time.monotonic() - started))
            return None

    async def run(self, stop: asyncio.Event) -> None:
        """Play until `stop` is set (finishing the request under way) or the game ends."""
        while True:
            req = self.pending or self.next_request()
            if req is None:
                return
            self.pending = req
            if stop.is_set() and not req.attempts:
                return
            outcome = await self.send(req)
            if outcome is None:
                if self.give_up_on_errors:
                    self.gave_up = req
                    return
                await asyncio.sleep(self.retry_pause)
                continue
            status, body = outcome
            assert status == 201, f"{req.path} {req.body}: {status} {body}"
            req.status, req.answer = status, body
            self.done.append(req)
            self.pending = None
            self.apply(body)

    def apply(self, answer: dict[str, Any]) -> None:
        game = self.game
        assert game is not None
        for e in answer["events"]:
            assert e["seq"] == game.version + 1, (e, game.version)
            game.apply(Event(e["type"], e["data"]))
        assert answer["game"]["version"] == game.version

    async def log(self) -> list[dict[str, Any]]:
        async with self.session.get(f"{self.base}/v1/games/{self.game_id}/events") as r:
            assert r.status == 200, await r.text()
            events: list[dict[str, Any]] = (await r.json())["events"]
            return events

    def expected_log(self) -> list[dict[str, Any]]:
        events = list(self.created)
        for req in self.done:
            assert req.answer is not None
            events.extend(req.answer["events"])
        return events


def check_log(driver: Driver, log: list[dict[str, Any]]) -> None:
    """The game's log is its creation and the acknowledged requests' events, each once."""
    expected = driver.expected_log()
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert len(log) == len(expected), (
        f"game {driver.game_id}: {len(log)} events in the log, {len(expected)} acknowledged"
    )
    for stored, answered in zip(log, expected, strict=True):
        assert stored == answered, (driver.game_id, stored, answered)


def player_moves(log: list[dict[str, Any]]) -> int:
    """Player moves (not automatic ones), undos and redos in a log."""
    return sum(
        1 for e in log
        if e["type"] in ("MoveUndone", "MoveRedone")
        or (e["type"] == "CardMoved" and not e["data"].get("auto"))
    )


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


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
