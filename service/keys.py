"""Typed keys of the application's state."""

from __future__ import annotations

from aiohttp import web

from .backend import Backend
from .metrics import Metrics
from .ratelimit import RateLimiter, TokenBuckets
from .settings import Settings
from .solving import Solver
from .stream import StreamHub, Subscription

SETTINGS_KEY = web.AppKey("settings", Settings)
BACKEND_KEY = web.AppKey("backend", Backend)
METRICS_KEY = web.AppKey("metrics", Metrics)
REQUEST_ID_KEY = web.RequestKey("request_id", str)
# the resolved database URL (the embedded server's when DATABASE_URL is not set)
DSN_KEY = web.AppKey("dsn", str)
HUB_KEY = web.AppKey("stream_hub", StreamHub)
# the open live-event sockets and their subscriptions, closed on shutdown
STREAMS_KEY = web.AppKey("open_streams", dict[web.WebSocketResponse, Subscription])
# the solver: verdict cache and search processes (service/solving.py)
SOLVER_KEY = web.AppKey("solver", Solver)
# the rate limits (absent with RATE_LIMITS=off)
LIMITS_KEY = web.AppKey("rate_limiter", RateLimiter)
# guesses of link codes per client address: always on, whatever RATE_LIMITS says
LINK_GUESSES_KEY = web.AppKey("link_guesses", TokenBuckets)
