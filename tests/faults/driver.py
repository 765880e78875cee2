"""Players that keep making moves the way a careful mobile client does.

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
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import aiohttp

from engine import VARIANTS as RULE_BOOKS
from engine import Event, Game

VARIANTS = tuple(RULE_BOOKS)


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
