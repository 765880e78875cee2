"""GET /v1/games/{id}/stream: a game's events over a WebSocket (API.md, docs/stream.md).

Before the upgrade, a bad `after` is a 400 and an unknown game a 404 (problem+json). After
it: the stored events with seq > after, then the live ones from the hub, each once and in
order. The server ends a socket with a {"type": "reconnect", "after": n, "detail": …}
message and close code 4000 when its client fell behind, 1001 when this instance stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable

import orjson
from aiohttp import web

from service.base.errors import BadRequest, NotFound
from service.base.keys import BACKEND_KEY, LIMITS_KEY, METRICS_KEY, SETTINGS_KEY
from service.base.requests import MAX_SEQ, game_id, int_query
from service.database.store import EventStore, StoredEvent
from service.live.hub import HUB_KEY, STREAMS_KEY
from service.live.subscriptions import GOING_AWAY, Item, Subscription, event_message

log = logging.getLogger("service.stream")

# how long a client gets to take its last message and the close frame
FAREWELL_SECONDS = 2.0
# small socket buffers: a stuck client shows up as an overflowing queue (ws_queue events)
# instead of as megabytes parked in the transport
WRITE_BUFFER = 16 * 1024
INTERNAL_ERROR = 1011


async def stream(request: web.Request) -> web.StreamResponse:
    gid = game_id(request)
    after = int_query(request, "after", 0, 0, MAX_SEQ)
    assert after is not None
    ws = web.WebSocketResponse(
        heartbeat=request.app[SETTINGS_KEY].ws_heartbeat,
        compress=False,  # messages of ~200 bytes; deflate per socket would cost more than it saves
        max_msg_size=4096,
        writer_limit=WRITE_BUFFER,
    )
    if not ws.can_prepare(request).ok:
        raise BadRequest(
            "this is a WebSocket endpoint: connect with 'Upgrade: websocket'"
            f" (GET /v1/games/{gid}/events gives the stored events as JSON)"
        )
    hub = request.app[HUB_KEY]
    store = request.app[BACKEND_KEY].store
    streams = request.app[STREAMS_KEY]
    # subscribe first, then read the log: an event committed in between arrives both ways
    # and the sender drops the second copy
    sub = hub.subscribe(gid, after)
    streams[ws] = sub  # from here on, a shutdown ends this stream too
    limiter = request.app.get(LIMITS_KEY)
    address = request.remote or "-"
    try:
        backlog = await store.read_events(gid, after, BACKLOG_PAGE)
        if not backlog:
            last = (await store.versions([gid])).get(gid)
            if last is None:
                raise NotFound(f"there is no game with id {gid}")
            if after > last:  # a client ahead of the log would wait for events it has
                raise BadRequest(f"after={after} is past the game's last event, {last}:"
                                 f" ask with ?after={last} or less")
        # the stored events a stream sends cost what a page of /events does: the first page
        # past the address's rate is a 429 (before the upgrade), the next ones wait for it
        if limiter is not None:
            limiter.read_events(address, len(backlog))
        await ws.prepare(request)
        _small_buffers(request)
        sub.direct = _direct_writer(request, ws)

        async def pace(events: int) -> None:
            if limiter is not None:
                await limiter.pace_events(address, events)

        await _serve(request, ws, sub, store, backlog, pace)
    finally:
        hub.unsubscribe(sub)
        streams.pop(ws, None)
    return ws


async def _serve(
    request: web.Request,
    ws: web.WebSocketResponse,
    sub: Subscription,
    store: EventStore,
    backlog: list[StoredEvent],
    pace: Callable[[int], Awaitable[None]],
) -> None:
    """Send until the client leaves or the subscription ends (then say goodbye)."""
    gauge = request.app[METRICS_KEY].subscribers
    gauge.inc()
    sending = asyncio.create_task(_send(ws, sub, store, backlog, pace))
    reading = asyncio.create_task(_read_until_closed(ws))
    ending = asyncio.create_task(sub.ended.wait())
    tasks = (sending, reading, ending)
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if not reading.done():
            sending.cancel()
            await asyncio.wait((sending,))
            if sub.ended.is_set():
                await _farewell(request, ws, sub.last, sub.end_code, sub.end_detail)
            elif not sending.cancelled() and (exc := sending.exception()) is not None:
                log.warning("stream of game %s stopped: %r", sub.game_id, exc)
                await _farewell(request, ws, sub.last, INTERNAL_ERROR, "the stream broke off")
    finally:
        gauge.dec()
        for t in tasks:
            t.cancel()
        await asyncio.wait(tasks)


# a new stream's stored events are read and sent this many at a time, so that a long log
# costs memory in proportion to a page, not to the log
BACKLOG_PAGE = 1000


def _small_buffers(request: web.Request) -> None:
    """Cap what a stream socket parks in the transport and in the kernel: with thousands
    of subscribers, a stuck client costs its queue (ws_queue events) and 2 x 16 KiB, and
    it is noticed by its queue overflowing instead of after megabytes of backlog."""
    transport = request.transport
    if transport is None:
        return
    transport.set_write_buffer_limits(high=WRITE_BUFFER)
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, WRITE_BUFFER)


def _direct_writer(request: web.Request, ws: web.WebSocketResponse) -> Callable[[bytes], bool]:
    """Frames straight to the socket (the hub's fast path for a subscriber whose handler is
    idle): only while the socket is open and its buffer under WRITE_BUFFER; otherwise
    False, and the events go through the subscriber's queue and send_str, which waits for
    room (so a stuck client still overflows its queue)."""

    def write(data: bytes) -> bool:
        transport = request.transport
        if (ws.closed or transport is None or transport.is_closing()
                or transport.get_write_buffer_size() > WRITE_BUFFER):  # fmt: skip
            return False
        transport.write(data)
        return True

    return write


async def _send(
    ws: web.WebSocketResponse, sub: Subscription, store: EventStore,
    backlog: list[StoredEvent], pace: Callable[[int], Awaitable[None]],
) -> None:
    """The stored events, a page at a time (each after the address's rate allows it:
    `pace`), then every batch the hub delivers, without what was sent."""
    page = backlog
    while True:
        await _send_items(ws, sub, [event_message(e) for e in page])
        if len(page) < BACKLOG_PAGE:
            break
        page = await store.read_events(sub.game_id, sub.last, BACKLOG_PAGE)
        await pace(len(page))
    while batch := await sub.take():
        fresh = [item for item in batch if item[0] > sub.last]
        if not fresh:
            continue
        if fresh[0][0] > sub.last + 1:
            # not expected (the feed reads from where its subscribers are), but a gap must
            # never reach a client: fill it from the log
            missing = await store.read_events(sub.game_id, sub.last, fresh[0][0] - sub.last - 1)
            await _send_items(ws, sub, [event_message(e) for e in missing])
        await _send_items(ws, sub, fresh)


async def _send_items(ws: web.WebSocketResponse, sub: Subscription, items: list[Item]) -> None:
    for seq, text in items:
        if seq == sub.last + 1:
            # an uncompressed frame is in the transport before send_str's first await (it
            # may then wait for the buffer to drain): from here on, the client has it
            sub.last = seq
            await ws.send_str(text)


async def _read_until_closed(ws: web.WebSocketResponse) -> None:
    # clients have nothing to say here; reading lets their pongs and their close frame in
    async for _message in ws:
        pass


async def _farewell(
    request: web.Request, ws: web.WebSocketResponse, after: int, code: int, detail: str
) -> None:
    """Tell the client where to resume, then close; cut the connection if it does not
    take that within FAREWELL_SECONDS."""
    text = f"{detail}; reconnect with ?after={after}"
    message = {"type": "reconnect", "after": after, "detail": text}
    try:
        async with asyncio.timeout(FAREWELL_SECONDS):
            await ws.send_str(orjson.dumps(message).decode())
            await ws.close(code=code, message=text.encode()[:123])
    except (TimeoutError, ConnectionError, RuntimeError) as exc:
        log.info("stream: cutting a connection that did not take its farewell (%r)", exc)
        if request.transport is not None:
            request.transport.abort()


async def close_streams(app: web.Application) -> None:
    """on_shutdown: every open stream says goodbye (a reconnect message with its last seq,
    then close code 1001); aiohttp then waits for the handlers to finish."""
    for sub in list(app[STREAMS_KEY].values()):
        sub.end(GOING_AWAY, "this server is shutting down")
