"""Requests aiohttp's parser refuses before any route (docs/faults.md, "Hostile input"):
answered all the same, with a problem a person can act on."""

from __future__ import annotations

import asyncio
import json

import aiohttp
from aiohttp.test_utils import TestClient

from ..helpers import ServiceProcess, until
from .test_hostile_input import raw, request, still_serving


async def test_over_long_lines_and_broken_requests_are_refused_by_the_parser(
    client: TestClient,
) -> None:
    cases = [
        request("GET", "/healthz", b"X-Big: " + b"a" * 10_000),  # over max_field_size
        request("GET", "/healthz?" + "a" * 10_000),  # over max_line_size
        request("GET", "/healthz", *(b"X-%d: y" % i for i in range(500))),  # too many
        request("GET", "/healthz", b"Content-Length: 5"),  # two Content-Lengths
        request("GET", "/healthz", b"Transfer-Encoding: chunked"),  # both kinds of length
        b"GET /healthz HTTP/1.1\r\nHost: test\r\nBad Header\r\n\r\n",
        b"GET /v1/players/\xff\xfe HTTP/1.1\r\nHost: test\r\n\r\n",  # raw bytes in a path
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(32) + b"\r\n\r\n",  # TLS hello
    ]
    for data in cases:
        status, answer = await raw(client, data)
        assert status in (400, 413, 414, 431), (data[:80], answer[:300])
    await still_serving(client)


async def test_a_request_the_parser_refuses_is_answered_with_a_problem(
    served: ServiceProcess,
) -> None:
    """aiohttp's parser answers before any route: its answer is problem+json all the
    same, a path with a NUL, a control character or a raw byte that is not ASCII is a
    404 (as the same bytes percent-encoded are), and the request's bytes are not quoted
    back; the connection is closed after it. It carries the headers every answer does."""
    mark = b"zqxj"  # in every request, in no answer
    head = b"Host: test\r\nX-Mark: " + mark + b"\r\n"
    cases = [
        (b"GET /v1/games/" + mark + b"\x00 HTTP/1.1\r\n" + head + b"\r\n", 404),
        (b"GET /v1/games/" + mark + b"\x01 HTTP/1.1\r\n" + head + b"\r\n", 404),
        (b"GET /v1/players/" + mark + b"\xff\xfe HTTP/1.1\r\n" + head + b"\r\n", 404),
        (b"GET /healthz?" + mark * 2500 + b" HTTP/1.1\r\n" + head + b"\r\n", 400),
        (b"GET /healthz HTTP/1.1\r\n" + head + b"X-Big: " + mark * 2500 + b"\r\n\r\n", 400),
        (b"GET /healthz HTTP/1.1\r\n" + head + b"".join(b"X-%d: y\r\n" % i for i in range(200))
         + b"\r\n", 400),
        (b"POST /v1/players HTTP/1.1\r\n" + head + b"Content-Length: " + mark + b"\r\n\r\n",
         400),
        (b"POST /v1/players HTTP/1.1\r\n" + head + b"Content-Length: 4\r\n"
         b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        (b"GET /healthz HTTP/1.1\r\n" + head + b"Bad " + mark + b"\r\n\r\n", 400),
        # a body not what its Content-Encoding says, found by the parser (deflate's end)
        (b"POST /v1/players HTTP/1.1\r\n" + head + b"Content-Encoding: deflate\r\n"
         b"Content-Length: 4\r\n\r\nabcd", 400),
    ]
    answered = {}  # request id: status
    for data, status in cases:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(data)
        answer = await asyncio.wait_for(reader.read(), 10)  # to the connection's end
        writer.close()
        head_text, _, body = answer.partition(b"\r\n\r\n")
        lines = head_text.decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in lines[1:])
        assert int(lines[0].split(" ")[1]) == status, (data[:60], answer)
        assert headers["content-type"] == "application/problem+json", answer
        assert headers["x-content-type-options"] == "nosniff", answer
        assert headers["server"] == "open-solitaire", answer
        assert headers["vary"] == "origin" and len(headers["x-request-id"]) == 16, answer  # CORS
        answered[headers["x-request-id"]] = status
        problem = json.loads(body)
        assert problem["status"] == status and problem["detail"], problem
        assert problem["type"].endswith("/not-found" if status == 404 else "/bad-request")
        assert mark not in answer, answer
    # the parser's reasons in words a person knows, not llhttp's names for them
    for data, said in [
        (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "it opens as HTTP/2, which this service"
         " does not speak; send HTTP/1.1"),
        (b"GET /healthz HTTP/1.1\r\n" + head + b"Bad Header: y\r\n\r\n", "a header's name"
         " holds a space or a character a name may not hold"),
        (b"GET /healthz HTTP/1.1\r\n" + head + b"X-A: b\x01c\r\n\r\n", "a header's value"
         " holds a control character"),
    ]:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(data)
        answer = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        problem = json.loads(answer.partition(b"\r\n\r\n")[2])
        assert problem["detail"] == f"the request is not HTTP/1.1 this service reads: {said}"
    async with aiohttp.ClientSession() as s, s.get(f"{served.base}/healthz") as r:
        assert r.status == 200
    # a client's malformed bytes are a line of the log, not a traceback anyone could pour in;
    # each answer has its access-log line (LOG_REQUESTS), by its request id
    def lines() -> dict[str, int]:
        logged = [json.loads(line) for line in served.output().splitlines()
                  if line.startswith('{"request_id"')]  # fmt: skip
        return {e["request_id"]: e["status"] for e in logged if e["route"] == "unmatched"}

    await until(lambda: answered.items() <= lines().items(), 5, "the access-log lines")
    log = served.log.read_text(errors="replace")
    assert "Traceback" not in log and "refused a request from" in log, log[-3000:]
