"""`Expect: 100-continue` (RFC 9110, 10.1.1): a client that asks before it sends its body
is refused at once when the body it declares is over MAX_BODY_BYTES (413, not an
invitation to send 100 MB), invited otherwise; any other expectation is 417. Over a raw
socket: the bytes are the point."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from aiohttp.test_utils import TestClient

from service.app import create_app
from tests.conftest import Served, make_settings

from .test_hostile_input import raw

HEAD = (
    "POST /v1/players HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
    "Content-Length: {length}\r\nExpect: {expect}\r\nX-Request-Id: app-9\r\n\r\n"
)


async def answers(
    client: TestClient, length: int, expect: str, body: bytes = b""
) -> tuple[bytes, bytes | None]:
    """The head of what the service answers to a request's head alone, its body not sent;
    and with `body`, sent then, the head of its answer to the whole request."""
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    try:
        writer.write(HEAD.format(length=length, expect=expect).encode())
        await writer.drain()
        first = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        if not body:
            return first, None
        writer.write(body)
        await writer.drain()
        return first, await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    finally:
        writer.close()


async def test_a_body_declared_too_large_is_refused_before_it_is_sent(client: TestClient) -> None:
    head, _ = await answers(client, 100_000_000, "100-continue")
    assert head.startswith(b"HTTP/1.1 413 "), head
    assert b"application/problem+json" in head and b"X-Request-Id: app-9\r\n" in head


async def test_a_body_within_the_limit_is_invited_then_answered(client: TestClient) -> None:
    body = json.dumps({"name": "ada"}).encode()
    invited, answered = await answers(client, len(body), "100-continue", body)
    assert invited == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert answered is not None and answered.startswith(b"HTTP/1.1 201 "), answered


async def test_another_expectation_is_417(client: TestClient) -> None:
    head, _ = await answers(client, 10, "something-else")
    assert head.startswith(b"HTTP/1.1 417 Expectation Failed"), head
    assert b"application/problem+json" in head and b"X-Request-Id: app-9\r\n" in head


async def test_its_refusals_are_counted_and_logged_as_every_answer_is(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(make_settings(db_url, log_requests=True))
    async with TestClient(Served(app)) as c:
        with caplog.at_level(logging.INFO, logger="service.access"):
            assert (await answers(c, 10, "something-else"))[0].startswith(b"HTTP/1.1 417 ")
            assert (await answers(c, 100_000_000, "100-continue"))[0].startswith(b"HTTP/1.1 413 ")
        lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "service.access"]
        assert [(line["request_id"], line["route"], line["status"]) for line in lines] == [
            ("app-9", "/v1/players", 417), ("app-9", "/v1/players", 413)]
        metrics = await (await c.get("/metrics")).text()
        for status in (413, 417):
            assert (f'solitaire_http_requests_total{{method="POST",route="/v1/players",'
                    f'status="{status}"}} 1.0') in metrics  # fmt: skip


async def test_another_expectation_is_417_on_any_path(client: TestClient) -> None:
    """A path or a method the service has no route for: the same 417 problem (aiohttp's
    own answer was plain text echoing the header, and a 500 for one not UTF-8)."""
    for head in (b"GET /nope HTTP/1.1\r\nHost: test\r\nExpect: junk\r\n\r\n",
                 b"GET /nope HTTP/1.1\r\nHost: test\r\nExpect: \xff\r\n\r\n",
                 b"PATCH /v1/games HTTP/1.1\r\nHost: test\r\nExpect: junk\r\n\r\n",
                 b"GET /nope HTTP/1.1\r\nHost: test\r\nOrigin: https://app.example\r\n"
                 b"Expect: \xff\r\n\r\n"):
        status, answer = await raw(client, head)
        assert status == 417, (head, answer[:300])
        assert b"application/problem+json" in answer and b"expectation-failed" in answer


async def test_a_listed_origins_page_reads_the_417(db_url: str) -> None:
    """With CORS_ORIGINS set, the 417 (answered before the app) carries the CORS headers as
    every refusal does (openapi.yaml), so a page of a listed origin can read it."""
    app = create_app(make_settings(db_url, cors_origins="https://app.example"))
    async with TestClient(Served(app)) as c:
        assert c.server.port is not None
        for origin, shown in (("https://app.example", True), ("https://evil.example", False)):
            reader, writer = await asyncio.open_connection("127.0.0.1", c.server.port)
            try:
                request = HEAD.format(length=10, expect="something-else")
                writer.write((request[:-2] + f"Origin: {origin}\r\n\r\n").encode())
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            finally:
                writer.close()
            assert head.startswith(b"HTTP/1.1 417 "), head
            allowed = f"Access-Control-Allow-Origin: {origin}\r\n".encode() in head
            assert allowed is shown and (b"Access-Control-Expose-Headers" in head) is shown
