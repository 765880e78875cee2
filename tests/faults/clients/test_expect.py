"""`Expect: 100-continue` (RFC 9110, 10.1.1): a client that asks before it sends its body
is refused at once when the body it declares is over MAX_BODY_BYTES (413, not an
invitation to send 100 MB), invited otherwise; any other expectation is 417. Over a raw
socket: the bytes are the point."""

from __future__ import annotations

import asyncio
import json

from aiohttp.test_utils import TestClient

HEAD = (
    "POST /v1/players HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
    "Content-Length: {length}\r\nExpect: {expect}\r\n\r\n"
)


async def answer_to_head(client: TestClient, length: int, expect: str) -> bytes:
    """What the service answers to a request's head alone, its body not sent."""
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    try:
        writer.write(HEAD.format(length=length, expect=expect).encode())
        await writer.drain()
        return await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    finally:
        writer.close()


async def test_a_body_declared_too_large_is_refused_before_it_is_sent(client: TestClient) -> None:
    head = await answer_to_head(client, 100_000_000, "100-continue")
    assert head.startswith(b"HTTP/1.1 413 "), head
    assert b"application/problem+json" in head


async def test_a_body_within_the_limit_is_invited_then_answered(client: TestClient) -> None:
    body = json.dumps({"name": "ada"}).encode()
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    try:
        writer.write(HEAD.format(length=len(body), expect="100-continue").encode())
        await writer.drain()
        invited = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert invited == b"HTTP/1.1 100 Continue\r\n\r\n"
        writer.write(body)
        await writer.drain()
        answered = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert answered.startswith(b"HTTP/1.1 201 "), answered
    finally:
        writer.close()


async def test_another_expectation_is_417(client: TestClient) -> None:
    head = await answer_to_head(client, 10, "something-else")
    assert head.startswith(b"HTTP/1.1 417 "), head
    assert b"application/problem+json" in head
