"""Small leaks: what a client learns of the service (versions, metrics), what a browser may
do with its answers (sniff a type, run what is not the page's, keep one origin's answer
for another), and what a client can write into the service's logs (a line of its own)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import socket
from html.parser import HTMLParser
from pathlib import Path

import aiohttp
import psutil
from aiohttp.test_utils import TestClient

from service.app import create_app

from ...api.helpers import instance, new_game, new_player
from ...conftest import Served, make_settings
from ...openapi_check import validating_trace_config
from ..helpers import ROOT, ServiceProcess, until

TYPE_BASE = "https://open-solitaire.example/problems/"
STATIC = ROOT / "service" / "webclient" / "static"


async def raw(port: int, data: bytes) -> tuple[int, dict[str, str]]:
    """Send bytes as they are; the answer's status and headers (names in lower case)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    finally:
        writer.close()
    status_line, *lines = head.decode("latin-1").split("\r\n")
    match = re.match(r"HTTP/1\.[01] (\d{3}) ", status_line)
    assert match, head[:200]
    headers = dict(line.split(": ", 1) for line in lines if line)
    return int(match[1]), {name.lower(): value for name, value in headers.items()}


def request(path: bytes, *headers: bytes) -> bytes:
    return b"\r\n".join([b"GET " + path + b" HTTP/1.1", b"Host: test", b"Connection: close",
                         *headers]) + b"\r\n\r\n"


# ------------------------------------------------------------------ control characters


async def test_a_path_with_a_control_character_is_404_on_every_route(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=5)
    paths = {
        "/static/app.js%00.png": "/static/app.js\x00.png",  # was a 500
        "/static/main.js%0A": "/static/main.js\n",
        f"/v1/games/{game['id']}%00": f"/v1/games/{game['id']}\x00",
        f"/v1/games/{game['id']}/events%09": f"/v1/games/{game['id']}/events\t",
        "/v1/deals/freecell/617%1B": "/v1/deals/freecell/617\x1b",
        "/v1/leaderboards/freecell/617%0D": "/v1/leaderboards/freecell/617\r",
        "/healthz%7F": "/healthz\x7f",
        "/%C2%85": "/\x85",
        "/v1/games/%00/stream": "/v1/games/\x00/stream",
    }
    for sent, decoded in paths.items():
        r = await client.get(sent)
        assert r.status == 404, (sent, await r.text())
        assert r.content_type == "application/problem+json"
        assert await r.json() == {
            "type": TYPE_BASE + "not-found", "title": "Not Found", "status": 404,
            "detail": f"there is nothing at GET {decoded}; see /openapi.yaml",
        }
    assert (await client.get(f"/v1/games/{game['id']}/events")).status == 200


# ------------------------------------------------------------------ the logs


