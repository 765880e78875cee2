"""Typed keys of the application's state."""

from __future__ import annotations

from aiohttp import web

from .metrics import Metrics
from .settings import Settings
from .uow import UnitOfWork

SETTINGS_KEY = web.AppKey("settings", Settings)
UOW_KEY = web.AppKey("uow", UnitOfWork)
METRICS_KEY = web.AppKey("metrics", Metrics)
REQUEST_ID_KEY = web.RequestKey("request_id", str)
