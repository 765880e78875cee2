"""Helpers of the live-event tests, for other capabilities' tests too: service instances
of one's own on one database, writes, a game's log, a WebSocket's messages, and a slow
client on a bare socket."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import random
import socket
import struct
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import orjson
from aiohttp.test_utils import TestClient, TestServer

from service.app import create_app
from service.base.keys import METRICS_KEY

from ...conftest import Served, make_settings
from ..helpers import auth

Json = dict[str, Any]
WAIT = 10.0


@contextlib.asynccontextmanager
async def instances(db_url: str, *overrides: Json) -> AsyncIterator[list[TestClient]]:
    """Service instances on one database, each on its own test server."""
    clients = [TestClient(Served(create_app(make_settings(db_url, **o)))) for o in overrides]
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


class RawSubscriber:
    """A WebSocket client on a bare socket with a tiny receive buffer, which reads only
    when told to: the slow or dead client."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, server: TestServer, path: str) -> RawSubscriber:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (server.host, server.port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=1024)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {server.host}:{server.port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        return cls(reader, writer)

    async def frame(self) -> tuple[int, bytes]:
        """The next frame (opcode, payload); (-1, b"") at the end of the connection."""
        try:
            b0, b1 = await self.reader.readexactly(2)
            size = b1 & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", await self.reader.readexactly(8))
            return b0 & 0x0F, await self.reader.readexactly(size)
        except (asyncio.IncompleteReadError, ConnectionError):
            return -1, b""

    async def rest(self) -> list[tuple[int, bytes]]:
        """The frames until the end of the connection; a close frame is answered with one
        (masked, as a client's are), as a WebSocket client does."""
        frames = []
        async with asyncio.timeout(WAIT):
            while (f := await self.frame())[0] != -1:
                frames.append(f)
                if f[0] == 8:
                    mask = os.urandom(4)
                    code = f[1][:2]
                    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(code))
                    self.writer.write(bytes((0x88, 0x80 | len(code))) + mask + masked)
        return frames

    def close(self) -> None:
        self.writer.close()
