"""A subscriber of a game's live events, and the messages it is sent.

A subscription has a bounded queue; when it overflows, the subscriber is dropped from its
feed and told to end (the handler sends a 'reconnect' message and closes the socket), so a
slow client never holds up the moves or the other subscribers. Each event is serialised
and framed once, for all the subscribers of its game (service/live/feeds.py).
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Callable, Sequence

import orjson

from service.database.store import StoredEvent
from service.games.views import event_view

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


class Subscription:
    """One subscriber of one game's log (or one race's): its bounded queue and how far it
    got."""

    def __init__(self, log_id: uuid.UUID, after: int, limit: int) -> None:
        self.log_id = log_id  # the game's (or the race's: service/races/feeds.py)
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
        # True while the handler sends the stored events itself (its catch-up, a page at a
        # time): the feed's batches are not queued then (they would count against the
        # queue's bound while the client is being sent the log), only the last seq they
        # bring is noted (`seen`); see start_queue
        self.catching_up = True
        self.seen = after

    def offer(self, batch: Sequence[Item], frames: Sequence[bytes] | None = None) -> bool:
        """Hand over a batch of consecutive events; False (and the subscription ends) when
        its queue overflows. While the handler is idle with nothing queued, the batch's
        frames (`frames`, one per item, built once for all subscribers) go to the socket
        from here, in order: no task switch per subscriber."""
        if self.ended.is_set():
            return False
        if not batch or batch[-1][0] <= self.last:
            return True  # nothing this subscriber has not been sent already
        if self.catching_up:
            self.seen = max(self.seen, batch[-1][0])
            return True
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

    def start_queue(self) -> bool:
        """The handler has read the log to its end and sent it: the feed's batches are
        queued from here on. Whether it must read once more: the feed brought events
        meanwhile past what it sent (those it did not bring yet, it brings later)."""
        self.catching_up = False
        return self.seen > self.last

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
