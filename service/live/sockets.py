"""A live stream's socket, a game's (routes.py) or a race's (service/races/routes.py):
opened with small buffers, sent its log (the stored events, then what the feed brings:
send_log), served until its client leaves or its subscription ends, then a farewell: a
{"type": "reconnect", "after": n, "detail": …} message and the close code (4000 when the
client fell behind, 1001 when this instance stops, 1011 when the stream broke off), or
the connection cut when the client takes nothing for FAREWELL_SECONDS.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import orjson
from aiohttp import web

from service.base.errors import BadRequest, ServiceError, UpgradeRequired
from service.base.keys import METRICS_KEY, SETTINGS_KEY
from service.database.statements import StoredEvent
from service.live.subscriptions import Item, Subscription, event_message, text_frame

log = logging.getLogger("service.stream")

# how long a client gets to take what is being sent, its last message and the close frame
FAREWELL_SECONDS = 2.0
# small socket buffers: a stuck client shows up as an overflowing queue (ws_queue events)
# instead of as megabytes parked in the transport
WRITE_BUFFER = 16 * 1024
INTERNAL_ERROR = 1011
LINGER_NOT = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: a close is a reset
# a client's message of up to 4 KiB is read (and ignored); a longer one closes the socket
# with 1009 (aiohttp refuses a message of max_msg_size bytes or more)
MAX_MESSAGE = 4 * 1024 + 1


def websocket(request: web.Request, instead: str) -> web.WebSocketResponse:
    """The stream's socket, not prepared yet; 400 for a request that is not an upgrade
    (`instead`: what to ask for instead)."""
    ws = web.WebSocketResponse(
        heartbeat=request.app[SETTINGS_KEY].ws_heartbeat,
        compress=False,  # messages of ~200 bytes; deflate per socket would cost more than it saves
        max_msg_size=MAX_MESSAGE,
        writer_limit=WRITE_BUFFER,
    )
    try:
        ready = ws.can_prepare(request).ok
    except ValueError:  # (a header of the handshake aiohttp cannot read: not ASCII)
        ready = False
    if not ready or _other_version(request):
        raise _refusal(request, instead)
    return ws


def _other_version(request: web.Request) -> bool:
    """Whether the request asks for a WebSocket of another version than RFC 6455's, 13
    (aiohttp also takes the drafts' 7 and 8, which no browser sends any more)."""
    headers = request.headers
    return "websocket" in headers.get("Upgrade", "").lower() and (
        headers.get("Sec-WebSocket-Version") != "13"
    )


def _refusal(request: web.Request, instead: str) -> ServiceError:
    """Why aiohttp would not take the handshake: not an upgrade, another version of the
    protocol than 13, or a handshake of 13 that is malformed."""
    headers = request.headers
    if "websocket" not in headers.get("Upgrade", "").lower():
        return BadRequest(f"this is a WebSocket endpoint: connect with 'Upgrade: websocket'"
                          f" ({instead})")  # fmt: skip
    version = headers.get("Sec-WebSocket-Version", "")
    if version != "13":
        return UpgradeRequired(
            f"this stream speaks the WebSocket protocol's version 13 (RFC 6455), not"
            f" {version!r}: send 'Sec-WebSocket-Version: 13'"
        )
    return BadRequest(
        "the WebSocket handshake is malformed: it needs 'Connection: Upgrade' and a"
        " 'Sec-WebSocket-Key' of 16 bytes in base64"
    )


async def prepare(request: web.Request, ws: web.WebSocketResponse) -> None:
    """The upgrade, with small buffers: with thousands of subscribers, a stuck client costs
    its queue (ws_queue events) and 2 x 16 KiB, and it is noticed by its queue overflowing
    instead of after megabytes of backlog."""
    await ws.prepare(request)
    transport = request.transport
    if transport is None:
        return
    transport.set_write_buffer_limits(high=WRITE_BUFFER)
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, WRITE_BUFFER)


