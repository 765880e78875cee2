"""The readers of races' logs for the race streams of this instance: one feed per race
watched here, for all its sockets (service/races/routes.py: stream).

A feed reads the race's log only when woken, so a watched race costs no query while
nothing happens: by this instance's commits to the race's log at once
(Backend.wake_race), by the other instances' through the live events' wake-ups ('race
<id>' lines of LISTEN/NOTIFY or the broker: StreamHub.on_race), and by :func:`sweep`, which
the hub runs every WS_SWEEP seconds and after each reconnection: one query for the
versions of all the races watched here, waking the feeds that are behind, so a lost
wake-up delays an event and never loses it. Every writer of a race's log wakes it: a write
to one of its games (service/games/write.py), a join, the start and the end
(service/races/service.py, whichever instance's clock or request takes them).
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from service.base.backend import Backend
from service.database.connections import StoreError
from service.live.subscriptions import Subscription, event_message
from service.races import service as races

log = logging.getLogger("service.races")

PAGE = 1000  # events read at once


class RaceFeed:
    """One reader of a race's log for every socket of the race on this instance."""

    def __init__(self) -> None:
        self.watchers: set[Subscription] = set()
        self.wake = asyncio.Event()
        # the seq up to which this feed has read the log; None until its first read
        self.cursor: int | None = None
        self.task: asyncio.Task[None] | None = None

    def behind(self, version: int) -> bool:
        """Whether the race's log, at ``version``, holds events this feed has not read
        (before its first read: that its least advanced socket has not been sent)."""
        if self.cursor is not None:
            return version > self.cursor
        return any(version > w.last for w in self.watchers)


def watch(backend: Backend, race_id: uuid.UUID, last: int, limit: int) -> Subscription:
    """A new socket of the race's stream, sent everything up to ``last``: its place in the
    race's feed here (started for its first socket), a queue of at most ``limit`` events
    (WS_QUEUE), past which it ends (its client fell behind), as a game's stream does."""
    feed = backend.race_feeds.get(race_id)
    if feed is None:
        feed = backend.race_feeds[race_id] = RaceFeed()
    me = Subscription(race_id, last, limit)
    feed.watchers.add(me)
    if feed.task is None or feed.task.done():
        feed.task = asyncio.create_task(_serve(backend, race_id, feed), name=f"race-feed-{race_id}")
    return me


def unwatch(backend: Backend, race_id: uuid.UUID, me: Subscription) -> None:
    """The socket is gone; with the race's last socket here, its feed."""
    feed: RaceFeed | None = backend.race_feeds.get(race_id)
    if feed is None:
        return
    feed.watchers.discard(me)
    if not feed.watchers:
        del backend.race_feeds[race_id]
        if feed.task is not None:
            feed.task.cancel()


async def _serve(backend: Backend, race_id: uuid.UUID, feed: RaceFeed) -> None:
    while feed.watchers:
        await feed.wake.wait()
        feed.wake.clear()
        # before its first read the feed starts at its least advanced socket; each socket
        # reads the log itself after joining the feed, so it only drops duplicates
        after = feed.cursor if feed.cursor is not None else min(
            (w.last for w in feed.watchers), default=0
        )
        try:
            events = await races.read_events(backend, race_id, after, PAGE)
        except StoreError as exc:  # the next sweep wakes the feed again
            log.warning("reading race %s failed: %r", race_id, exc)
            continue
        if len(events) == PAGE:
            feed.wake.set()  # more to read at once
        if events:
            feed.cursor = events[-1].seq
            batch = [event_message(e) for e in events]
            for w in list(feed.watchers):
                w.offer(batch)  # (one whose queue overflows ends: its handler says so)
        elif feed.cursor is None:
            feed.cursor = after


async def sweep(backend: Backend) -> None:
    """Wake the feeds of this instance whose race's log has events they have not read: one
    query for all (none when no race is watched here); every feed when it fails."""
    feeds = dict(backend.race_feeds)
    if not feeds:
        return
    try:
        versions = await races.versions(backend, list(feeds))
    except StoreError as exc:
        log.warning("sweeping the race streams failed (%r); waking every race feed", exc)
        for feed in feeds.values():
            feed.wake.set()
        return
    for race_id, feed in feeds.items():
        version = versions.get(race_id)
        if version is not None and feed.behind(version):
            feed.wake.set()
