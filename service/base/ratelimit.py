"""Rate limits: in-memory token buckets in one middleware (docs/faults.md has the numbers).

- writes (every POST but player creation, every PUT, PATCH and DELETE) per bearer token,
  and per client address;
- player creations per client address;
- open live streams (WebSockets) per client address, at one time;
- events read from logs' pages (a game's or a race's `/events`) per client address, each
  page charged the events it may send (its `limit`, 1,000 at most); a game's live stream
  is charged the stored events it sends (service/live/routes.py).

A refused request is a 429 problem+json with `Retry-After` (whole seconds), before its body
is read or its token looked up. The buckets live in a block of memory that the WORKERS
processes of one machine share (`SharedSlots`), so a client gets the same allowance
whichever worker answers it; open streams are counted by each process (a stream lives in
one). Instances on different machines count on their own: with N of them behind a
balancer a client gets up to N times the numbers. `RATE_LIMITS=off` leaves the middleware
out altogether, and the one limit that is not the middleware's (it counts before the body
is read, on one route): guesses of link codes (`POST /v1/tokens`), RATE_LINK_TRIES_PER_MINUTE
per client address in any minute, a sliding window rather than a bucket (MinuteWindows;
players/routes.py), counted again in the database for all instances (players/tries.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import mmap
import multiprocessing
import struct
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, Final

from aiohttp import web

from service.base import shm
from service.base.errors import TooManyRequests
from service.base.requests import EVENTS_PAGE, request_client, whole_number
from service.base.settings import Settings

STREAM_RETRY_SECONDS = 5


class Slots:
    """Rate counters in a fixed block of memory: `slots` slots of (key fingerprint, tokens,
    as of, full again at), found by open addressing over a window of PROBES slots.

    The block is a bytearray in one process, or shared memory that every worker process of
    a machine maps (`SharedSlots`): WORKERS processes then count a client's requests
    together, so a client gets the same allowance whichever worker its connections reach.
    Memory is bounded by construction: a slot whose bucket is full again is free for
    another key, and when a whole window is in use the slot closest to full is given up
    (its key starts again with a full bucket: lenient, never wrongly strict).

    A key's slot always lies before the first never-used slot of its window (slots are
    never cleared), so a lookup stops there.  Keys are hashed with BLAKE2b, the same in
    every process (Python's `hash` of a string is salted per process).
    """

    SLOT = struct.Struct("<Qddd")
    PROBES = 16

    def __init__(self, buffer: memoryview | bytearray, lock: Any = None) -> None:
        self.buffer = buffer
        self.slots = len(buffer) // self.SLOT.size
        if self.slots & (self.slots - 1) or self.slots < self.PROBES:
            raise ValueError("the slot count must be a power of two, at least PROBES")
        self.lock = lock

    @classmethod
    def private(cls, slots: int = 1 << 14) -> Slots:
        """A table for this process alone (one worker, or tests)."""
        return cls(bytearray(slots * cls.SLOT.size))

    @staticmethod
    def fingerprint(kind: str, key: Hashable) -> int:
        # a header's bytes that are not UTF-8 come as lone surrogates: kept, not refused
        text = f"{kind}\0{key}".encode("utf-8", "surrogatepass")
        digest = hashlib.blake2b(text, digest_size=8).digest()
        return int.from_bytes(digest, "little") or 1

    def take(
        self, kind: str, key: Hashable, capacity: float, rate: float, now: float,
        cost: float = 1.0,
    ) -> float:
        """Take `cost` tokens from `key`'s bucket (of `kind`): 0.0 when there were as
        many, else the seconds until there will be."""
        fp = self.fingerprint(kind, key)
        with self._locked():
            slot, found = self._find(fp, now)
            if found is None:
                tokens = capacity
            else:
                tokens = min(capacity, found[0] + (now - found[1]) * rate)
            if tokens >= cost:
                tokens -= cost
                wait = 0.0
            else:
                wait = (cost - tokens) / rate
            self.SLOT.pack_into(self.buffer, slot * self.SLOT.size, fp, tokens, now,
                                now + (capacity - tokens) / rate)  # fmt: skip
            return wait

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The table's lock, held. A worker killed inside must not stop the others: past
        the timeout a take goes on unlocked (at worst two workers' takes of one key race)."""
        lock = self.lock
        locked = lock is None or lock.acquire(timeout=0.05)
        try:
            yield
        finally:
            if lock is not None and locked:
                lock.release()

    def window(self, kind: str, key: Hashable, most: int, span: float, now: float) -> float:
        """One take of `key` (of `kind`) when it has had fewer than `most` in the last
        `span` seconds (a sliding window, exact, where a bucket lets twice as many through
        in its first `span`): 0.0, else the seconds until the oldest of them leaves the
        window. Each take is kept in a slot of its own, (key, i) for i < most, for `span`
        seconds: meant for a small `most` (link-code tries)."""
        with self._locked():
            takes, free = self._takes(kind, key, most, span, now)
            if free is None:
                return max(min(at for _, _, at in takes) + span - now, 1e-3)
            fp, slot = free
            self.SLOT.pack_into(self.buffer, slot * self.SLOT.size, fp, 0.0, now, now + span)
            return 0.0

    def unwindow(self, kind: str, key: Hashable, most: int, span: float, now: float) -> None:
        """Take back `key`'s latest take of `window` (a try that was never judged): its
        slot is left as one `span` old, free for the next take."""
        with self._locked():
            takes, _ = self._takes(kind, key, most, span, now)
            if takes:
                fp, slot, _ = max(takes, key=lambda take: take[2])
                self.SLOT.pack_into(self.buffer, slot * self.SLOT.size, fp, 0.0, now - span, now)

    def _takes(
        self, kind: str, key: Hashable, most: int, span: float, now: float
    ) -> tuple[list[tuple[int, int, float]], tuple[int, int] | None]:
        """`key`'s takes of `window` in the last `span` seconds, each (fingerprint, slot,
        when), and the first of its `most` slots that is free, or None (the lock held)."""
        takes: list[tuple[int, int, float]] = []
        free: tuple[int, int] | None = None
        for i in range(most):
            fp = self.fingerprint(kind, f"{key}\0{i}")
            slot, found = self._find(fp, now)
            if found is not None and found[1] > now - span:
                takes.append((fp, slot, found[1]))
            elif free is None:
                free = fp, slot
        return takes, free

    def _find(self, fp: int, now: float) -> tuple[int, tuple[float, float] | None]:
        """The slot of `fp` with its (tokens, as of), or a free slot and None."""
        unpack, size, mask = self.SLOT.unpack_from, self.SLOT.size, self.slots - 1
        start = fp & mask
        free: int | None = None
        closest, closest_at = start, math.inf
        for i in range(self.PROBES):
            j = (start + i) & mask
            slot_fp, tokens, stamp, full_at = unpack(self.buffer, j * size)
            if slot_fp == fp:
                return j, (tokens, stamp)
            if slot_fp == 0:
                return (j if free is None else free), None
            if free is None:
                if full_at <= now:
                    free = j
                elif full_at < closest_at:
                    closest, closest_at = j, full_at
        return (closest if free is None else free), None

    def in_use(self, now: float) -> int:
        """Slots whose bucket is not full yet."""
        size = self.SLOT.size
        return sum(
            1
            for j in range(self.slots)
            if self.SLOT.unpack_from(self.buffer, j * size)[0]
            and self.SLOT.unpack_from(self.buffer, j * size)[3] > now
        )


class SharedSlots:
    """A `Slots` block in shared memory (a file in /dev/shm, mapped) for the worker
    processes of one supervisor: made by the supervisor (`create`), passed to each worker
    process it starts (it pickles as its path and lock), mapped there (`attach`), and
    removed when the supervisor stops.  Blocks left behind by a supervisor that was killed
    are removed by the next one."""

    PREFIX = "solitaire-limits-"

    def __init__(self, path: str, slots: int, lock: Any) -> None:
        self.path, self.slots, self.lock = path, slots, lock
        self._map: mmap.mmap | None = None

    @classmethod
    def create(cls, slots: int = 1 << 16) -> SharedSlots:
        path = shm.create(cls.PREFIX, slots * Slots.SLOT.size)
        return cls(path, slots, multiprocessing.get_context("spawn").Lock())

    def attach(self) -> Slots:
        if self._map is None:
            with open(self.path, "r+b") as f:
                self._map = mmap.mmap(f.fileno(), self.slots * Slots.SLOT.size)
        return Slots(memoryview(self._map), self.lock)

    def remove(self) -> None:
        shm.remove(self.path)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "slots": self.slots, "lock": self.lock}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["slots"], state["lock"])  # type: ignore[misc]


