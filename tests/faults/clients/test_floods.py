"""What one client's flood costs the others: a body the answer left unread is not read to
its end, a request far larger on the wire than any body and a WebSocket client that sends
more than a stream takes are cut off, and a body of many faults gets a short answer. Over
the service as it runs (`served`) where the server's own handling is the point."""

from __future__ import annotations

import asyncio
import gzip
import select
import socket
import time

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestClient

from service.base.settings import Settings
from service.serving.server import listening_site

from ..helpers import ServiceProcess


async def test_a_body_the_answer_left_unread_is_not_read_to_its_end(
    served: ServiceProcess,
) -> None:
    """A 404 for a compressed body of 1 MB, of which 1 KB came: the connection is closed
    after the answer, not kept while the rest is read and undone (a gzip body of zeros is
    a thousand times its size undone, seconds of the event loop for one 404)."""
    bomb = gzip.compress(bytes(50_000_000))
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    try:
        writer.write(b"POST /nope HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                     b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(bomb)
                     + bomb[:1024])
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 404 "), head
        # the rest of the answer, then the end of the connection, without the body's rest
        await asyncio.wait_for(reader.read(), 3)
    finally:
        writer.close()

async def test_a_websocket_client_that_floods_its_stream_is_cut_off(
    served: ServiceProcess,
) -> None:
    """A stream takes nothing from its client but its pongs and its close frame: one that
    sends more than 64 KiB, and 1 KiB a second of its life (empty frames as fast as it can,
    which aiohttp reads as they come, taking the event loop from every other request), is
    cut off; one that says a little is not."""
    async with aiohttp.ClientSession(served.base) as s:
        r = await s.post("/v1/players", json={"name": "flooder"})
        token = (await r.json())["token"]
        r = await s.post("/v1/games", json={"variant": "freecell", "deal": 5},
                         headers={"Authorization": f"Bearer {token}"})
        stream = f"/v1/games/{(await r.json())['id']}/stream"
        async with s.ws_connect(stream) as quiet, s.ws_connect(stream) as loud:
            await quiet.send_str("hello")
            assert await cut_off(loud)
            assert not quiet.closed
            first = await quiet.receive(timeout=5)  # its stream still comes
            assert first.type == aiohttp.WSMsgType.TEXT, first

async def cut_off(ws: aiohttp.ClientWebSocketResponse) -> bool:
    """Whether the service cuts off a socket that sends empty frames as fast as it can
    (1.2 MB of them at most), past the events it was sent."""
    try:
        for _ in range(200_000):
            await ws.send_str("")
        while (message := await ws.receive(timeout=5)).type == aiohttp.WSMsgType.TEXT:
            pass
    except (ConnectionError, aiohttp.ClientError):
        return True
    except TimeoutError:
        return False
    return message.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR,
                            aiohttp.WSMsgType.CLOSE)

async def test_a_body_of_many_faults_is_answered_with_the_first_twenty(
    client: TestClient,
) -> None:
    """Each unknown field of a body is a fault; the answer names 20 and counts the rest
    (a body of 64 KiB of them made an answer of 600 KB)."""
    body = {"name": "ada", **{f"f{i}": 1 for i in range(500)}}
    r = await client.post("/v1/players", json=body)
    problem = await r.json()
    assert r.status == 400, problem
    assert len(problem["errors"]) == 20 and problem["errors"][0]["field"] == "f0", problem
    assert problem["detail"].endswith("; and 480 more"), problem["detail"][-80:]

async def test_a_request_far_larger_on_the_wire_than_any_body_is_cut_off(
    served: ServiceProcess,
) -> None:
    """A chunk's extension that never ends (the parser reads it without end: gigabytes in
    the time a request has took the event loop from every other request): past 8 times
    MAX_BODY_BYTES on the wire, the connection is cut, not held until the request's
    time is up."""
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    cut = False
    try:
        writer.write(b"POST /v1/players HTTP/1.1\r\nHost: test\r\nContent-Type: application/json"
                     b"\r\nTransfer-Encoding: chunked\r\n\r\n1;x=")
        for _ in range(20):  # 1.3 MB of one extension
            writer.write(b"a" * 65536)
            await writer.drain()
        cut = await asyncio.wait_for(reader.read(), 3) == b""
    except ConnectionError:
        cut = True
    finally:
        writer.close()
    assert cut


async def test_a_body_that_comes_after_its_answer_keeps_the_connection(
    served: ServiceProcess,
) -> None:
    """A 401 answered before its request's body came (a phone on a slow network): the
    body, uncompressed, is read when it comes, and the connection serves the next request
    (the client would see a network error instead)."""
    body = b'{"variant": "freecell", "deal": 617}'
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    try:
        writer.write(b"POST /v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json"
                     b"\r\nContent-Length: %d\r\n\r\n" % len(body))
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 401 "), head
        length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        await asyncio.wait_for(reader.readexactly(length), 5)
        writer.write(body + b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200 "), head
    finally:
        writer.close()


async def test_a_burst_of_connections_waits_in_the_ports_queue() -> None:
    """Three hundred connections arriving while the service's event loop is busy (nothing
    is accepted meanwhile) all complete their handshake and wait in the port's queue to be
    accepted: past aiohttp's own queue of 128, the kernel would drop the others' handshakes
    and their clients would send them again only a second later."""
    runner = web.AppRunner(web.Application())
    await runner.setup()
    clients: list[socket.socket] = []
    try:
        await listening_site(runner, Settings(port=0), reuse_port=False).start()
        port = runner.addresses[0][1]
        # from here to the count, the event loop is held: no connection is accepted
        poll = select.poll()
        for _ in range(300):
            client = socket.socket()
            client.setblocking(False)
            client.connect_ex(("127.0.0.1", port))
            clients.append(client)
            poll.register(client, select.POLLOUT)
        done: set[int] = set()
        deadline = time.monotonic() + 0.5
        while len(done) < len(clients) and time.monotonic() < deadline:
            for fd, _ in poll.poll(50):
                done.add(fd)
                poll.unregister(fd)
        connected = [c for c in clients if c.fileno() in done
                     and c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0]  # fmt: skip
        assert len(connected) == len(clients)
    finally:
        for client in clients:
            client.close()
        await runner.cleanup()