def direct_writer(request: web.Request, ws: web.WebSocketResponse) -> Callable[[bytes], bool]:
    """Frames straight to the socket (the hub's fast path for a subscriber whose handler is
    idle, and the catch-up's: _send_items): only while the socket is open and its buffer
    under WRITE_BUFFER; otherwise False, and the events go through send_str, which waits
    for room (so a stuck client still overflows its queue)."""

    def write(data: bytes) -> bool:
        transport = request.transport
        if (ws.closed or transport is None or transport.is_closing()
                or transport.get_write_buffer_size() > WRITE_BUFFER):  # fmt: skip
            return False
        transport.write(data)
        return True

    return write


async def serve(
    request: web.Request,
    ws: web.WebSocketResponse,
    sub: Subscription,
    send: Coroutine[Any, Any, None],
    what: str,
) -> None:
    """Run `send` (which ends when `sub` has ended and its queue is sent) until the client
    leaves or the subscription ends, then say goodbye. `what` names the stream in logs."""
    gauge = request.app[METRICS_KEY].subscribers
    gauge.inc()
    sending = asyncio.create_task(send)
    reading = asyncio.create_task(read_until_closed(ws))
    ending = asyncio.create_task(sub.ended.wait())
    tasks = (sending, reading, ending)
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if reading.done():
            return  # the client left, or sent no pong in time
        if not sending.done():
            # the subscription ended: what is being sent goes out first, not cancelled
            # halfway (aiohttp's connection has one drain waiter, which a send cancelled
            # in it leaves cancelled for the farewell's own sends)
            await asyncio.wait((sending,), timeout=FAREWELL_SECONDS)
        if not sending.done():
            log.info("stream of %s: cutting a connection that took nothing for %g s",
                     what, FAREWELL_SECONDS)  # fmt: skip
            abort(request)
        elif sub.ended.is_set():
            await farewell(request, ws, sub.last, sub.end_code, sub.end_detail)
        elif (exc := sending.exception()) is not None:
            log.warning("stream of %s stopped: %r", what, exc)
            await farewell(request, ws, sub.last, INTERNAL_ERROR, "the stream broke off")
    finally:
        gauge.dec()
        for t in tasks:
            t.cancel()
        await asyncio.wait(tasks)
        await _taken_or_cut(request)


async def _taken_or_cut(request: web.Request) -> None:
    """The stream is over: what is still to be sent (the last events, the farewell, the
    close frame) is taken by the client within FAREWELL_SECONDS, or the connection is cut.
    (A close, aiohttp's when a pong does not come or its own after the farewell, sends
    what waits first: forever, to a client that takes nothing.)"""
    transport = request.transport
    deadline = asyncio.get_running_loop().time() + FAREWELL_SECONDS
    while transport is not None and transport.get_write_buffer_size():
        if asyncio.get_running_loop().time() >= deadline:
            log.info("stream: cutting a connection that took nothing for %g s", FAREWELL_SECONDS)
            abort(request)
            return
        await asyncio.sleep(FAREWELL_SECONDS / 20)


# reads `limit` events of the log after a seq, oldest first
ReadLog = Callable[[int, int], Awaitable[list[StoredEvent]]]


@contextlib.asynccontextmanager
async def in_turn(turns: asyncio.Semaphore, stop: asyncio.Event) -> AsyncIterator[bool]:
    """A turn of the live streams' few at the database (Backend.stream_reads), for a page of
    an open stream's log: sixty-four streams opened at once, each reading pages of its log,
    would otherwise take every connection of the pool, and the other requests (a move, a
    game's GET) would wait behind all their pages. Says True, the turn held; False, nothing
    held, when `stop` (the subscription's end) came first. The turn is waited for as long
    as it takes: a thousand streams opened at once, each reading two pages, queue for some
    seconds while the database is well (the read itself still has DB_TIMEOUT)."""
    acquire, stopped = asyncio.ensure_future(turns.acquire()), asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait((acquire, stopped), return_when=asyncio.FIRST_COMPLETED)
        yield acquire.done() and not acquire.cancelled()
    finally:
        stopped.cancel()
        # a turn not yet granted goes back once its acquire is cancelled (Semaphore.acquire's
        # own rule); one granted goes back here: after its read, or granted just as the
        # stream ended (its client gone, the wait cancelled before it woke up)
        if not acquire.cancel() and not acquire.cancelled():
            turns.release()


