"""Helpers of the live-event tests, for other capabilities' tests too: service instances
of one's own on one database, writes, a game's log, and a WebSocket's messages."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import orjson
from aiohttp.test_utils import TestClient, TestServer

from service.app import create_app
from service.base.keys import METRICS_KEY

from ...conftest import make_settings
from ..helpers import auth

Json = dict[str, Any]
WAIT = 10.0


@contextlib.asynccontextmanager
async def instances(db_url: str, *overrides: Json) -> AsyncIterator[list[TestClient]]:
    """Service instances on one database, each on its own test server."""
    clients = [TestClient(TestServer(create_app(make_settings(db_url, **o)))) for o in overrides]
    for c in clients:
        await c.start_server()
    try:
        yield clients
    finally:
        for c in clients:
            await c.close()


async def events_of(client: TestClient, gid: str, after: int = 0) -> list[Json]:
    r = await client.get(f"/v1/games/{gid}/events?after={after}")
    assert r.status == 200, await r.text()
    events: list[Json] = (await r.json())["events"]
    return events


async def write(client: TestClient, player: Json, gid: str, rng: random.Random) -> Json:
    """One write through `client`: a random legal move, or an undo now and then."""
    legal = (await (await client.get(f"/v1/games/{gid}/legal-moves")).json())["moves"]
    url = f"/v1/games/{gid}"
    if legal and rng.random() < 0.8:
        r = await client.post(f"{url}/moves", json=rng.choice(legal), headers=auth(player))
    else:
        r = await client.post(f"{url}/undo", json={}, headers=auth(player))
        if r.status == 409:  # nothing to undo yet
            r = await client.post(f"{url}/moves", json=rng.choice(legal), headers=auth(player))
    assert r.status == 201, await r.text()
    body: Json = await r.json()
    return body


async def receive(ws: aiohttp.ClientWebSocketResponse, count: int) -> list[Json]:
    """The next `count` messages, then a short wait proves no extra one follows."""
    got: list[Json] = []
    async with asyncio.timeout(WAIT):
        while len(got) < count:
            msg = await ws.receive()
            assert msg.type is aiohttp.WSMsgType.TEXT, msg
            got.append(orjson.loads(msg.data))
    return got


async def nothing_more(ws: aiohttp.ClientWebSocketResponse, wait: float = 0.3) -> None:
    with contextlib.suppress(TimeoutError):
        msg = await ws.receive(timeout=wait)
        raise AssertionError(f"unexpected message {msg}")


async def wait_for(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def subscribers(client: TestClient) -> float:
    """The instance's gauge of open live-event sockets."""
    value = client.app[METRICS_KEY].registry.get_sample_value("solitaire_stream_subscribers")
    return value or 0.0


def as_json(events: list[Json]) -> list[Json]:
    """Events as a WebSocket client decodes them (the timestamps are text)."""
    return [orjson.loads(orjson.dumps(e)) for e in events]
