"""What every request leaves behind: its id (X-Request-Id), its count and latency in the
metrics, one access-log line (when LOG_REQUESTS). The observer middleware does it for the
app's requests, and the front (service/serving/front.py) for the answers it gives itself."""

from __future__ import annotations

import asyncio
import itertools
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from aiohttp import web
from multidict import CIMultiDictProxy

from service.base.keys import REQUEST_ID_KEY, WAITED_BEFORE_KEY
from service.base.logs import access_line
from service.base.metrics import Metrics
from service.base.settings import Settings
from service.database.connections import BUDGET, Budget

Middleware = Callable[[web.Request, Any], Awaitable[web.StreamResponse]]
CANCELLED = 499  # the access log's and the metrics' status of a request cancelled unanswered
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
# our own request ids: this process's random prefix and a count (16 hex digits), unique
# without a call for random bytes per request
_REQUEST_PREFIX = secrets.token_hex(4)
_request_count = itertools.count()


def new_request_id() -> str:
    return f"{_REQUEST_PREFIX}{next(_request_count) & 0xFFFFFFFF:08x}"


def request_id(headers: CIMultiDictProxy[str]) -> str:
    """The request's id: the client's X-Request-Id when it is a plain token (it goes into
    headers, logs and error bodies, so anything else, spaces, quotes or control
    characters, gets a new one)."""
    offered = headers.get("X-Request-Id")
    return offered if offered and REQUEST_ID.fullmatch(offered) else new_request_id()


def log_request(rid: str, method: str, path: str, route: str, status: int, elapsed: float,
                remote: str | None) -> None:
    """The request's access-log line (LOG_REQUESTS), one JSON object."""
    access_line(
        orjson.dumps(
            {
                "request_id": rid,
                "method": method,
                "path": path,
                "route": route,
                "status": status,
                "ms": round(elapsed * 1000, 2),
                "remote": remote,
            }
        ).decode()
    )


class Observer:
    """Counts and logs requests; `middleware` is what create_app installs first."""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.db_timeout = settings.db_timeout
        self.log_requests = settings.log_requests
        self.count = metrics.http.observe

    def done(self, request: web.BaseRequest, rid: str, route: str, status: int,
             started: float) -> None:  # fmt: skip
        """A request answered (or not: CANCELLED) `started` (perf_counter) ago."""
        elapsed = time.perf_counter() - started
        self.count(route, request.method, status, elapsed)
        if self.log_requests:
            log_request(rid, request.method, request.path, route, status, elapsed,
                        request.remote)  # fmt: skip

    @web.middleware
    async def middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        headers = request.headers
        rid = request[REQUEST_ID_KEY] = request_id(headers)
        # what the request may wait for the database, all its waits together; a WebSocket
        # lives long: each of its waits has DB_TIMEOUT, as background work's do
        upgrade = headers.get("Upgrade")
        websocket = upgrade is not None and upgrade.lower() == "websocket"
        budget = None if websocket else Budget(
            self.db_timeout - request.get(WAITED_BEFORE_KEY, 0.0))
        BUDGET.set(budget)
        started = time.perf_counter()
        status = 500
        try:
            response = await handler(request)  # (its X-Request-Id: responses.answer_headers)
            status = response.status
            return response  # type: ignore[no-any-return]
        except web.HTTPException as exc:
            status = exc.status
            raise
        except asyncio.CancelledError:
            # no answer, and no error of the service's: the client went away (a handler
            # is cancelled with its connection, a WebSocket's included) or the service
            # stops; counted and logged as 499, nginx's "client closed request"
            status = CANCELLED
            raise
        finally:
            if budget is not None:
                budget.open = False
            self.done(request, rid, route_name(request), status, started)


def route_name(request: web.Request) -> str:
    """The route a request took, as the metrics and the access log name it."""
    info = request.match_info.route.resource
    return info.canonical if info is not None else "unmatched"


# the app's observer: its middleware's, and what answers before the middlewares report to
OBSERVER_KEY = web.AppKey("observer", Observer)
