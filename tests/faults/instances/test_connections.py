"""Slow clients and connections per address, against `python -m service run` with two
worker processes on one port, over raw TCP connections.

- A request whose headers or body are still arriving REQUEST_TIMEOUT_S after its first
  byte is answered 408 (problem+json, `Connection: close`) and its connection closed;
  the time between two requests of a keep-alive connection is not a request's.
- One address holds at most MAX_CONNECTIONS_PER_ADDRESS connections, WebSockets
  included, counted across the workers: the next is closed as soon as it is accepted,
  before a byte is read; a closed one gives its place back, and so do the connections of
  a worker that was killed, once the supervisor has started its replacement.

The tests' connections come from 127.0.0.2 (any 127.x address reaches the service): the
fixture's own readiness checks, from 127.0.0.1, are another address's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from ...openapi_check import validate_exchange
from ..helpers import ServiceProcess, until

ADDRESS = "127.0.0.2"
TIMEOUT = 2  # REQUEST_TIMEOUT_S
MOST = 5  # MAX_CONNECTIONS_PER_ADDRESS
# on a loaded machine an answer due at a time may come this much later
MARGIN = 3.0


@pytest.fixture
async def service(db_url: str, tmp_path: Path) -> AsyncIterator[ServiceProcess]:
    svc = ServiceProcess(db_url, tmp_path / "service.log", WORKERS="2", RATE_LIMITS="on",
                         REQUEST_TIMEOUT_S=str(TIMEOUT),
                         MAX_CONNECTIONS_PER_ADDRESS=str(MOST),
                         SOLVER_PREFETCH="false", LOG_REQUESTS="true")  # fmt: skip
    try:
        svc.start()
        await svc.ready()
        await until(lambda: len(workers(svc)) == 2, 30, "two workers")
        yield svc
    finally:
        svc.stop()


def workers(svc: ServiceProcess) -> list[int]:
    """The supervisor's worker processes (multiprocessing's spawned children)."""
    assert svc.proc is not None
    found = []
    for pid in svc.group():
        try:
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if ppid == svc.proc.pid and b"spawn_main" in cmdline:
            found.append(pid)
    return found


def age(pid: int) -> float:
    """Seconds since the process started."""
    ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return uptime - ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    def json(self) -> dict[str, object]:
        data: dict[str, object] = json.loads(self.body)
        return data


class Connection:
    """One TCP connection from ADDRESS, spoken to in raw HTTP/1.1."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                       local_addr=(ADDRESS, 0))
        return cls(reader, writer)

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    async def answer(self, timeout: float = 10.0) -> Answer:
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), timeout)
        return await self._rest(head, timeout)

    async def _rest(self, head: bytes, timeout: float) -> Answer:
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        body = await asyncio.wait_for(self.reader.readexactly(length), timeout)
        return Answer(status, headers, body)

    async def request(self, method: str, path: str, body: object = None,
                      token: str | None = None) -> Answer:
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        self.send(head.encode() + b"\r\n" + data)
        return await self.answer()

    async def trickle(self, data: bytes, every: float) -> Answer:
        """Send `data` one byte every `every` seconds until an answer comes."""
        for byte in data:
            try:
                head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), every)
            except TimeoutError:
                self.send(bytes([byte]))
                continue
            return await self._rest(head, 10.0)
        raise AssertionError(f"no answer after {len(data)} bytes sent slowly")

    async def closed(self, timeout: float) -> bool:
        """Whether the service closes the connection within `timeout` seconds, sending
        nothing (more)."""
        try:
            data = await asyncio.wait_for(self.reader.read(1), timeout)
        except TimeoutError:
            return False
        except ConnectionResetError:
            return True
        assert data == b"", data
        return True

    def close(self) -> None:
        self.writer.close()


