"""Hostile input a fuzzer does not think of: every answer is a 4xx (never a 5xx), and the
service goes on serving.

Through the test client (every answer checked against openapi.yaml) where the request can
be made with it; over a raw socket where the bytes themselves are the attack (headers that
are not UTF-8; lines over aiohttp's limits and what else its parser refuses: test_parser.py).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
from aiohttp.test_utils import TestClient

from service.app import create_app

from ...api.helpers import auth, new_game, new_player
from ...conftest import Served, make_settings
from ...openapi_check import validating_trace_config
from ..helpers import ServiceProcess

PROBLEM = "application/problem+json"


async def problem(r: aiohttp.ClientResponse, status: int) -> dict[str, Any]:
    assert r.status == status, (r.status, await r.text())
    assert r.content_type == PROBLEM
    body: dict[str, Any] = await r.json(content_type=None)
    assert body["status"] == status and body["detail"]
    return body


async def raw(client: TestClient, data: bytes) -> tuple[int, bytes]:
    """Send bytes as they are; the status and the whole answer."""
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    try:
        writer.write(data)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    match = re.match(rb"HTTP/1\.[01] (\d{3}) ", answer)
    assert match, answer[:200]
    return int(match[1]), answer


def request(method: str, path: str, *headers: bytes, body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1".encode(), b"Host: test", b"Connection: close",
             *headers, b"Content-Length: " + str(len(body)).encode()]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


async def still_serving(client: TestClient) -> None:
    r = await client.get("/healthz")
    assert r.status == 200


# ------------------------------------------------------------------ bodies


async def test_deeply_nested_json_is_a_400_or_a_413(client: TestClient) -> None:
    # under the 64 KiB body limit: orjson's depth limit (1024) refuses it
    deep = b"[" * 30_000 + b"]" * 30_000
    r = await client.post("/v1/players", data=deep, headers={"Content-Type": "application/json"})
    assert "depth" in (await problem(r, 400))["detail"]
    deep_object = b'{"name":' * 5000 + b'"x"' + b"}" * 5000
    r = await client.post("/v1/players", data=deep_object,
                          headers={"Content-Type": "application/json"})
    await problem(r, 400)
    # depth 100000 is 200 KB: over the body limit
    r = await client.post("/v1/players", data=b"[" * 100_000 + b"]" * 100_000,
                          headers={"Content-Type": "application/json"})
    await problem(r, 413)
    await still_serving(client)


async def test_depth_100000_with_a_limit_that_lets_it_in_is_still_a_400(db_url: str) -> None:
    app = create_app(make_settings(db_url, max_body_bytes=1 << 20))
    async with TestClient(Served(app), trace_configs=[validating_trace_config()]) as c:
        for body in (b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000):
            r = await c.post("/v1/players", data=body, headers={"Content-Type": "application/json"})
            await problem(r, 400)
        await still_serving(c)


async def test_huge_bodies_are_refused_with_413(client: TestClient) -> None:
    big = json.dumps({"name": "x" * 10_000_000}).encode()
    r = await client.post("/v1/players", data=big, headers={"Content-Type": "application/json"})
    await problem(r, 413)

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: chunked, 8 MB
        for _ in range(128):
            yield b"[" * 65536

    r = await client.post("/v1/players", data=chunks(),
                          headers={"Content-Type": "application/json"})
    await problem(r, 413)
    await still_serving(client)


async def test_wrong_content_types(client: TestClient) -> None:
    for ctype, body in [
        ("application/xml", b"<player><name>ada</name></player>"),
        ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data; name=a"
                                            b"\r\n\r\nada\r\n--x--\r\n"),
        ("application/x-www-form-urlencoded", b"name=ada"),
        ("image/png", b"\x89PNG\r\n\x1a\n\x00\x00"),
    ]:
        r = await client.post("/v1/players", data=body, headers={"Content-Type": ctype})
        await problem(r, 415)
    # declared JSON but not JSON: a 400
    r = await client.post("/v1/players", data=b"name=ada",
                          headers={"Content-Type": "application/json"})
    await problem(r, 400)
    # JSON sent as text/plain is taken (curl -d sends form encoding): API conventions
    r = await client.post("/v1/players", data=b'{"name": "ada"}',
                          headers={"Content-Type": "text/plain"})
    assert r.status == 201


async def test_text_that_is_not_utf8_or_cannot_be_stored(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=5)
    json_header = {"Content-Type": "application/json"}
    for body in [
        b'{"name": "\xff\xfe"}',  # not UTF-8
        b'{"name": "\xed\xa0\x80"}',  # an encoded surrogate
        b'{"name": "a\\ud800b"}',  # a lone surrogate, escaped
        b'{"name": "a\\u0000b"}',  # NUL: PostgreSQL text cannot hold it
        b'{"name": "tab\\there"}',
        b'{"name": "\\u009b31m"}',  # a C1 control character
    ]:
        r = await client.post("/v1/players", data=body, headers=json_header)
        await problem(r, 400)
    url = f"/v1/games/{game['id']}/moves"
    for body in [
        b'{"from": "t1\\u0000", "to": "c"}',
        b'{"card": "\\u0000\\u0000", "to": "c"}',
        b'{"from": "t1", "to": "\\uffff"}',
        b'{"from": "\xc3\x28", "to": "c"}',
    ]:
        r = await client.post(url, data=body, headers={**json_header, **auth(ada)})
        await problem(r, 400)
    # a byte that is not UTF-8 is named by its place, not by the parser's "surrogates"
    r = await client.post(url, data=b'{"from": "\xff"}', headers={**json_header, **auth(ada)})
    assert (await problem(r, 400))["detail"] == (
        "the body is not valid JSON (UTF-8): byte 10 (0xff) is not part of UTF-8 text"
    )
    await still_serving(client)


async def test_numbers_out_of_every_range(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=5)
    url = f"/v1/games/{game['id']}/moves"
    headers = {"Content-Type": "application/json", **auth(ada)}
    for body in [
        b'{"from": "t1", "to": "c", "expected_version": 1' + b"0" * 400 + b"}",
        b'{"from": "t1", "to": "c", "expected_version": 1e400}',
        b'{"from": "t1", "to": "c", "count": NaN}',
        b'{"from": "t1", "to": "c", "count": 18446744073709551616}',
        b'{"from": "t1", "to": "c", "count": -9223372036854775809}',
        b'{"from": "t1", "to": "c", "count": 1.5}',
        b'{"from": "t1", "to": "c", "count": true}',
        b'{"from": "t1", "to": "c", "count": "1"}',
    ]:
        await problem(await client.post(url, data=body, headers=headers), 400)
    for deal in (0, -1, 2**63, 2**64 + 1, 8589934592):
        r = await client.post("/v1/games", json={"variant": "freecell", "deal": deal},
                              headers=auth(ada))
        assert r.status in (400, 422), (deal, r.status)
    # a whole number written as 617.0 is the number 617 (JSON Schema's "integer")
    r = await client.post("/v1/games", data=b'{"variant": "freecell", "deal": 617.0}',
                          headers={"Content-Type": "application/json", **auth(ada)})
    assert r.status == 201 and (await r.json())["deal"] == 617
    for path in ["/v1/deals/freecell/" + "9" * 5000, "/v1/deals/freecell/-0",
                 "/v1/deals/freecell/1e3", "/v1/deals/freecell/%00",
                 f"/v1/games/{game['id']}/events?after=-1",
                 f"/v1/games/{game['id']}/events?after=" + "9" * 5000,
                 f"/v1/games/{game['id']}/events?limit=0x10",
                 "/v1/leaderboards/freecell/" + "9" * 40]:
        r = await client.get(path)
        assert r.status in (400, 404, 422), (path, r.status)
    await still_serving(client)


async def test_strange_paths_and_methods(client: TestClient) -> None:
    for path in ["/v1/games/%00", "/v1/games/%ff%fe/moves", "/v1/games/../../etc/passwd",
                 "/v1/games/" + "a" * 4000, "/v1/players/%00/games", "/static/../service/app.py",
                 "/static/%2e%2e/%2e%2e/pyproject.toml"]:
        r = await client.get(path)
        assert r.status in (400, 404, 405), (path, r.status)
    r = await client.request("PATCH", "/v1/games")
    await problem(r, 405)
    assert r.headers["Allow"]
    await still_serving(client)


# ------------------------------------------------------------------ headers


async def test_headers_that_are_not_utf8_or_not_ours(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=5)
    token = ada["token"].encode()
    move = b'{"from": "t1", "to": "c"}'
    path = f"/v1/games/{game['id']}/moves"
    cases = [
        # a token that is not UTF-8, or not ASCII: no player's
        (request("POST", "/v1/games", b"Authorization: Bearer \xff\xfe",
                 body=b'{"variant": "freecell"}'), 401),
        (request("POST", "/v1/games", "Authorization: Bearer tökén".encode(),
                 body=b'{"variant": "freecell"}'), 401),
        # an Idempotency-Key that is not UTF-8, or has control characters: a 400
        (request("POST", path, b"Authorization: Bearer " + token,
                 b"Idempotency-Key: \xff\xfe", body=move), 400),
        (request("POST", path, b"Authorization: Bearer " + token,
                 "Idempotency-Key: a\u0085b".encode(), body=move), 400),
        (request("POST", path, b"Authorization: Bearer " + token,
                 b"Idempotency-Key: " + b"k" * 201, body=move), 400),
        # a header a request sends once, sent twice: a proxy reading the other one would
        # not agree on who asks, or on what is retried
        (request("POST", path, b"Authorization: Bearer " + token,
                 b"Authorization: Bearer " + token, body=move), 400),
        (request("POST", path, b"Authorization: Bearer " + token, b"Idempotency-Key: a",
                 b"Idempotency-Key: b", body=move), 400),
    ]
    for data, status in cases:
        got, answer = await raw(client, data)
        assert got == status, (data[:120], answer[:400])
        assert b"application/problem+json" in answer, answer[:400]
    # control characters in a header: aiohttp's parser refuses the request itself
    got, answer = await raw(client, request("POST", path, b"Authorization: Bearer " + token,
                                            b"Idempotency-Key: a\x01b", body=move))
    assert got == 400, answer[:400]
    # none of those moved the game
    r = await client.get(f"/v1/games/{game['id']}")
    assert (await r.json())["version"] == game["version"]


async def test_many_live_streams_from_one_client(client: TestClient) -> None:
    """300 WebSockets on one game from one address (RATE_LIMITS=off here): each gets the
    game's events, a move reaches every one, and the service goes on answering."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=5, autoplay=False)
    version = game["version"]
    url = client.make_url(f"/v1/games/{game['id']}/stream")
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as s:
        sockets = []
        for _ in range(6):
            sockets += await asyncio.gather(*(s.ws_connect(url) for _i in range(50)))
            await still_serving(client)
        for ws in sockets:
            for seq in range(1, version + 1):
                assert json.loads((await ws.receive(timeout=10)).data)["seq"] == seq
        r = await client.post(f"/v1/games/{game['id']}/moves", json={"from": "t1", "to": "c"},
                              headers=auth(ada))
        assert r.status == 201
        for ws in sockets:
            assert json.loads((await ws.receive(timeout=10)).data)["seq"] == version + 1
        await asyncio.gather(*(ws.close() for ws in sockets))
    await still_serving(client)