class TokenBuckets:
    """One bucket per key: `per_minute` requests at once, refilled at `per_minute` a minute.
    The buckets live in `slots` (this process's own table unless one is given), under
    `kind`, so that several kinds of bucket share one table."""

    def __init__(
        self,
        per_minute: int,
        clock: Callable[[], float] = time.monotonic,
        *,
        slots: Slots | None = None,
        kind: str = "",
    ) -> None:
        self.capacity = float(max(1, per_minute))
        self.rate = self.capacity / 60.0  # tokens per second
        self.clock = clock
        self.slots = slots if slots is not None else Slots.private()
        self.kind = kind

    def take(self, key: Hashable, cost: float = 1.0) -> float:
        """Take `cost` tokens (at most the bucket's capacity): 0.0 when there were as many,
        else the seconds until there will be."""
        cost = min(cost, self.capacity)
        return self.slots.take(self.kind, key, self.capacity, self.rate, self.clock(), cost)


class MinuteWindows(TokenBuckets):
    """At most `per_minute` takes per key in any 60 seconds (Slots.window) rather than a
    bucket: a limit whose words are "more than N a minute", with no burst past it."""

    def take(self, key: Hashable, cost: float = 1.0) -> float:
        """One take (`cost` is always one): 0.0, else the seconds until there may be."""
        return self.slots.window(self.kind, key, int(self.capacity), 60.0, self.clock())

    def give_back(self, key: Hashable) -> None:
        """Take back `key`'s latest take: a try that was never judged (the database could
        not be reached) does not count."""
        self.slots.unwindow(self.kind, key, int(self.capacity), 60.0, self.clock())