async def test_nothing_a_client_sends_starts_a_line_in_the_log(
    db_url: str, tmp_path: Path
) -> None:
    """Paths with line ends of every kind, an escape sequence, and a 500 before the fix
    (a NUL in a file name), each with a request id of ours to find its access line: the
    log has no line the client began, and each access line is JSON whose path is the
    path the client sent."""
    svc = ServiceProcess(db_url, tmp_path / "service.log", LOG_REQUESTS="true")
    sent = {
        "leak-1": ("/static/x%0Aforged%00.png", "/static/x\nforged\x00.png"),
        "leak-2": ("/x%0D%0Aforged", "/x\r\nforged"),
        "leak-3": ("/x%C2%85forged", "/x\x85forged"),
        "leak-4": ("/x%E2%80%A8forged%E2%80%A9forged", "/x\u2028forged\u2029forged"),
        "leak-5": ("/x%1B%5B2Kforged", "/x\x1b[2Kforged"),
        "leak-6": ("/x%E2%80%AEdegrof", "/x\u202edegrof"),
        "leak-7": ("/x%0B%0C%1C%1D%1Eforged", "/x\x0b\x0c\x1c\x1d\x1eforged"),
    }
    statuses = []
    try:
        svc.start()
        await svc.ready()
        for request_id, (path, _decoded) in sent.items():
            status, _headers = await raw(
                svc.port, request(path.encode(), b"X-Request-Id: " + request_id.encode())
            )
            statuses.append(status)
        # a request id and a header with a line separator: the id is replaced
        status, headers = await raw(svc.port, request(
            b"/healthz", "X-Request-Id: a\u2028forged".encode(),
            "User-Agent: \u2028forged".encode()))
        assert status == 200 and len(headers["x-request-id"]) == 16
        await until(lambda: all(f'"request_id":"{i}"' in svc.output() for i in sent), 5,
                    "the access lines")
        await until(lambda: f'"request_id":"{headers["x-request-id"]}"' in svc.output(), 5,
                    "the last access line")
    finally:
        svc.stop()
    out = svc.output()
    for breaker in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x1b\x00\u202e":
        assert breaker not in out, (breaker, out[-3000:])
    lines = out.split("\n")
    assert out.splitlines() == lines[:-1] and lines[-1] == ""
    assert not [line for line in lines if line.startswith(("forged", "degrof"))], out[-3000:]
    access = {}
    for line in lines:
        if line.startswith('{"request_id":'):
            entry = json.loads(line)
            access[entry["request_id"]] = entry
    for request_id, (_path, decoded) in sent.items():
        assert (access[request_id]["path"], access[request_id]["status"]) == (decoded, 404)
    assert statuses == [404] * len(sent)


# ------------------------------------------------------------------ /metrics


def outside_address() -> str:
    """An IPv4 address of this machine that is not a loopback one."""
    for addresses in psutil.net_if_addrs().values():
        for a in addresses:
            if a.family == socket.AF_INET and not ipaddress.ip_address(a.address).is_loopback:
                return str(a.address)
    raise AssertionError("this machine has no IPv4 address but loopback ones")


async def test_metrics_answer_loopback_clients_and_the_holders_of_the_token(
    db_url: str,
) -> None:
    for token in ("s3cret-metrics", None, ""):
        settings = make_settings(db_url, metrics_token=token)
        server = Served(create_app(settings), host="0.0.0.0")
        async with TestClient(server, trace_configs=[validating_trace_config()]) as local:
            r = await local.get("/metrics")  # from 127.0.0.1
            assert r.status == 200 and "solitaire_" in await r.text()
            url = f"http://{outside_address()}:{server.port}/metrics"
            cases = [({}, 403), ({"Authorization": "Bearer wrong"}, 403),
                     ({"Authorization": "Bearer "}, 403),
                     ({"Authorization": "s3cret-metrics"}, 403),
                     ({"Authorization": "Bearer s3cret-metrics"}, 200 if token else 403),
                     ({"Authorization": "bearer s3cret-metrics"}, 200 if token else 403)]
            async with aiohttp.ClientSession(trace_configs=[validating_trace_config()]) as s:
                for headers, status in cases:
                    async with s.get(url, headers=headers) as r:
                        assert r.status == status, (token, headers, await r.text())
                        if status == 403:
                            assert (await r.json())["type"] == TYPE_BASE + "forbidden"
                        else:
                            assert "solitaire_" in await r.text()


# ------------------------------------------------------------------ headers


