"""Rate limits: in-memory token buckets in one middleware (the README has the numbers).

- writes (every POST but player creation) per bearer token, and per client address;
- player creations per client address;
- open live streams (WebSockets) per client address, at one time.

A refused request is a 429 problem+json with `Retry-After` (whole seconds), before its body
is read or its token looked up. Each instance counts on its own; with N instances behind a
balancer a client gets up to N times the numbers. `RATE_LIMITS=off` leaves the middleware
out altogether.

One limit is not the middleware's and holds whatever RATE_LIMITS says, because it guards
players' accounts rather than the service's capacity: guesses of link codes
(`POST /v1/tokens`), LINK_GUESSES_PER_MINUTE per client address (handlers/players.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from typing import Any

from aiohttp import web

from .errors import TooManyRequests
from .settings import Settings

# how often idle buckets are forgotten (a forgotten bucket is a full one)
SWEEP_SECONDS = 60.0
STREAM_RETRY_SECONDS = 5
LINK_GUESSES_PER_MINUTE = 10


class TokenBuckets:
    """One bucket per key: `per_minute` requests at once, refilled at `per_minute` a minute."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(max(1, per_minute))
        self.rate = self.capacity / 60.0  # tokens per second
        self.clock = clock
        self._buckets: dict[Hashable, tuple[float, float]] = {}  # key -> (tokens, as of)
        self._swept = clock()

    def take(self, key: Hashable) -> float:
        """Take one token: 0.0 when there was one, else the seconds until there will be."""
        now = self.clock()
        if now - self._swept > SWEEP_SECONDS:
            self._sweep(now)
        tokens, stamp = self._buckets.get(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - stamp) * self.rate)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1.0 - tokens) / self.rate

    def _sweep(self, now: float) -> None:
        full_after = self.capacity / self.rate
        self._buckets = {
            k: v for k, v in self._buckets.items() if now - v[1] < full_after
        }
        self._swept = now

    def __len__(self) -> int:
        return len(self._buckets)


def _retry_after(seconds: float) -> int:
    return max(1, math.ceil(seconds))


def charge(buckets: TokenBuckets, key: Hashable, what: str) -> None:
    """Take one of `key`'s tokens: 429 (TooManyRequests, with Retry-After) when none is left."""
    wait = buckets.take(key)
    if wait > 0:
        seconds = _retry_after(wait)
        raise TooManyRequests(
            f"too many {what} (at most {int(buckets.capacity)} a minute);"
            f" try again in {seconds} s",
            retry_after=seconds,
        )


def _token(request: web.Request) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token[:200] if scheme.lower() == "bearer" and token else None


def _is_stream(request: web.Request) -> bool:
    return request.method == "GET" and request.path.endswith("/stream")


class RateLimiter:
    """The service's limits; `middleware` is what create_app installs."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.writes_per_token = TokenBuckets(settings.rate_writes_per_minute, clock)
        self.writes_per_address = TokenBuckets(settings.rate_address_writes_per_minute, clock)
        self.players_per_address = TokenBuckets(settings.rate_players_per_minute, clock)
        self.streams_per_address = max(1, settings.rate_streams_per_address)
        self.searches = TokenBuckets(settings.rate_searches_per_minute, clock)
        self.settings = settings
        self._streams: dict[str, int] = {}

    def search(self, key: Hashable) -> None:
        """Charge one search of the solver to `key` (a player, an address): 429 past the
        rate."""
        self._check(self.searches, key, "searches of the solver")

    def _check(self, buckets: TokenBuckets, key: Hashable, what: str) -> None:
        charge(buckets, key, what)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        address = request.remote or "-"
        if request.method == "POST":
            if request.path == "/v1/players":
                self._check(self.players_per_address, address, "new players from your address")
            else:
                self._check(self.writes_per_address, address, "writes from your address")
                token = _token(request)
                if token is not None:
                    self._check(self.writes_per_token, token, "writes with this token")
        elif _is_stream(request):
            return await self._stream(request, handler, address)
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