def _retry_after(seconds: float) -> int:
    return max(1, math.ceil(seconds))


WRITES: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})  # the methods that change


def charge(buckets: TokenBuckets, key: Hashable, what: str, cost: float = 1.0) -> None:
    """Take `cost` of `key`'s tokens: 429 (TooManyRequests, with Retry-After) when there
    are not as many left."""
    wait = buckets.take(key, cost)
    if wait > 0:
        raise refusal(what, int(buckets.capacity), wait)


def refusal(what: str, per_minute: int, wait: float) -> TooManyRequests:
    """The 429 of a limit of `per_minute` reached: `what` is what came too often, `wait`
    the seconds until one more may come."""
    seconds = _retry_after(wait)
    return TooManyRequests(
        f"too many {what} (at most {per_minute} a minute); try again in {seconds} s",
        retry_after=seconds,
    )


def _token(request: web.Request) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token[:200] if scheme.lower() == "bearer" and token else None


def _is_stream(request: web.Request) -> bool:
    return request.method == "GET" and request.path.endswith("/stream")


def _events_asked(request: web.Request) -> int:
    """The events a read of a log's page may send (a game's or a race's `/events`): its
    `limit`, a page (EVENTS_PAGE) at most and by default; 0 for any other request."""
    if request.method not in ("GET", "HEAD") or not request.path.endswith("/events"):
        return 0
    asked = whole_number(request.query.get("limit", ""))  # what the route refuses: a page
    return min(asked, EVENTS_PAGE) if asked is not None and asked > 0 else EVENTS_PAGE


class RateLimiter:
    """The service's limits; `middleware` is what create_app installs."""

    def __init__(
        self,
        settings: Settings,
        clock: Callable[[], float] = time.monotonic,
        slots: Slots | None = None,
    ) -> None:
        slots = slots if slots is not None else Slots.private()

        def buckets(per_minute: int, kind: str) -> TokenBuckets:
            return TokenBuckets(per_minute, clock, slots=slots, kind=kind)

        self.writes_per_token = buckets(settings.rate_writes_per_minute, "writes/token")
        self.writes_per_address = buckets(settings.rate_address_writes_per_minute,
                                          "writes/address")  # fmt: skip
        self.players_per_address = buckets(settings.rate_players_per_minute, "players/address")
        self.streams_per_address = max(1, settings.rate_streams_per_address)
        self.searches = buckets(settings.rate_searches_per_minute, "searches")
        self.events_per_address = buckets(settings.rate_events_per_minute, "events/address")
        self.settings = settings
        self._streams: dict[str, int] = {}

    def search(self, key: Hashable) -> None:
        """Charge one search of the solver to `key` (a player, an address): 429 past the
        rate."""
        self._check(self.searches, key, "searches of the solver")

    def may_search(self, key: Hashable) -> bool:
        """Take one search of `key`'s if one is left, for a search nobody waits for (a new
        game's opening), which is skipped rather than refused."""
        return self.searches.take(key) == 0.0

    def _check(self, buckets: TokenBuckets, key: Hashable, what: str) -> None:
        charge(buckets, key, what)

    def read_events(self, address: str, events: int) -> None:
        """Charge `events` read from logs to `address` (a page, a stream's first page):
        429 past the rate."""
        if events > 0:
            charge(self.events_per_address, address, "events read from your address", events)

    async def pace_events(self, address: str, events: int) -> None:
        """Wait until `address` may read `events` more (a stream's next page of its
        stored events: slowed to the rate, not refused)."""
        while events > 0 and (wait := self.events_per_address.take(address, events)) > 0:
            await asyncio.sleep(wait)

    def free(self, request: web.Request) -> bool:
        """Whether `middleware` lets the request by uncharged: a read, not of a stream,
        not of a log's page."""
        return (request.method not in WRITES and not _is_stream(request)
                and not _events_asked(request))  # fmt: skip

    @web.middleware
    async def middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        address = request_client(request)
        if request.method in WRITES:
            if request.path == "/v1/players":
                self._check(self.players_per_address, address, "new players from your address")
            else:
                self._check(self.writes_per_address, address, "writes from your address")
                token = _token(request)
                if token is not None:
                    self._check(self.writes_per_token, token, "writes with this token")
        elif _is_stream(request):
            return await self._stream(request, handler, address)
        elif events := _events_asked(request):  # a page of a log costs its length
            self.read_events(address, events)
        return await handler(request)  # type: ignore[no-any-return]

    async def _stream(self, request: web.Request, handler: Any, address: str) -> web.StreamResponse:
        open_now = self._streams.get(address, 0)
        if open_now >= self.streams_per_address:
            raise TooManyRequests(
                f"your address has {open_now} live streams open, the most this service"
                " allows at once; close one first",
                retry_after=STREAM_RETRY_SECONDS,
            )
        self._streams[address] = open_now + 1
        try:
            return await handler(request)  # type: ignore[no-any-return]
        finally:
            left = self._streams[address] - 1
            if left:
                self._streams[address] = left
            else:
                del self._streams[address]
