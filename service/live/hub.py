"""Live game events for the WebSocket subscribers of one service instance.

Several instances share one database. After each commit the writing instance wakes its
own subscribers at once and queues '<game id> <last seq>' for the others; a publisher task
sends what is queued as ONE `NOTIFY game_events` every few milliseconds (lines of
'<game id> <last seq>'). NOTIFY is kept out of the write's transaction on purpose:
PostgreSQL serialises the commits of notifying transactions, which would cap the moves a
second. The same batch carries 'race <race id>' for every race whose log the instance
grew, which wakes the other instances' readers of that race's stream
(service/races/routes.py). The events themselves are always read from the log. Each
instance has:

- ONE dedicated connection that LISTENs (not one per socket, not from the pool); when it
  drops, it is opened again with backoff and every game with subscribers catches up from
  the log, so a lost notification delays an event and never loses it;
- one feed per game with subscribers here: woken by notifications, it reads the new events
  once per batch of notifications, serialises and frames each once, and hands the batch to
  every subscriber of the game: straight to the socket of one whose handler is idle and
  whose socket has room (one write, no task switch), else to its queue;
- a sweep every few seconds that asks the projection for the versions of all watched games
  in one query and wakes the feeds that are behind (the safety net under the listener).

A subscriber has a bounded queue; when it overflows, the subscriber is dropped from its
feed and told to end (the handler sends a 'reconnect' message and closes the socket), so a
slow client never holds up the moves or the other subscribers.

The catch-up of a new subscriber is its handler's job: subscribe first, read the log after
its `after`, send that, then send what the feed delivers, dropping every seq already sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import asyncpg
import orjson
from aiohttp import web

from service.database.store import EventStore, StoredEvent
from service.games.queries import event_view

log = logging.getLogger("service.stream")

CHANNEL = "game_events"
SUBJECT = "solitaire.game_events"  # the broker's subject, when EVENTS_BROKER is set
APPLICATION_NAME = "solitaire-stream-listener"
# close codes: 1001 "going away" (this instance stops), 4000 (the subscriber fell behind)
GOING_AWAY = 1001
FELL_BEHIND = 4000

# one event on the wire: its seq and its JSON text, serialised once for all subscribers
Item = tuple[int, str]


def event_message(e: StoredEvent) -> Item:
    """The message of one event: an item of GET /v1/games/{id}/events, as JSON text."""
    return e.seq, orjson.dumps(event_view(e)).decode()


def text_frame(text: str) -> bytes:
    """A WebSocket text frame as a server sends it: unmasked, uncompressed (RFC 6455 5.2)."""
    data = text.encode()
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 65536:
        return bytes((0x81, 126)) + n.to_bytes(2, "big") + data
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + data


def _payloads(lines: list[str], limit: int = 7000) -> list[str]:
    """Lines joined into NOTIFY payloads under PostgreSQL's 8000-byte limit."""
    payloads: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        if current and size + len(line) + 1 > limit:
            payloads.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        payloads.append("\n".join(current))
    return payloads


