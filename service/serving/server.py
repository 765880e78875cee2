"""aiohttp's server with the limits on what one client's connections may hold
(docs/faults.md, "Hostile input and limits on one client"):

- a request whose headers and body are not complete REQUEST_TIMEOUT_S after its first
  byte is answered 408 (problem+json) and its connection closed; the time a keep-alive
  connection waits for its next request is not a request's (aiohttp closes it after its
  keep-alive timeout);
- with RATE_LIMITS on, an address holds at most MAX_CONNECTIONS_PER_ADDRESS connections at
  once, WebSockets included, counted across the workers (service/serving/addresses.py): the
  next is closed as soon as it is accepted, before a byte of it is read.

`run` serves an app as aiohttp's web.run_app does, with a `GuardedRunner`: aiohttp's
AppRunner whose server asks the front first (service/serving/front.py) and makes
`GuardedHandler`s, aiohttp's RequestHandler with its asyncio
hooks extended (connection_made, data_received, connection_lost). A request's clock costs
each read from the socket a few attribute reads and stores: no timer, no system call, no
allocation. One sweep per process, every REQUEST_TIMEOUT_S / 8 (at most 1 s), counts the
time in ticks and looks at every connection's clock.

The address is the peer's: behind a reverse proxy every client has the proxy's address,
so the proxy's own limits apply and this one should be set above what it sends.
"""

from __future__ import annotations

import asyncio
import errno
import math
import signal
import socket
import sys
from typing import Any, cast

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler

from service.base.errors import RequestTimeout
from service.base.observe import log_request, new_request_id
from service.base.problems import parser_problem, parser_reason, problem, problem_body
from service.base.requests import client_address
from service.base.responses import SERVER, every_answer_headers
from service.base.settings import Settings
from service.serving.addresses import REFUSED, UNCOUNTED, AddressCounts
from service.serving.front import front

# what aiohttp's web.run_app gives a keep-alive connection waiting for its next request,
# and a request's body that its answer left unread to come to its end
KEEPALIVE_SECONDS = 75.0
LINGER_SECONDS = 10.0
# what a WebSocket's client may send: its pongs and its close frame, and messages the
# streams ignore (service/live/sockets.py); past WS_HEARD_BYTES, and WS_HEARD_RATE bytes a
# second of the socket's life, it is no client's (a flood of empty frames, which aiohttp
# reads as fast as they come, took the event loop from every other request), and the
# connection is cut
WS_HEARD_BYTES = 64 * 1024
WS_HEARD_RATE = 1024
# what one request may take on the wire, in MAX_BODY_BYTES: a body over the limit is a
# 413 long before, so only framing can make it so much (a chunk's extension, which the
# parser reads without end, 6.7 GB in 10 s took the event loop from every other request);
# the connection is cut
WIRE_BODIES = 8


class Guard:
    """This process's limits: the settings, the address table, the request clock."""

    def __init__(self, settings: Settings, counts: AddressCounts) -> None:
        self.timeout = settings.request_timeout_s
        self.step = min(1.0, self.timeout / 8)
        # a request whose first byte came in tick b is due in tick b + ticks: at least
        # `timeout` seconds later, at most `step` more
        self.ticks = math.ceil(self.timeout / self.step) + 1
        self.tick = 0
        self.most = settings.max_connections_per_address if settings.rate_limits_on else 0
        self.most_wire = WIRE_BODIES * settings.max_body_bytes
        self.counts = counts
        # the headers the app's hooks give every answer, for the answers written here
        # (service/base/responses.py: answer_headers)
        self.headers = every_answer_headers(bool(settings.cors_origin_list))
        self.log_requests = settings.log_requests

    def logged(self, rid: str, method: str, path: str, status: int, remote: str | None,
               elapsed: float = 0.0) -> None:  # fmt: skip
        """The access-log line of an answer given before any route (the parser refused the
        request, or it never came whole): route "unmatched", as an unknown path's."""
        if self.log_requests:
            log_request(rid, method, path, "unmatched", status, elapsed, remote)

    def late(self) -> RequestTimeout:
        return RequestTimeout(f"the request was not complete {self.timeout:g} s after its"
                              " first byte")  # fmt: skip

    def late_answer(self, remote: str | None, began: int) -> bytes:
        """The 408 of a request whose headers never came whole (no handler has it), from
        `remote`, whose first byte came in tick `began`."""
        exc = self.late()
        body = problem_body(exc.status, exc.detail, exc.slug, exc.title)
        head = (
            f"HTTP/1.1 {exc.status} {exc.title}\r\n"
            "Content-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Connection: close\r\n"
            f"Server: {SERVER}\r\n"
            + "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
            + f"X-Request-Id: {(rid := new_request_id())}\r\n\r\n"
        )
        # (its request line never came whole; its time, to the tick)
        self.logged(rid, "-", "-", exc.status, remote, (self.tick - began) * self.step)
        return head.encode() + body


