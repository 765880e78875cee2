"""The front: a 304 that memory can give, answered before the app's router and
middlewares (docs/performance.md, "Phone apps: batches and 304").

A client polling a game, its legal moves, its log or a board sends the tag it holds in
If-None-Match; while nothing changed, memory knows the tag is current and the answer is a
304 of a few headers. Through the app, that answer costs the router, three middlewares
and the app's hooks, twice what aiohttp itself costs for a request. The front answers it
first, with the same rule the routes use (responses.not_modified_from_memory, on what the
route's `remembered` mark says memory knows), and leaves behind what the observer
middleware does: the request's id, its count and latency, its access line
(service/base/observe.py).

Everything else goes to the app as it came, and so does any request the front is unsure
of: another method, no If-None-Match, an Origin (CORS is the app's), an Expect, a header
of problems.ONCE sent twice, a request the rate limits charge, a path with an escape in
it, a path or query the route would refuse, a tag memory cannot vouch for (or `*`). The
app then answers as it would have.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import Final, cast

from aiohttp import web

from service.base.keys import BACKEND_KEY, LIMITS_KEY, SETTINGS_KEY
from service.base.observe import OBSERVER_KEY, request_id
from service.base.problems import expectation_failed, repeated
from service.base.responses import (
    Recall,
    cors_headers,
    every_answer_headers,
    not_modified_from_memory,
)

Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]
_PART: Final = re.compile(r"\{(\w+)\}")


def pattern(route: str) -> re.Pattern[str]:
    """The paths the router sends to `route` (a part is what aiohttp's is: no slash, no
    brace), its parts named."""
    parts = _PART.split(route)
    return re.compile("".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^{{}}/]+)"
        for i, part in enumerate(parts)
    ))  # fmt: skip


def front(app: web.Application, handle: Handler) -> Handler:
    """`handle` (the app's) with the front before it, for the app's `remembered` routes;
    `handle` itself when it has none."""
    quicks = [
        (pattern(route.resource.canonical), route.resource.canonical, known)
        for route in app.router.routes()
        if route.method == "GET" and route.resource is not None
        and (known := getattr(route.handler, "known", None)) is not None
    ]
    if not quicks:
        return handle
    observer = app[OBSERVER_KEY]
    limiter = app.get(LIMITS_KEY)
    headers = every_answer_headers(bool(app[SETTINGS_KEY].cors_origin_list))
    origins = frozenset(app[SETTINGS_KEY].cors_origin_list)

    def which(path: str) -> tuple[re.Match[str], str, Recall] | None:
        for route, name, known_of in quicks:
            if (match := route.fullmatch(path)) is not None:
                return match, name, known_of
        return None

    async def answer(base: web.BaseRequest) -> web.StreamResponse:
        request = cast(web.Request, base)  # (the app's runner makes web.Requests)
        asked = request.headers
        if "Expect" in asked:
            expect = asked["Expect"]
            if expect.lower() != "100-continue":
                return await unmet(request, expect)
        if (request.method != "GET" or "If-None-Match" not in asked or "Origin" in asked
                or "Expect" in asked):  # fmt: skip
            return await handle(request)
        # (an escape in the path, `%2F` say, is read by the router as sent: the app's)
        found = None if "%" in request.rel_url.raw_path else which(request.path)
        if found is None:
            return await handle(request)
        match, name, known_of = found
        if repeated(request) is not None or (limiter is not None and not limiter.free(request)):
            return await handle(request)
        started = time.perf_counter()
        backend = app[BACKEND_KEY]
        try:
            known = known_of(backend, request, match.groupdict())
        except Exception:  # (a path or query the route refuses: its answer is the app's)
            return await handle(request)
        response = await not_modified_from_memory(request, known, backend, first=True)
        if response is None:
            return await handle(request)
        rid = request_id(asked)
        response.headers.update(headers)
        response.headers["X-Request-Id"] = rid
        observer.done(request, rid, name, 304, started)
        return response

    async def unmet(request: web.Request, expect: str) -> web.StreamResponse:
        """The 417 of an expectation other than 100-continue, whatever the path: a route's
        own expect handler says it (problems.expectation), but aiohttp's for a path or a
        method it has no route for answered in plain text, echoing the header (a 500 for
        one that is not UTF-8)."""
        started = time.perf_counter()
        info = await app.router.resolve(request)
        resource = info.route.resource
        rid = request_id(request.headers)
        refusal = expectation_failed(expect, rid)
        refusal.headers.update(headers)
        refusal.headers.update(cors_headers(request.headers.get("Origin"), origins))
        refusal.force_close()  # (its body, if sent all the same, is not read)
        observer.done(request, rid, "unmatched" if resource is None else resource.canonical,
                      417, started)
        return refusal

    return answer