async def test_live_streams_per_address_are_capped_when_limits_are_on(db_url: str) -> None:
    limit = 20
    app = create_app(make_settings(db_url, rate_limits="on", rate_streams_per_address=limit))
    async with TestClient(Served(app), trace_configs=[validating_trace_config()]) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=5)
        url = f"/v1/games/{game['id']}/stream"
        sockets = [await c.ws_connect(url) for _ in range(limit)]
        r = await c.get(url, headers={"Connection": "Upgrade", "Upgrade": "websocket",
                                      "Sec-WebSocket-Version": "13",
                                      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        body = await problem(r, 429)
        assert int(r.headers["Retry-After"]) >= 1 and "live streams" in body["detail"]
        await sockets.pop().close()
        await asyncio.sleep(0.05)  # its handler is done
        sockets.append(await c.ws_connect(url))  # room for one again
        for ws in sockets:
            await ws.close()


async def test_a_client_gone_mid_body_is_no_error_of_ours(served: ServiceProcess) -> None:
    """A client that closes its connection before its body is whole: logged as 499 (the
    client left), not as a 500 with a traceback that anyone could fill the logs with."""
    async with aiohttp.ClientSession(served.base) as s:
        async with s.post("/v1/players", json={"name": "ada"}) as r:
            token = (await r.json())["token"]
        async with s.post("/v1/games", json={"variant": "freecell", "deal": 5},
                          headers={"Authorization": f"Bearer {token}"}) as r:
            gid = (await r.json())["id"]
    _reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    head = (f"POST /v1/games/{gid}/moves HTTP/1.1\r\nHost: test\r\n"
            f"Authorization: Bearer {token}\r\nContent-Length: 100\r\n\r\n")
    writer.write(head.encode() + b'{"from": "t1", "to":')
    await writer.drain()
    await asyncio.sleep(0.2)
    writer.close()
    moves: list[str] = []
    async with aiohttp.ClientSession(served.base) as s:
        for _ in range(50):  # counted once the handler is done
            await asyncio.sleep(0.1)
            async with s.get("/metrics") as r:
                metrics = await r.text()
            moves = [x for x in metrics.splitlines() if x.startswith(
                'solitaire_http_requests_total{method="POST",route="/v1/games/{game_id}/moves"')]
            if moves:
                break
    assert [x.split("status=")[1] for x in moves] == ['"499"} 1.0'], moves
    log = served.log.read_text(errors="replace")
    assert "Traceback" not in log and "unhandled error" not in log, log[-3000:]


async def test_a_handshake_or_a_file_name_that_cannot_be_read_is_a_4xx(
    client: TestClient,
) -> None:
    """Headers of a WebSocket's handshake that are not ASCII (aiohttp's check of them
    raised), and a web client's file name the file system refuses (too long): a 4xx
    problem, not a 500 with a traceback."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=5)
    upgrade = (b"Upgrade: websocket", b"Connection: Upgrade")
    key = b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="
    stream = f"/v1/games/{game['id']}/stream"
    cases = [
        (request("GET", stream, *upgrade, key, b"Sec-WebSocket-Version: \xff"), 426),
        (request("GET", stream, *upgrade, key, b"Sec-WebSocket-Version: 1\xe9"), 426),
        (request("GET", stream, *upgrade, "Sec-WebSocket-Key: é".encode(),
                 b"Sec-WebSocket-Version: 13"), 400),
        (request("GET", stream, b"Upgrade: websocket", b"Connection: keep-alive\xff", key,
                 b"Sec-WebSocket-Version: 13"), 400),
        (request("GET", "/static/" + "x" * 300 + "/a.js"), 404),
        (request("GET", "/static/" + "x" * 300 + ".js"), 404),
    ]
    for data, status in cases:
        got, answer = await raw(client, data)
        assert got == status, (data[:160], answer[:400])
        assert b"application/problem+json" in answer, answer[:400]
