"""create_app(settings): routes, middlewares and resources (cleanup_ctx)."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from .db import resolve_database_url
from .handlers import games, meta
from .keys import METRICS_KEY, REQUEST_ID_KEY, SETTINGS_KEY, UOW_KEY
from .metrics import Metrics
from .problems import problem_middleware
from .settings import Settings
from .store import EventStore, create_pool
from .uow import GameCache, UnitOfWork

access_log = logging.getLogger("service.access")


def setup_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/healthz", meta.healthz)
    r.add_get("/metrics", meta.metrics)
    r.add_get("/openapi.yaml", meta.openapi)
    r.add_post("/v1/players", games.create_player)
    r.add_post("/v1/games", games.create_game)
    r.add_get("/v1/games/{game_id}", games.get_game)
    r.add_post("/v1/games/{game_id}/moves", games.play_move)
    r.add_post("/v1/games/{game_id}/undo", games.undo)
    r.add_post("/v1/games/{game_id}/redo", games.redo)
    r.add_post("/v1/games/{game_id}/abandon", games.abandon)
    r.add_get("/v1/games/{game_id}/legal-moves", games.legal_moves)
    r.add_get("/v1/games/{game_id}/destinations", games.destinations)
    r.add_get("/v1/games/{game_id}/events", games.events)
    r.add_get("/v1/deals/{variant}/{deal}", games.deal)


@web.middleware
async def observe(request: web.Request, handler: Any) -> web.StreamResponse:
    """Request id, latency histogram, request counter and one log line per request."""
    request_id = request.headers.get("X-Request-Id") or uuid.uuid4().hex[:16]
    request[REQUEST_ID_KEY] = request_id
    started = time.perf_counter()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        response.headers["X-Request-Id"] = request_id
        return response  # type: ignore[no-any-return]
    except web.HTTPException as exc:
        status = exc.status
        raise
    finally:
        elapsed = time.perf_counter() - started
        info = request.match_info.route.resource
        route = info.canonical if info is not None else "unmatched"
        m = request.app[METRICS_KEY]
        m.latency.labels(route, request.method).observe(elapsed)
        m.requests.labels(route, request.method, str(status)).inc()
        if request.app[SETTINGS_KEY].log_requests:
            access_log.info(
                json.dumps(
                    {
                        "request_id": request_id,
                        "method": request.method,
                        "path": request.path,
                        "route": route,
                        "status": status,
                        "ms": round(elapsed * 1000, 2),
                        "remote": request.remote,
                    }
                )
            )


def database_ctx(settings: Settings):  # type: ignore[no-untyped-def]
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        url, _embedded = resolve_database_url(settings.database_url, settings.data_dir)
        pool = await create_pool(url, settings.pool_min, settings.pool_max)
        app[UOW_KEY] = UnitOfWork(
            store=EventStore(pool, settings.db_timeout), games=GameCache(settings.cache_games)
        )
        yield
        await pool.close()

    return ctx


def create_app(settings: Settings | None = None) -> web.Application:
    settings = settings or Settings()
    app = web.Application(
        middlewares=[observe, problem_middleware], client_max_size=settings.max_body_bytes
    )
    app[SETTINGS_KEY] = settings
    app[METRICS_KEY] = Metrics()
    app.cleanup_ctx.append(database_ctx(settings))
    setup_routes(app)
    return app