def holder(svc: ServiceProcess, conn: Connection) -> int:
    """The worker holding the service's end of `conn` (found through /proc)."""
    host, port = conn.writer.get_extra_info("sockname")[:2]

    def address(ip: str, port: int) -> str:  # /proc/net/tcp's form: the IPv4 address
        return f"{socket.inet_aton(ip)[::-1].hex().upper()}:{port:04X}"  # little-endian

    local, remote = address("127.0.0.1", svc.port), address(host, port)
    # (a set: /proc/net/tcp is read in pieces, and a socket may show twice when the table
    # changes between them)
    inodes = sorted({
        fields[9]
        for fields in (line.split() for line in Path("/proc/net/tcp").read_text().splitlines())
        if fields[1:4] == [local, remote, "01"]  # ESTABLISHED (not an old one's TIME_WAIT)
    })
    assert len(inodes) == 1, inodes
    for pid in workers(svc):
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == f"socket:[{inodes[0]}]":
                        return pid
    raise AssertionError(f"no worker holds the connection from {host}:{port}")


async def healthy(conn: Connection) -> None:
    """The connection was accepted: it is answered."""
    answer = await conn.request("GET", "/healthz")
    assert answer.status == 200, answer


async def accepted(svc: ServiceProcess) -> Connection:
    conn = await Connection.open(svc.port)
    await healthy(conn)
    return conn


async def refused(svc: ServiceProcess) -> None:
    """A new connection is closed at once, before it sends anything."""
    conn = await Connection.open(svc.port)
    try:
        assert await conn.closed(MARGIN), "a connection past the limit was kept open"
    finally:
        conn.close()


