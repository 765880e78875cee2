"""What every handler answers: JSON out, ETags and 304s, and the headers every answer
carries. (What a handler reads is service/base/requests.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import re
import struct
import sys
import termios
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, NamedTuple, TypeVar

import orjson
from aiohttp import web, web_response

from service.base.backend import Backend
from service.base.keys import METRICS_KEY, REQUEST_ID_KEY, WAITED_BEFORE_KEY
from service.database.connections import current_budget

# every answer's Server header: no versions, which serve an attacker and no client
SERVER: Final = "open-solitaire"


def name_the_server() -> None:
    """Every answer's `Server` is SERVER, aiohttp's own too (a request its parser refuses
    is answered before any route, and so before any hook of ours), instead of aiohttp's
    and Python's versions."""
    web_response.SERVER_SOFTWARE = SERVER


Prepare = Callable[[web.Request, web.StreamResponse], Awaitable[None]]
R = TypeVar("R", bound=web.StreamResponse)


# what a page of a listed origin (CORS_ORIGINS) may read of an answer
CORS_EXPOSED_HEADERS = ("ETag", "Retry-After", "Location", "X-Request-Id", "Idempotent-Replayed")


def cors_headers(origin: str | None, origins: frozenset[str]) -> dict[str, str]:
    """The CORS headers of an answer to `origin` that no route of aiohttp-cors's made (a
    404 or 405 of no route, a refusal before the app): none for an origin not listed."""
    if origin is None or origin not in origins:
        return {}
    return {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Expose-Headers": ",".join(CORS_EXPOSED_HEADERS),
    }


def every_answer_headers(vary_origin: bool) -> dict[str, str]:
    """What answer_headers gives every answer, for the answers written before the app's
    hooks (the server's own, the front's)."""
    headers = {"X-Content-Type-Options": "nosniff"}
    if vary_origin:
        headers["Vary"] = "Origin"
    return headers


def answer_headers(vary_origin: bool) -> Prepare:
    """The app's on_response_prepare: every answer (WebSocket handshakes, streamed
    answers, files and problems included) carries the request's X-Request-Id (the
    observer's, service/base/observe.py) and says `X-Content-Type-Options: nosniff`, and
    `Vary: Origin` when the answers to other origins differ (CORS_ORIGINS is set): then
    a cache never hands one origin's answer to another. A streamed answer's headers go
    before its handler returns, so they are written here, as the answer is prepared."""

    async def prepare(request: web.Request, response: web.StreamResponse) -> None:
        headers = response.headers
        rid = request.get(REQUEST_ID_KEY)
        if rid is not None:  # (an Expect's refusal, before the middlewares, has its own)
            headers["X-Request-Id"] = rid
        headers["X-Content-Type-Options"] = "nosniff"
        if vary_origin:
            vary = headers.get("Vary")
            if vary is None:
                headers["Vary"] = "Origin"
            elif "origin" not in (v.strip().lower() for v in vary.split(",")):
                headers["Vary"] = f"{vary}, Origin"

    return prepare


def json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(body), status=status, content_type="application/json")


def secret_response(body: Any, status: int = 200, replayed: bool = False) -> web.Response:
    """An answer that carries a secret (a token, a link code) or a player's own devices:
    no cache, shared or not, may keep it. `replayed`: the first answer given again to a
    retry (its Idempotency-Key)."""
    response = json_response(body, status)
    response.headers["Cache-Control"] = "no-store"
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def private(response: R) -> R:
    """A player's own answer (read with their token): a cache may keep it for that player
    alone, never share it, and keeps one per token."""
    response.headers["Cache-Control"] = "private"
    response.headers["Vary"] = "Authorization"
    return response


# an entity tag in If-None-Match (RFC 9110, 8.8.3), weak or not: its opaque part
_ENTITY_TAG = re.compile(r'(?:W/)?"([\x21\x23-\x7e\x80-\xff]*)"')


def offered_tags(request: web.Request) -> list[str]:
    """The tags of the request's If-None-Match, `*` as itself: every line of it, as one
    list (RFC 9110, 5.3), empty elements and what is no tag passed over."""
    offered = []
    for line in request.headers.getall("If-None-Match", ()):
        if line.strip() == "*":
            offered.append("*")
        else:
            offered += _ENTITY_TAG.findall(line)
    return offered


def holds_tag(request: web.Request, tag: str, star: bool = True) -> bool:
    """Whether the request's If-None-Match holds `tag` (or `*`, unless not `star`): weak
    comparison, as RFC 9110 has it for If-None-Match."""
    lines = request.headers.getall("If-None-Match", ())
    if not lines:
        return False
    if len(lines) == 1 and lines[0] == f'"{tag}"':  # (the usual: the one tag the client holds)
        return True
    held = (tag, "*") if star else (tag,)
    return any(offered in held for offered in offered_tags(request))


def not_modified(request: web.Request, tag: str) -> web.Response | None:
    """A 304 when the request's If-None-Match holds `tag`, else None."""
    if holds_tag(request, tag):
        return web.Response(status=304, headers={"ETag": f'"{tag}"'})
    return None


class Known(NamedTuple):
    """A tag memory knows to be a resource's current one. `now`: the tag memory knows
    now (None when it knows none), asked again once every commit of the other instances
    acknowledged before the request came has been heard; None when the tag holds for good
    (a full page of a log, which only grows)."""

    tag: str
    now: Callable[[], str | None] | None