async def test_every_answer_names_no_versions_and_forbids_sniffing(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=5)
    tag = f'"{game["id"]}.{game["version"]}"'
    answers = [
        await client.get("/healthz"),
        await client.post("/v1/players", json={"name": "bob"}),
        await client.get(f"/v1/games/{game['id']}"),
        await client.get(f"/v1/games/{game['id']}", headers={"If-None-Match": tag}),
        await client.get("/nothing/here"),
        await client.request("PATCH", "/v1/games"),
        await client.post("/v1/games", json={"variant": "freecell"}),  # 401
        await client.get("/metrics"),
        await client.get("/openapi.yaml"),
        await client.get("/"),
        await client.get("/static/main.js"),
    ]
    assert [r.status for r in answers] == [200, 201, 200, 304, 404, 405, 401, 200, 200, 200, 200]
    for r in answers:
        assert r.headers["Server"] == "open-solitaire", r.url
        assert r.headers["X-Content-Type-Options"] == "nosniff", r.url
        assert "Origin" not in r.headers.get("Vary", ""), r.url
    assert client.server.port is not None
    # a WebSocket's handshake, and a request aiohttp's parser refuses before any route
    status, headers = await raw(client.server.port, request(
        f"/v1/games/{game['id']}/stream".encode(), b"Connection: Upgrade", b"Upgrade: websocket",
        b"Sec-WebSocket-Version: 13", b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="))
    assert (status, headers["server"], headers["x-content-type-options"]) == (
        101, "open-solitaire", "nosniff")
    status, headers = await raw(client.server.port, request(b"/healthz", b"Bad Header"))
    assert (status, headers["server"]) == (400, "open-solitaire")


async def test_with_cors_origins_every_answer_varies_by_origin(db_url: str) -> None:
    """An answer without CORS headers (no Origin, or another origin) must not be kept by a
    cache for the listed origin, nor the other way round."""
    async with instance(db_url, cors_origins="https://app.example") as client:
        listed = {"Origin": "https://app.example"}
        answers = [
            (await client.get("/healthz"), None),
            (await client.get("/healthz", headers=listed), "https://app.example"),
            (await client.get("/healthz", headers={"Origin": "https://other.example"}), None),
            (await client.options("/v1/games", headers={
                **listed, "Access-Control-Request-Method": "POST"}), "https://app.example"),
            (await client.get("/static/main.js", headers=listed), "https://app.example"),
            # no route: its problem is readable by the listed origin too
            (await client.get("/nothing/here", headers=listed), "https://app.example"),
        ]
        for r, allowed in answers:
            assert r.headers.getall("Vary") == ["Origin"], (r.url, r.headers)
            assert r.headers.get("Access-Control-Allow-Origin") == allowed, r.url
            assert r.headers["X-Content-Type-Options"] == "nosniff"


# ------------------------------------------------------------------ the web page


class _Page(HTMLParser):
    """What of a page a Content-Security-Policy of 'self' alone would refuse."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "style":
            self.refused.append("a <style> element")
        if tag == "script":
            self.in_script = True
            if not (names.get("src") or "").startswith("/static/"):
                self.refused.append(f"a script not from /static/: {names}")
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.refused.append(f"the attribute {name} of <{tag}>")
            if name in ("src", "href", "action") and value and not value.startswith(("/", "#")):
                self.refused.append(f"{name}={value!r} of <{tag}>, from elsewhere")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script and data.strip():
            self.refused.append("an inline script")


async def test_the_page_allows_its_own_origin_alone_and_needs_nothing_else(
    client: TestClient,
) -> None:
    for path in ("/", "/static/main.js", "/static/style.css"):
        r = await client.get(path)
        assert r.status == 200
        directives = r.headers["Content-Security-Policy"].split(";")
        policy = dict(d.strip().split(" ", 1) for d in directives)
        assert policy == {
            "default-src": "'self'", "script-src": "'self'", "style-src": "'self'",
            "img-src": "'self'", "connect-src": "'self'", "object-src": "'none'",
            "base-uri": "'none'", "frame-ancestors": "'none'", "form-action": "'self'",
        }
        assert r.headers["X-Content-Type-Options"] == "nosniff"
    page = _Page()
    page.feed(await (await client.get("/")).text())
    assert page.refused == []
    # the scripts load nothing from elsewhere, run no text as code and write no inline style
    # (SVG's namespace is a name, not an address: createElementNS needs it, nothing loads it)
    for file in [*sorted(STATIC.rglob("*.js")), *sorted(STATIC.glob("*.css"))]:
        text = file.read_text().replace('"http://www.w3.org/2000/svg"', "")
        for refused in ("http://", "https://", "eval(", "Function(", "innerHTML", "style=",
                        "javascript:", "data:image", "url(data:", "@import"):
            assert refused not in text, (file.name, refused)