async def accepted_soon(svc: ServiceProcess, timeout: float = 10.0) -> Connection:
    """A new connection, once the service has seen the one closed before it go: a
    connection's place is given back when the service's end of it closes, a moment after
    the client's."""
    deadline = time.monotonic() + timeout
    while True:
        conn = await Connection.open(svc.port)
        try:
            await healthy(conn)
            return conn
        except (asyncio.IncompleteReadError, ConnectionError):
            conn.close()
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def test_headers_sent_slowly_are_answered_408_and_the_connection_closed(
    service: ServiceProcess,
) -> None:
    conn = await Connection.open(service.port)
    started = time.monotonic()
    conn.send(b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Slow: ")
    answer = await conn.trickle(b"abcdefghijklmnopqrstuvwxyz", every=0.5)
    took = time.monotonic() - started
    assert TIMEOUT <= took < TIMEOUT + MARGIN, took
    assert answer.status == 408
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["connection"] == "close"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert len(answer.headers["x-request-id"]) == 16
    assert answer.json() == {
        "type": "https://open-solitaire.example/problems/request-timeout",
        "title": "Request Timeout",
        "status": 408,
        "detail": f"the request was not complete {TIMEOUT} s after its first byte",
    }
    assert await conn.closed(MARGIN)
    conn.close()
    # its access-log line, though no route had it (its request line never came whole)
    rid = answer.headers["x-request-id"]
    await until(lambda: f'"request_id":"{rid}","method":"-","path":"-","route":"unmatched",'
                f'"status":408' in service.output(), 5, "the 408's log line")  # fmt: skip
    # a complete request on a fresh connection is answered as ever
    fresh = await accepted(service)
    fresh.close()


async def test_a_body_sent_one_byte_a_second_is_answered_408_and_the_connection_closed(
    service: ServiceProcess,
) -> None:
    conn = await Connection.open(service.port)
    body = json.dumps({"name": "slowcoach"}).encode()
    started = time.monotonic()
    conn.send(b"POST /v1/players HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body[:1])  # fmt: skip
    answer = await conn.trickle(body[1:], every=1.0)
    took = time.monotonic() - started
    assert TIMEOUT <= took < TIMEOUT + MARGIN, took
    assert answer.status == 408
    validate_exchange("POST", "/v1/players", {}, 408, answer.headers, answer.body)
    assert answer.headers["connection"] == "close"
    assert answer.json()["type"] == "https://open-solitaire.example/problems/request-timeout"
    assert await conn.closed(MARGIN)
    conn.close()
    fresh = await accepted(service)
    created = await fresh.request("POST", "/v1/players", {"name": "quick"})
    assert created.status == 201, created
    fresh.close()


async def test_idle_time_between_requests_and_a_request_within_the_time_pass(
    service: ServiceProcess,
) -> None:
    conn = await accepted(service)
    await asyncio.sleep(TIMEOUT + 0.5)  # idle on a keep-alive connection: no request's time
    await healthy(conn)
    # a request that takes less than the time to arrive is answered as any other
    request = b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"
    for i in range(0, len(request), 10):
        conn.send(request[i:i + 10])
        await asyncio.sleep(TIMEOUT / 10)
    answer = await conn.answer()
    assert answer.status == 200, answer
    conn.close()


async def test_a_request_the_parser_refuses_gets_the_headers_of_every_answer(
    service: ServiceProcess,
) -> None:
    conn = await accepted(service)
    conn.send(b"GET /healthz HTTP/1.1\r\nHost: test\r\nBad Header\r\n\r\n")
    answer = await conn.answer()
    assert answer.status == 400, answer
    assert answer.headers["server"] == "open-solitaire", answer
    assert answer.headers["x-content-type-options"] == "nosniff", answer
    conn.close()


async def test_an_address_holds_at_most_its_connections_across_the_workers(
    service: ServiceProcess,
) -> None:
    first = await accepted(service)
    player = await first.request("POST", "/v1/players", {"name": "watcher"})
    assert player.status == 201, player
    token = str(player.json()["token"])
    game = await first.request("POST", "/v1/games", {"variant": "freecell", "deal": 1},
                               token=token)  # fmt: skip
    assert game.status == 201, game
    # a live stream is a connection too
    connector = aiohttp.TCPConnector(local_addr=(ADDRESS, 0))
    async with aiohttp.ClientSession(connector=connector) as session:
        ws = await session.ws_connect(
            f"{service.base}/v1/games/{game.json()['id']}/stream", autoping=False)
        held = [first] + [await accepted(service) for _ in range(MOST - 2)]
        # the connections held lie with both workers, so only a count the workers share
        # can refuse the next on either of them
        while len({holder(service, c) for c in held}) < 2:
            held.pop().close()
            held.append(await accepted_soon(service))
        for _ in range(4):
            await refused(service)
        with pytest.raises(aiohttp.ClientError):
            await session.ws_connect(f"{service.base}/v1/games/{game.json()['id']}/stream")
        assert not ws.closed
        await healthy(held[0])  # those held are served as ever
        # a connection closed gives its place back
        held.pop().close()
        held.append(await accepted_soon(service))
        await refused(service)
        # and so does a live stream
        await ws.close()
        held.append(await accepted_soon(service))
        await refused(service)
    for conn in held:
        conn.close()


async def test_the_connections_of_a_killed_worker_are_given_back(
    service: ServiceProcess,
) -> None:
    held = [await accepted(service) for _ in range(MOST)]
    while len({holder(service, c) for c in held}) < 2:
        held.pop().close()
        held.append(await accepted_soon(service))
    await refused(service)
    victim = holder(service, held[0])
    lost = [c for c in held if holder(service, c) == victim]
    survivors = [c for c in held if c not in lost]
    # the supervisor starts again only a worker that lived 5 s (service/workers.py)
    await asyncio.sleep(max(0.0, 5.5 - age(victim)))
    os.kill(victim, signal.SIGKILL)
    for conn in lost:
        assert await conn.closed(MARGIN)
        conn.close()
    for conn in survivors:
        await healthy(conn)
    await until(lambda: victim not in workers(service) and len(workers(service)) == 2, 30,
                "the killed worker's replacement")
    # the replacement gives the killed worker's places back when it starts; until then
    # the address may be refused
    fresh = [await accepted_soon(service, timeout=30) for _ in lost]
    await refused(service)
    for conn in survivors + fresh:
        conn.close()