class Subscription:
    """One subscriber of one game: its bounded queue and how far it got."""

    def __init__(self, game_id: uuid.UUID, after: int, limit: int) -> None:
        self.game_id = game_id
        # the seq of the last event handed to the client (its `after` until then)
        self.last = after
        self.limit = max(1, limit)
        self._pending: deque[Item] = deque()
        self._ready = asyncio.Event()
        # set once when the subscription must end: fell behind, or the instance stops
        self.ended = asyncio.Event()
        self.end_code = 0
        self.end_detail = ""
        # set by the handler: writes frames to the client's socket when it is open and its
        # buffer has room, else says False (the handler then sends, waiting for room)
        self.direct: Callable[[bytes], bool] | None = None
        # True while the handler waits in take() with nothing in hand
        self._idle = False

    def offer(self, batch: Sequence[Item], frames: Sequence[bytes] | None = None) -> bool:
        """Hand over a batch of consecutive events; False (and the subscription ends) when
        its queue overflows. While the handler is idle with nothing queued, the batch's
        frames (`frames`, one per item, built once for all subscribers) go to the socket
        from here, in order: no task switch per subscriber."""
        if self.ended.is_set():
            return False
        if not batch or batch[-1][0] <= self.last:
            return True  # nothing this subscriber has not been sent already
        if frames is not None and self._idle and not self._pending and self.direct is not None:
            start = 0
            while batch[start][0] <= self.last:
                start += 1
            # the next seq, or the handler fills the gap from the log
            if batch[start][0] == self.last + 1 and self.direct(b"".join(frames[start:])):
                self.last = batch[-1][0]
                return True
        if len(self._pending) + len(batch) > self.limit:
            self._pending.clear()
            self.end(FELL_BEHIND, "you fell behind")
            return False
        self._pending.extend(batch)
        self._ready.set()
        return True

    def end(self, code: int, detail: str) -> None:
        if not self.ended.is_set():
            self.end_code, self.end_detail = code, detail
            self.ended.set()
            self._ready.set()

    async def take(self) -> list[Item]:
        """The events queued so far, waiting for at least one; [] once the subscription
        ended."""
        while not self._pending:
            if self.ended.is_set():
                return []
            self._ready.clear()
            self._idle = True
            try:
                await self._ready.wait()
            finally:
                self._idle = False
        items = list(self._pending)
        self._pending.clear()
        return items


