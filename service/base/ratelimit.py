"""Rate limits: in-memory token buckets in one middleware (docs/faults.md has the numbers).

- writes (every POST but player creation, every PUT, PATCH and DELETE) per bearer token,
  and per client address;
- player creations per client address;
- open live streams (WebSockets) per client address, at one time;
- events read from logs' pages (a game's or a race's `/events`) per client address, each
  page charged the events it sends: it takes the events it may send (its `limit`, 1,000 at
  most) before it is read, and gives back those it did not send (all of them for a 304);
  a game's live stream is charged the stored events it sends (service/live/routes.py).

A refused request is a 429 problem+json with `Retry-After` (whole seconds), before its body
is read or its token looked up. The buckets live in a block of memory that the WORKERS
processes of one instance share (`SharedSlots`), so a client gets the same allowance
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
import math
import time
from collections.abc import Callable, Hashable
from typing import Any, Final

from aiohttp import web

from service.base.errors import TooManyRequests
from service.base.requests import EVENTS_PAGE, request_client, whole_number
from service.base.settings import Settings
from service.base.shm import Slots

STREAM_RETRY_SECONDS = 5


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

    def give(self, key: Hashable, cost: float = 1.0) -> None:
        """Give back a take of `cost` (its request refused by another limit)."""
        cost = min(cost, self.capacity)
        self.slots.give(self.kind, key, self.capacity, self.rate, self.clock(), cost)


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


def charge_all(*charges: tuple[TokenBuckets, Hashable, str]) -> None:
    """One take of each (buckets, key, what), or none: 429 when one has no token left,
    the takes of the others given back (a refused request spends nothing), with the
    longest of the waits, which every bucket has room after."""
    waits = [buckets.take(key) for buckets, key, _ in charges]
    if not any(waits):
        return
    for (buckets, key, _), wait in zip(charges, waits, strict=True):
        if wait == 0:
            buckets.give(key)
    longest = max(range(len(waits)), key=waits.__getitem__)
    buckets, _, what = charges[longest]
    raise refusal(what, int(buckets.capacity), waits[longest])


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


# the events a log's page sent (its handler says; a 304 sent none): the rest of what the
# page took before it was read goes back to the address's bucket
EVENTS_SENT_KEY: Final = web.RequestKey("events_sent", int)


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
                charges = [(self.players_per_address, address, "new players from your address")]
            else:
                charges = [(self.writes_per_address, address, "writes from your address")]
                if (token := _token(request)) is not None:
                    charges.append((self.writes_per_token, token, "writes with this token"))
            charge_all(*charges)
            try:
                return await handler(request)  # type: ignore[no-any-return]
            except TooManyRequests:  # (another limit's, a hint's search): spent nothing
                for buckets, key, _ in charges:
                    buckets.give(key)
                raise
        elif _is_stream(request):
            return await self._stream(request, handler, address)
        elif events := _events_asked(request):  # a page of a log costs what it sends
            self.read_events(address, events)
            response: web.StreamResponse = await handler(request)
            sent = 0 if response.status == 304 else request.get(EVENTS_SENT_KEY, events)
            if sent < events:
                self.events_per_address.give(address, events - sent)
            return response
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