class GuardedHandler(RequestHandler):
    """aiohttp's handler of one connection, which counts its address and times its
    requests (see the module's docstring)."""

    __slots__ = ("_body", "_guard", "_heard", "_slot", "_wire", "began")

    def __init__(self, manager: GuardedServer, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._guard = manager.guard
        # the tick in which the first byte of the request now arriving came; -1: none is
        self.began = -1
        self._body: StreamReader | None = None  # the body of a request, still arriving
        self._slot = UNCOUNTED  # its address's place in the table
        self._heard: tuple[float, int] | None = None  # a WebSocket's: since when, how much
        self._wire = 0  # the bytes of the request now arriving

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        guard = self._guard
        if guard.most:
            peer = transport.get_extra_info("peername")
            address = client_address(peer[0] if isinstance(peer, tuple) else None)
            self._slot = guard.counts.take(address, guard.most)
            if self._slot == REFUSED:
                self.force_close()  # nothing it sends is read
                transport.close()
                return
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        slot, self._slot = self._slot, UNCOUNTED
        self.began, self._body = -1, None
        if slot == REFUSED:
            return  # aiohttp never had it
        if slot >= 0:
            self._guard.counts.give_back(slot)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._upgraded and not self._heard_within(len(data)):
            return
        if self.began < 0 and data and not self._upgraded:  # not a WebSocket's frames
            self.began, self._wire = self._guard.tick, 0
        if self.began >= 0:
            self._wire += len(data)
            if self._wire > self._guard.most_wire and self.transport is not None:
                self.transport.abort()
                return
        count = self._request_count
        RequestHandler.data_received(self, data)
        # A request is complete when its headers and its body have come. (When one read
        # completes a request and begins the next, pipelined, that one's clock starts
        # with its next read.)
        if self._request_count != count and self._messages:
            message, body = self._messages[-1]
            # A body the answer left unread (a 401's, a 404's, a 413's) is read to its end,
            # as far as the wire allows, before the connection is kept: but for one that
            # comes compressed, which the parser undoes as it comes (a gzip body of zeros
            # sent to a 404 made 1 GB, 3 s of the event loop), whose connection is closed.
            compressed = getattr(message, "compression", None) is not None
            self._lingering_time = 0.0 if compressed else LINGER_SECONDS
            if body.is_eof():
                self.began, self._body = -1, None
            else:
                self._body = body
        elif self._body is not None and self._body.is_eof():
            self.began, self._body = -1, None

    def _heard_within(self, size: int) -> bool:
        """Whether a WebSocket's client has sent no more than it may (WS_HEARD_BYTES);
        else the connection is cut."""
        now = self._loop.time()
        since, heard = self._heard or (now, 0)
        self._heard = since, heard + size
        if heard + size <= WS_HEARD_BYTES + WS_HEARD_RATE * (now - since):
            return True
        if self.transport is not None:
            self.transport.abort()
        return False

    def time_out(self) -> None:
        """The request now arriving began REQUEST_TIMEOUT_S ago."""
        body, self._body, began, self.began = self._body, None, self.began, -1
        if self.transport is None or self._close or self._force_close:
            return
        if body is not None:
            # its handler has it or will: reading the body raises RequestTimeout, which
            # the problem middleware answers with 408; aiohttp then closes the connection
            self.close()
            body.set_exception(self._guard.late())
        elif self._waiter is not None:
            # between requests: no handler has one, so the 408 is written here
            peer = self.transport.get_extra_info("peername")
            self.transport.write(self._guard.late_answer(peer[0] if peer else None, began))
            self.force_close()
        else:
            self.close()  # an earlier request is being answered: close after it

    def handle_error(self, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """aiohttp's own answer to a request its parser refuses (a control character or a
        line too long, say): it comes before any route, so before the problem middleware
        and the app's hooks. Answered here as every error is, problem+json
        (problems.parser_problem), not with aiohttp's text, which quotes the request's
        bytes; with the headers the hooks give every answer; the connection closed after
        it, as aiohttp does."""
        if request.writer.output_size > 0:  # as aiohttp: too late for an answer
            raise ConnectionError("an answer was begun already: no answer to the error")
        if status >= 500 or not isinstance(exc, HttpProcessingError):
            self.log_exception("Error handling request from %s", request.remote, exc_info=exc)
        else:  # a client's malformed bytes: a line, no traceback for anyone to fill logs with
            self.logger.info("refused a request from %s: %s", request.remote, parser_reason(exc))
        status, slug, detail = parser_problem(status, exc)
        response = problem(status, detail, slug)
        response.headers.update(self._guard.headers)
        rid = response.headers["X-Request-Id"] = new_request_id()  # (the request's own unread)
        response.force_close()
        self._guard.logged(rid, "-", "-", status, request.remote)  # (a placeholder's method)
        return response


class GuardedServer(web.Server):
    """aiohttp's server, making GuardedHandlers, with the sweep of the request clock."""

    def __init__(self, guard: Guard, handler: Any, *, request_factory: Any,
                 handler_cancellation: bool, **handler_args: Any) -> None:
        super().__init__(handler, request_factory=request_factory,
                         handler_cancellation=handler_cancellation, **handler_args)
        self.guard = guard
        self.loop = asyncio.get_running_loop()
        self.handler_args = handler_args
        self._sweeping = self.loop.call_later(guard.step, self._sweep)

    def __call__(self) -> GuardedHandler:
        return GuardedHandler(self, loop=self.loop, **self.handler_args)

    def _sweep(self) -> None:
        guard = self.guard
        guard.tick += 1
        due = guard.tick - guard.ticks
        for handler in cast(list[GuardedHandler], self.connections):
            if 0 <= handler.began <= due:
                handler.time_out()
        self._sweeping = self.loop.call_later(guard.step, self._sweep)

    async def shutdown(self, timeout: float | None = None) -> None:
        await super().shutdown(timeout)
        self._sweeping.cancel()


class FrontRunner(web.AppRunner):
    """aiohttp's AppRunner whose server asks the app's front first (the 304s memory
    gives: service/serving/front.py), then the app."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.request_handler = front(self.app, server.request_handler)
        return server


class GuardedRunner(FrontRunner):
    """aiohttp's AppRunner with a GuardedServer: aiohttp starts the app and builds its
    own server, whose handler and request factory the GuardedServer takes."""

    def __init__(self, app: web.Application, guard: Guard, *, shutdown_timeout: float,
                 **handler_args: Any) -> None:
        super().__init__(app, shutdown_timeout=shutdown_timeout, **handler_args)
        self.guard = guard
        self.handler_args = handler_args

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        return GuardedServer(self.guard, server.request_handler,
                             request_factory=server.request_factory,
                             handler_cancellation=server.handler_cancellation,
                             **self.handler_args)  # fmt: skip


# what stops a service process gracefully: SIGHUP too, the hang-up of the terminal a
# `make run` runs in
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def port_taken(host: str, port: int) -> str | None:
    """Why HOST:PORT cannot be served, or None: a name that resolves to nothing, or a
    port another process listens on. Asked before the workers bind it with SO_REUSEPORT,
    which a second instance's workers would share silently (taking part of the traffic,
    with rate counters of their own); a port in TIME_WAIT is free (SO_REUSEADDR)."""
    if port == 0:
        return None
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"HOST {host!r} names no address of this machine ({exc.strerror})"
    for family, kind, proto, _, address in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:  # (an address of no interface here, say)
                    return f"{host}:{port} cannot be served ({exc.strerror}): check HOST"
                return (f"{host}:{port} cannot be served ({exc.strerror}): another instance"
                        " of the service, or another server, listens there; stop it or set"
                        " PORT")  # fmt: skip
    return None


# the connections a port holds before they are accepted: a thousand clients connecting at
# once (the watchers of a race, an app's players after a push) wait in this queue instead
# of for their handshake to be sent again a second later, as past aiohttp's own 128 (the
# kernel takes at most net.core.somaxconn, 4096 on current Linux)
LISTEN_BACKLOG = 4096


def listening_site(runner: web.BaseRunner, settings: Settings, reuse_port: bool) -> web.TCPSite:
    return web.TCPSite(runner, settings.host, settings.port, reuse_port=reuse_port,
                       backlog=LISTEN_BACKLOG)  # fmt: skip


def run(app: web.Application, settings: Settings, counts: AddressCounts, reuse_port: bool,
        shutdown_timeout: float) -> None:
    """Serve `app` on HOST:PORT until SIGTERM or SIGINT, then shut down as aiohttp does:
    stop accepting, close idle connections, let requests under way finish (within
    `shutdown_timeout`), run the app's shutdown and cleanup."""

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, stop.set)
        runner = GuardedRunner(app, Guard(settings, counts), access_log=None,
                               keepalive_timeout=KEEPALIVE_SECONDS,
                               shutdown_timeout=shutdown_timeout)  # fmt: skip
        await runner.setup()
        try:
            site = listening_site(runner, settings, reuse_port)
            await site.start()
            if settings.port == 0:  # (any free port: the one taken, for whoever runs it)
                print(f"listening on port {runner.addresses[0][1]}", file=sys.stderr, flush=True)
            await stop.wait()
        finally:
            await runner.cleanup()

    asyncio.run(serve())
