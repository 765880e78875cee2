"""Live event streams the service closes itself: a slow subscriber whose queue overflows
(the others still get everything), a dead client the heartbeat notices, and shutdown,
which tells each subscriber where to resume and closes with 1001."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct

import aiohttp
import orjson
from aiohttp.test_utils import TestServer

from service.live.hub import STREAMS_KEY

from ..helpers import auth, new_game, new_player
from .helpers import (
    WAIT,
    as_json,
    events_of,
    instances,
    nothing_more,
    receive,
    subscribers,
    wait_for,
)


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
        frames = []
        async with asyncio.timeout(WAIT):
            while (f := await self.frame())[0] != -1:
                frames.append(f)
        return frames

    def close(self) -> None:
        self.writer.close()


async def test_a_slow_subscriber_is_closed_and_the_others_get_everything(db_url: str) -> None:
    async with instances(db_url, {}, {"ws_queue": 2}) as (a, b):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        move = {"from": "t1", "to": "c"}
        r = await a.post(f"/v1/games/{gid}/moves", json=move, headers=auth(ada))
        assert r.status == 201
        fast = await a.ws_connect(f"/v1/games/{gid}/stream")
        slow = await RawSubscriber.connect(b.server, f"/v1/games/{gid}/stream")
        streams_b = b.app[STREAMS_KEY]
        await wait_for(lambda: len(streams_b) == 1, "the slow subscriber")
        (sub,) = streams_b.values()
        # undo and redo, over and over: its socket buffers fill up, then its queue
        writes = 0
        while not sub.ended.is_set() and writes < 2000:
            for action in ("undo", "redo"):
                r = await a.post(f"/v1/games/{gid}/{action}", json={}, headers=auth(ada))
                assert r.status == 201, await r.text()
                writes += 1
        assert sub.ended.is_set(), f"still subscribed after {writes} writes"
        await wait_for(lambda: not streams_b, "the slow subscriber's socket to close")
        assert subscribers(b) == 0
        stored = as_json(await events_of(a, gid))
        assert await receive(fast, len(stored)) == stored
        await nothing_more(fast)
        await fast.close()
        # what the slow one got: events in order, then (if its buffer had room) the
        # reconnect message with the last seq it was sent, then the close frame
        frames = await slow.rest()
        slow.close()
        texts = [orjson.loads(p) for op, p in frames if op == 1]
        events = [t for t in texts if "seq" in t]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert len(events) < len(stored)
        for t in texts[len(events):]:
            assert t["type"] == "reconnect" and t["after"] == len(events)
            assert f"?after={len(events)}" in t["detail"]
        closes = [p for op, p in frames if op == 8]
        if closes:
            assert struct.unpack("!H", closes[0][:2])[0] == 4000


async def test_a_dead_client_is_noticed_by_the_heartbeat(db_url: str) -> None:
    async with instances(db_url, {"ws_heartbeat": 0.2}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        dead = await RawSubscriber.connect(a.server, f"/v1/games/{gid}/stream")
        streams = a.app[STREAMS_KEY]
        await wait_for(lambda: len(streams) == 1, "the subscriber")
        # it never answers the pings
        await wait_for(lambda: not streams, "the dead client to be dropped", timeout=5)
        assert subscribers(a) == 0
        frames = await dead.rest()
        dead.close()
        assert 9 in [op for op, _ in frames]  # it was pinged


async def test_shutdown_says_where_to_resume_and_closes_with_1001(db_url: str) -> None:
    async with instances(db_url, {}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(a.make_url(f"/v1/games/{gid}/stream"))
            first = await receive(ws, 1)
            closing = asyncio.create_task(a.server.close())
            msg = await ws.receive(timeout=WAIT)
            assert orjson.loads(msg.data) == {
                "type": "reconnect",
                "after": first[-1]["seq"],
                "detail": f"this server is shutting down; reconnect with ?after={first[-1]['seq']}",
            }
            msg = await ws.receive(timeout=WAIT)
            assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == 1001
            assert "?after=1" in msg.extra
            await closing