def taking_turns(turns: asyncio.Semaphore, read: ReadLog, stop: asyncio.Event) -> ReadLog:
    """`read`, each call in a turn (:func:`in_turn`), until `stop` is set (the subscription
    ended: nothing is read, what it still had to send is not wanted, and its goodbye does
    not wait for a turn)."""

    async def read_in_turn(after: int, limit: int) -> list[StoredEvent]:
        async with in_turn(turns, stop) as taken:
            return await read(after, limit) if taken else []

    return read_in_turn


async def send_log(
    ws: web.WebSocketResponse,
    sub: Subscription,
    read: ReadLog,
    page: int,
    pace: Callable[[int], Awaitable[None]] | None = None,
) -> None:
    """The stored events after the subscriber's `last`, `page` at a time (each after the
    first once `pace` allows it), then every batch the feed brings, without what was sent;
    until the subscription ends. While the stored events are sent the feed's batches are
    not queued (Subscription.catching_up): at the end of the log the queue is turned on,
    and the log read once more if the feed brought anything past what was sent."""
    events = await read(sub.last, page)
    while True:
        await _send_items(ws, sub, [event_message(e) for e in events])
        if sub.ended.is_set():
            break
        if len(events) < page and not (sub.catching_up and sub.start_queue()):
            break  # the end of the log, and nothing more the feed brought meanwhile
        events = await read(sub.last, page)
        if pace is not None:
            await pace(len(events))
    while batch := await sub.take():
        fresh = [item for item in batch if item[0] > sub.last]
        if not fresh:
            continue
        if fresh[0][0] > sub.last + 1:
            # not expected (the feed reads from where its subscribers are), but a gap must
            # never reach a client: fill it from the log
            missing = await read(sub.last, fresh[0][0] - sub.last - 1)
            await _send_items(ws, sub, [event_message(e) for e in missing])
        await _send_items(ws, sub, fresh)


async def _send_items(ws: web.WebSocketResponse, sub: Subscription, items: list[Item]) -> None:
    """The items past the subscriber's last, in order. While the socket has room
    (sub.direct), a buffer's worth of them at a time is framed here and written at once,
    and the event loop is handed over between two: a page of 1000 events is then a dozen
    writes, not 1000 send_str (a system call each) in one go, which held every other
    request back for tens of milliseconds a page when dozens of streams caught up at once."""
    i, n = 0, len(items)
    while i < n:
        first = items[i][0]
        if first != sub.last + 1:
            i += 1  # sent already
            continue
        j, size = i, 0  # the run of consecutive seqs from `first`, a buffer's worth at most
        while j < n and size < WRITE_BUFFER and items[j][0] == first + (j - i):
            size += len(items[j][1])
            j += 1
        run = items[i:j]
        if sub.direct is not None and sub.direct(b"".join(text_frame(t) for _, t in run)):
            sub.last = run[-1][0]
        else:  # no room: one at a time, each waiting for room as it needs
            for seq, text in run:
                # an uncompressed frame is in the transport before send_str's first await
                # (it may then wait for the buffer to drain): from here on, the client has it
                sub.last = seq
                await ws.send_str(text)
        i = j
        if i < n:
            await asyncio.sleep(0)


async def read_until_closed(ws: web.WebSocketResponse) -> None:
    # clients have nothing to say here; reading lets their pongs and their close frame in
    async for _message in ws:
        pass


async def farewell(
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
        abort(request)


def abort(request: web.Request) -> None:
    """Cut the connection at once: a reset, whatever is still to send dropped (a close
    would send it first, and a client that takes nothing would hold the connection for as
    long as it likes, and the kernel's buffers with it)."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_NOT)
    transport.abort()
