"""Typed keys of the application's state."""

from __future__ import annotations

from aiohttp import web

from service.base.backend import Backend
from service.base.metrics import Metrics
from service.base.ratelimit import MinuteWindows, RateLimiter
from service.base.settings import Settings
from service.database.health import HealthProbe

SETTINGS_KEY = web.AppKey("settings", Settings)
BACKEND_KEY = web.AppKey("backend", Backend)
METRICS_KEY = web.AppKey("metrics", Metrics)
REQUEST_ID_KEY = web.RequestKey("request_id", str)
# seconds a request waited for the database before the app gave it its budget (a 304 the
# front asked of memory waits for a beat through it): the budget starts that much short
WAITED_BEFORE_KEY = web.RequestKey("database_waited_before", float)
# the resolved database URL (the embedded server's when DATABASE_URL is not set)
DSN_KEY = web.AppKey("dsn", str)
# the database's health, asked on a connection of its own (GET /healthz)
HEALTH_KEY = web.AppKey("health", HealthProbe)
# the rate limits (absent with RATE_LIMITS=off)
LIMITS_KEY = web.AppKey("rate_limiter", RateLimiter)
# guesses of link codes per client address (absent with RATE_LIMITS=off)
LINK_GUESSES_KEY = web.AppKey("link_guesses", MinuteWindows)