class _Feed:
    """The subscribers of one game on this instance and the reader that serves them."""

    def __init__(self, game_id: uuid.UUID) -> None:
        self.game_id = game_id
        self.subscribers: set[Subscription] = set()
        # the seq up to which this feed has read the log; None until its first read
        self.cursor: int | None = None
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class StreamHub:
    """Fans the notifications of one listening connection out to this instance's
    subscribers."""

    def __init__(
        self,
        store: EventStore,
        dsn: str,
        *,
        queue_size: int = 1000,
        sweep_every: float = 5.0,
        check_every: float = 10.0,
        retry_first: float = 0.1,
        retry_max: float = 5.0,
        publish_every: float = 0.01,
        broker: str | None = None,
    ) -> None:
        self.store = store
        self.dsn = dsn
        # nats://host:port: wake-ups go through NATS instead of LISTEN/NOTIFY
        self.broker = broker
        self._nats: Any = None
        self.queue_size = queue_size
        self.sweep_every = sweep_every
        self.check_every = check_every
        self.retry_first = retry_first
        self.retry_max = retry_max
        self.publish_every = publish_every
        self._feeds: dict[uuid.UUID, _Feed] = {}
        self._outbox: dict[uuid.UUID, int] = {}
        # races whose log this instance grew since the last publish
        self._race_outbox: set[uuid.UUID] = set()
        # told the race of every "race <id>" line: wakes this instance's feed of the race
        # (service/races/routes.py), set by the app to Backend.wake_race_feed
        self.on_race: Callable[[uuid.UUID], None] = lambda _race: None
        self._outbox_ready = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.listening = asyncio.Event()
        # counters, for /metrics-style questions and for the tests
        self.connects = 0  # successful LISTEN connections, reconnections included
        self.reads = 0  # reads of the log by feeds (not counting handlers' catch-up)

    # ------------------------------------------------------------ lifecycle

    async def start(self, wait: float = 5.0) -> None:
        """Start listening (waiting up to `wait` seconds for the first connection; if the
        database is not there yet, the listener keeps trying in the background)."""
        listen = self._listen_nats() if self.broker else self._listen()
        self._tasks = [
            asyncio.create_task(listen, name="stream-listener"),
            asyncio.create_task(self._sweep_forever(), name="stream-sweep"),
            asyncio.create_task(self._publish_forever(), name="stream-publish"),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.listening.wait(), wait)

    async def stop(self) -> None:
        tasks = self._tasks + [f.task for f in self._feeds.values() if f.task is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks = []
        self._feeds.clear()
        if self._nats is not None:
            with contextlib.suppress(Exception):
                await self._nats.close()
            self._nats = None

    # ------------------------------------------------------------ subscribers

    def subscribe(self, game_id: uuid.UUID, after: int) -> Subscription:
        sub = Subscription(game_id, after, self.queue_size)
        feed = self._feeds.get(game_id)
        if feed is None:
            feed = self._feeds[game_id] = _Feed(game_id)
            feed.task = asyncio.create_task(self._serve(feed), name=f"stream-feed-{game_id}")
        feed.subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        feed = self._feeds.get(sub.game_id)
        if feed is None:
            return
        feed.subscribers.discard(sub)
        if not feed.subscribers:
            del self._feeds[sub.game_id]
            if feed.task is not None:
                feed.task.cancel()

    # ------------------------------------------------------------ feeds

    async def _serve(self, feed: _Feed) -> None:
        while True:
            await feed.wake.wait()
            feed.wake.clear()
            try:
                await self._read(feed)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the next sweep wakes this feed again
                log.warning("stream: reading game %s failed: %s", feed.game_id, exc)

    async def _read(self, feed: _Feed) -> None:
        if not feed.subscribers:
            return
        # before its first read, the feed starts at its least advanced subscriber: each
        # subscriber reads the log itself after subscribing, so it only drops duplicates
        after = feed.cursor if feed.cursor is not None else min(s.last for s in feed.subscribers)
        events = await self.store.read_events(feed.game_id, after)
        self.reads += 1
        if not events:
            if feed.cursor is None:
                feed.cursor = after
            return
        if feed.cursor is None or events[-1].seq > feed.cursor:
            feed.cursor = events[-1].seq
        batch = [event_message(e) for e in events]
        frames = [text_frame(text) for _seq, text in batch]
        for sub in list(feed.subscribers):
            if not sub.offer(batch, frames):
                feed.subscribers.discard(sub)
                log.info("stream: a subscriber of game %s fell behind at seq %d",
                         feed.game_id, sub.last)

    def _notified(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        for line in payload.splitlines():
            game, _, seq = line.partition(" ")
            if game == "race":  # 'race <race id>': a race's log grew
                try:
                    race_id = uuid.UUID(seq)
                except ValueError:
                    log.warning("stream: unexpected notification %r", line)
                    continue
                self.on_race(race_id)
                continue
            try:
                game_id, last = uuid.UUID(game), int(seq)
            except ValueError:
                log.warning("stream: unexpected notification %r", line)
                continue
            self._wake(game_id, last)

    def _wake(self, game_id: uuid.UUID, last: int) -> None:
        feed = self._feeds.get(game_id)
        if feed is not None and (feed.cursor is None or last > feed.cursor):
            feed.wake.set()

    # ------------------------------------------------------------ publishing commits

    def committed(self, game_id: uuid.UUID, last: int) -> None:
        """A write of this instance committed: wake its own subscribers now, and tell the
        other instances with the next batched NOTIFY."""
        self._wake(game_id, last)
        self._outbox[game_id] = max(last, self._outbox.get(game_id, 0))
        self._outbox_ready.set()

    def race_committed(self, race_id: uuid.UUID) -> None:
        """A write of this instance grew the race's log: tell the other instances with the
        next batch (this instance's own feed was woken by the caller)."""
        self._race_outbox.add(race_id)
        self._outbox_ready.set()

    async def _publish_forever(self) -> None:
        while True:
            await self._outbox_ready.wait()
            # Let a batch gather: a NOTIFY costs a transaction, so what a few milliseconds
            # commit goes in one. A publish to the broker is a write to its socket, buffered
            # by the client: only what this turn of the event loop committed is batched, and
            # the other instances are told at once (fan-out bench: the 10 ms wait was a
            # third of the delivery to their watchers).
            await asyncio.sleep(0 if self.broker else self.publish_every)
            self._outbox_ready.clear()
            batch, self._outbox = self._outbox, {}
            races, self._race_outbox = self._race_outbox, set()
            lines = [f"{game} {seq}" for game, seq in batch.items()]
            lines += [f"race {race}" for race in races]
            try:
                if self.broker:
                    if self._nats is None or not self._nats.is_connected:
                        raise ConnectionError("not connected to the broker")
                    for payload in _payloads(lines):
                        await self._nats.publish(SUBJECT, payload.encode())
                    continue
                async with self.store.connection() as conn:
                    for payload in _payloads(lines):
                        await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the others' sweeps deliver what this misses
                log.warning("stream: could not notify other instances: %s", exc)

    async def sweep(self) -> None:
        """Wake the feeds whose game has events they have not read (one query for all)."""
        feeds = list(self._feeds.values())
        if not feeds:
            return
        try:
            versions = await self.store.versions([f.game_id for f in feeds])
        except Exception as exc:
            log.warning("stream: sweep failed (%s); waking every feed", exc)
            for f in feeds:
                f.wake.set()
            return
        for f in feeds:
            version = versions.get(f.game_id)
            if version is not None and (f.cursor is None or version > f.cursor):
                f.wake.set()

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_every)
            await self.sweep()

    # ------------------------------------------------------------ the broker (NATS)

    async def _listen_nats(self) -> None:
        """Wake-ups through NATS: the same lines as the NOTIFY payloads on SUBJECT. The
        client reconnects by itself; after each (re)connection the sweep catches up from the
        log, so a wake-up lost while the broker was away delays events, never loses them."""
        import nats

        async def message(msg: Any) -> None:
            self._notified(None, 0, SUBJECT, msg.data.decode())

        async def back() -> None:
            self.connects += 1
            self.listening.set()
            log.info("stream: the broker is back; catching up from the log")
            await self.sweep()

        async def gone() -> None:
            self.listening.clear()
            log.warning("stream: the broker connection was lost")

        failures = 0
        while self._nats is None:
            try:
                self._nats = await nats.connect(
                    self.broker, name=APPLICATION_NAME, max_reconnect_attempts=-1,
                    reconnect_time_wait=self.retry_first, connect_timeout=5,
                    reconnected_cb=back, disconnected_cb=gone,
                    allow_reconnect=True,
                    # this instance woke its own feeds at the commit: its own publishes
                    # coming back would only wake them again, for a read that finds nothing
                    no_echo=True,
                )  # fmt: skip
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                delay = min(self.retry_first * 2**failures, self.retry_max)
                failures += 1
                log.warning("stream: broker unreachable (%s); again in %.1f s", exc, delay)
                await asyncio.sleep(delay)
        await self._nats.subscribe(SUBJECT, cb=message)
        self.connects += 1
        self.listening.set()
        await self.sweep()
        await asyncio.Event().wait()  # the client runs by itself until stop()

    # ------------------------------------------------------------ the listening connection

    async def _listen(self) -> None:
        failures = 0  # in a row: the wait before the next attempt doubles with each
        while True:
            conn: asyncpg.Connection | None = None
            try:
                conn = await asyncpg.connect(
                    self.dsn, timeout=10,
                    server_settings={"application_name": APPLICATION_NAME},
                )
                lost = asyncio.Event()
                conn.add_termination_listener(lambda _c, ev=lost: ev.set())
                await conn.add_listener(CHANNEL, self._notified)
                self.connects += 1
                self.listening.set()
                failures = 0
                if self.connects > 1:
                    log.info("stream: listening again; catching up from the log")
                # whatever was committed while nobody listened is in the log
                await self.sweep()
                while not lost.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), self.check_every)
                    if not lost.is_set():
                        # a dead peer shows here; LISTEN again is a no-op on a live one
                        await conn.execute(f'LISTEN "{CHANNEL}"', timeout=self.check_every)
                log.warning("stream: the listening connection was closed")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("stream: listening failed: %s", exc)
            finally:
                self.listening.clear()
                if conn is not None:
                    conn.terminate()
            delay = min(self.retry_first * 2**failures, self.retry_max)
            failures += 1
            log.info("stream: listening again in %.1f s", delay)
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))


HUB_KEY = web.AppKey("stream_hub", StreamHub)
# the open live-event sockets and their subscriptions, closed on shutdown
STREAMS_KEY = web.AppKey("open_streams", dict[web.WebSocketResponse, Subscription])
