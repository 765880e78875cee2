"""This instance's feeds: one per game with subscribers here, the reader that serves them.

A feed is woken (by this instance's commits and the other instances' wake-ups: StreamHub,
service/live/hub.py), reads the new events once per batch of wake-ups, serialises and
frames each once, and hands the batch to every subscriber of the game: straight to the
socket of one whose handler is idle and whose socket has room (one write, no task switch),
else to its queue. A sweep every few seconds asks the projection for the versions of all
watched games in one query and wakes the feeds that are behind (the safety net under the
wake-ups).

The catch-up of a new subscriber is its handler's job: subscribe first, read the log after
its `after` and send that (the feed's batches meanwhile are not queued for it), turn its
queue on, read once more if the feed brought anything past what it sent, then send what
the feed delivers, dropping every seq already sent.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from service.database.store import EventStore
from service.live.subscriptions import Subscription, event_message, text_frame

log = logging.getLogger("service.stream")


class _Feed:
    """The subscribers of one game on this instance and the reader that serves them."""

    def __init__(self, game_id: uuid.UUID) -> None:
        self.game_id = game_id
        self.subscribers: set[Subscription] = set()
        # the seq up to which this feed has read the log; None until its first read
        self.cursor: int | None = None
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class Feeds:
    """The feeds of this instance's subscribers, by game."""

    def __init__(self, store: EventStore, *, queue_size: int, sweep_every: float) -> None:
        self.store = store
        self.queue_size = queue_size
        self.sweep_every = sweep_every
        self._feeds: dict[uuid.UUID, _Feed] = {}
        self.reads = 0  # reads of the log by feeds (not counting handlers' catch-up)

    def subscribe(self, game_id: uuid.UUID, after: int) -> Subscription:
        sub = Subscription(game_id, after, self.queue_size)
        feed = self._feeds.get(game_id)
        if feed is None:
            feed = self._feeds[game_id] = _Feed(game_id)
            feed.task = asyncio.create_task(self._serve(feed), name=f"stream-feed-{game_id}")
        feed.subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        feed = self._feeds.get(sub.log_id)
        if feed is None:
            return
        feed.subscribers.discard(sub)
        if not feed.subscribers:
            del self._feeds[sub.log_id]
            if feed.task is not None:
                feed.task.cancel()

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

    def _wake(self, game_id: uuid.UUID, last: int) -> None:
        feed = self._feeds.get(game_id)
        if feed is not None and (feed.cursor is None or last > feed.cursor):
            feed.wake.set()

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