# what a route's memory knows of the resource a request names (its path's parts, as the
# route's match_info has them), or None; raises what the route would answer instead
Recall = Callable[[Backend, web.Request, Mapping[str, str]], Known | None]
H = TypeVar("H", bound=Callable[..., Any])


def remembered(known: Recall) -> Callable[[H], H]:
    """Marks a GET route's handler whose 304 memory may give, with what memory knows of
    the resource: the front asks it before the app (service/serving/front.py), and the
    route asks the same."""

    def mark(handler: H) -> H:
        handler.known = known  # type: ignore[attr-defined]
        return handler

    return mark


# a request whose 304 memory could not vouch for (the front's answer, then the route's)
_MEMORY_ASKED = web.RequestKey("memory_asked", bool)


async def not_modified_from_memory(
    request: web.Request, known: Known | None, backend: Backend, *, first: bool = False
) -> web.Response | None:
    """A 304 with no read of the log, when the request's If-None-Match holds the tag
    memory knows (`known`), and memory still knows it once every commit of another
    instance acknowledged before this request came has been heard (Backend.caught_up: it
    would have made memory's copy unknown; an instance alone waits for nothing, and then
    nothing ran since `known` was asked). Else None: the database answers (and a second
    ask of the same request, the route's after the front's, waits for nothing; `first`:
    none came before)."""
    if known is None or not holds_tag(request, known.tag, star=False):
        return None  # (`*`: the answer's own tag is the log's to say, a won game's too)
    if known.now is not None and not backend.alone() and (
        (not first and _MEMORY_ASKED in request)
        or not await _caught_up(request, backend)
        or known.now() != known.tag
    ):  # fmt: skip
        request[_MEMORY_ASKED] = True
        return None
    return web.Response(status=304, headers={"ETag": f'"{known.tag}"'})


async def _caught_up(request: web.Request, backend: Backend) -> bool:
    """Backend.caught_up now: its wait for a beat, which comes back through the database,
    is one of the request's waits for it (DB_TIMEOUT, all of them together)."""
    asked = time.monotonic()
    try:
        return await backend.caught_up(asked)
    finally:
        budget = current_budget()
        if budget is not None:
            budget.spend(asked)
        else:  # the front's: the app's budget starts short of it (observe.py)
            waited = time.monotonic() - asked
            request[WAITED_BEFORE_KEY] = request.get(WAITED_BEFORE_KEY, 0.0) + waited


def tagged_response(request: web.Request, body: Any, tag: str | None = None) -> web.Response:
    """A 200 carrying an ETag, or a 304 with no body when If-None-Match holds it.

    `tag` is given where the answer's version is known (a game's id and version), and
    then a 304 costs no serialising either; otherwise the tag is a hash of the body, which
    the answer costs anyway."""
    if tag is not None and holds_tag(request, tag):
        return web.Response(status=304, headers={"ETag": f'"{tag}"'})
    payload = orjson.dumps(body)
    if tag is None:
        tag = hashlib.blake2b(payload, digest_size=12).hexdigest()
        if holds_tag(request, tag):
            return web.Response(status=304, headers={"ETag": f'"{tag}"'})
    response = web.Response(body=payload, content_type="application/json")
    response.headers["ETag"] = f'"{tag}"'  # (aiohttp's `etag` setter writes it "Etag")
    return response


def written(
    request: web.Request, body: dict[str, Any], status: int, replayed: bool = False
) -> web.Response:
    """A write's answer; a 201's events are counted by type in the metrics. The first
    answer given again to a retry (its Idempotency-Key) says so: `Idempotent-Replayed`."""
    if replayed:
        response = json_response(body, status)
        response.headers["Idempotent-Replayed"] = "true"
        return response
    if status == 201:
        metrics = request.app[METRICS_KEY]
        for event in body.get("events", ()):
            metrics.appended(event["type"])
    return json_response(body, status)


# the ioctl that tells a TCP socket's bytes sent but not acknowledged yet (SIOCOUTQ)
_OUTQ: Final = getattr(termios, "TIOCOUTQ", None) if sys.platform == "linux" else None


def held_back(transport: asyncio.Transport) -> int:
    """The bytes of an answer its client has not taken yet: what the transport holds and,
    where the system tells it (Linux), the socket's send queue, sent but not acknowledged
    (which a client reading slowly empties little by little, long before the system lets
    the transport hand it more)."""
    held: int = transport.get_write_buffer_size()
    sock = transport.get_extra_info("socket")
    if sock is not None and _OUTQ is not None:
        with contextlib.suppress(OSError, ValueError):
            held += int(struct.unpack("i", fcntl.ioctl(sock.fileno(), _OUTQ, b"\0" * 4))[0])
    return held


async def write_patiently(request: web.Request, response: web.StreamResponse, chunk: bytes,
                          patience: float) -> None:  # fmt: skip
    """`response.write(chunk)`, which waits while the client's buffers are full: a client
    that takes none of what is held back for `patience` seconds is a TimeoutError, one
    that takes some (however slowly) is waited for."""
    write = asyncio.ensure_future(response.write(chunk))
    transport = request.transport
    try:
        last, since = -1, time.monotonic()
        while not write.done():
            await asyncio.wait([write], timeout=min(1.0, patience / 4))
            held = held_back(transport) if transport is not None else 0
            if held != last:  # (taken, or handed on)
                last, since = held, time.monotonic()
            elif time.monotonic() - since >= patience:
                raise TimeoutError
        write.result()
    finally:
        write.cancel()
