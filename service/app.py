"""create_app(settings): routes, middlewares and resources (cleanup_ctx)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import aiohttp_cors
from aiohttp import web
from aiohttp.typedefs import Handler

from service.base import meta
from service.base.backend import Backend, GameCache, Lru, stream_read_turns
from service.base.keys import (
    BACKEND_KEY,
    DSN_KEY,
    HEALTH_KEY,
    LIMITS_KEY,
    LINK_GUESSES_KEY,
    METRICS_KEY,
    SETTINGS_KEY,
)
from service.base.metrics import Metrics
from service.base.observe import OBSERVER_KEY, Observer
from service.base.problems import expectation, problem_middleware
from service.base.ratelimit import MinuteWindows, RateLimiter
from service.base.responses import (
    CORS_EXPOSED_HEADERS,
    Prepare,
    answer_headers,
    cors_headers,
    name_the_server,
)
from service.base.settings import Settings
from service.base.shm import Slots
from service.boards import routes as leaderboards
from service.database.connections import (
    StoreError,
    close_pool,
    connect_options,
    create_pool,
)
from service.database.embedded import asyncpg_dsn, resolve_database_url
from service.database.health import HealthProbe
from service.database.store import EventStore
from service.deals import routes as deals
from service.games import positions
from service.games import routes as games
from service.live import routes as stream
from service.live.beats import broker_caught_up
from service.live.hub import HUB_KEY, STREAMS_KEY, StreamHub
from service.players import accounts, tries
from service.players import routes as players
from service.players.link_codes import LINK_KEY, link_code_key, purge_link_codes
from service.races import feeds as race_feeds
from service.races import routes as races
from service.solver import routes as solver
from service.solver.analyses import ANALYSES_KEY, Analyses
from service.solver.verdicts import SOLVER_KEY, Solver
from service.webclient import routes as webclient

log = logging.getLogger("service")


def setup_routes(app: web.Application) -> None:
    # the router's add_* methods, every route answering an `Expect` header with
    # problems.expectation
    r = SimpleNamespace(**{
        add: functools.partial(getattr(app.router, add), expect_handler=expectation)
        for add in ("add_get", "add_post", "add_put", "add_delete")
    })  # fmt: skip

    r.add_get("/healthz", meta.healthz)
    r.add_get("/metrics", meta.metrics)
    r.add_get("/openapi.yaml", meta.openapi)
    r.add_post("/v1/players", players.create_player)
    # the caller's own player: before /v1/players/{player_id}, which would take "me"
    r.add_get("/v1/players/me", players.me)
    r.add_get("/v1/players/me/export", players.export)
    r.add_get("/v1/players/me/friends", players.list_friends)
    r.add_put("/v1/players/me/friends/{player_id}", players.follow)
    r.add_delete("/v1/players/me/friends/{player_id}", players.unfollow)
    r.add_post("/v1/players/me/tokens", players.add_token)
    r.add_get("/v1/players/me/tokens", players.list_tokens)
    r.add_delete("/v1/players/me/tokens/{token_id}", players.revoke_token)
    r.add_post("/v1/players/me/link-codes", players.add_link_code)
    r.add_post("/v1/tokens", players.link_device)
    r.add_post("/v1/games", games.create_game)
    r.add_get("/v1/games/{game_id}", games.get_game)
    r.add_post("/v1/games/{game_id}/moves", games.play_move)
    r.add_post("/v1/games/{game_id}/undo", games.undo)
    r.add_post("/v1/games/{game_id}/redo", games.redo)
    r.add_post("/v1/games/{game_id}/abandon", games.abandon)
    r.add_get("/v1/games/{game_id}/legal-moves", games.legal_moves)
    r.add_get("/v1/games/{game_id}/destinations", games.destinations)
    r.add_get("/v1/games/{game_id}/events", games.events)
    r.add_get("/v1/games/{game_id}/stream", stream.stream)
    r.add_get("/v1/variants", deals.variants)
    r.add_get("/v1/deals/{variant}/{deal}", deals.deal)
    r.add_get("/v1/games/{game_id}/hint", solver.hint_after)
    r.add_post("/v1/games/{game_id}/hint", solver.hint)
    r.add_get("/v1/games/{game_id}/analysis", solver.analysis)
    r.add_get("/v1/daily/{variant}", solver.daily)
    r.add_get("/", webclient.index)
    r.add_get(r"/static/{name:[a-z0-9_-]+(?:/[a-z0-9_-]+)?\.[a-z]+}", webclient.static_file)
    r.add_get("/v1/leaderboards/{variant}/{deal}", leaderboards.board)
    r.add_get("/v1/leaderboards/{variant}/{deal}/times", leaderboards.winning_times)
    # a player's record and games are the boards' (service/boards/routes.py)
    r.add_get("/v1/players/{player_id}", leaderboards.player_record)
    r.add_get("/v1/players/{player_id}/games", leaderboards.player_games)
    r.add_get("/v1/players/{player_id}/stats", players.player_stats)
    r.add_post("/v1/races", races.create_race)
    r.add_get("/v1/races/{race_id}", races.get_race)
    r.add_post("/v1/races/{race_id}/join", races.join_race)
    r.add_get("/v1/races/{race_id}/events", races.events)
    r.add_get("/v1/races/{race_id}/stream", races.stream)


def database_ctx(settings: Settings):  # type: ignore[no-untyped-def]
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        url, _embedded = resolve_database_url(settings.database_url, settings.data_dir)
        pool = await create_pool(
            url, settings.pool_min, settings.pool_max, pooler=settings.pooled
        )
        app[DSN_KEY] = url
        app[BACKEND_KEY] = Backend(
            store=EventStore(
                pool, settings.db_timeout, settings.min_median_move_ms, settings.write_lanes
            ),
            games=GameCache(settings.cache_games),
            players=Lru(settings.cache_tokens),
            max_game_events=settings.max_game_events,
            stream_reads=asyncio.Semaphore(stream_read_turns(settings.pool_max)),
            cursor_key=hmac.new(app[LINK_KEY], b"board cursors", hashlib.sha256).digest(),
        )
        app[HEALTH_KEY] = health = HealthProbe(
            url, min(settings.db_timeout, 2.0), connect_options(settings.pooled)
        )
        yield
        await health.close()
        await close_pool(pool, settings.db_timeout)

    return ctx


async def maintenance_ctx(app: web.Application) -> AsyncIterator[None]:
    """Idempotency keys (and spent or expired link codes) are kept `idempotency_hours` (a
    day at least: Settings), then purged hourly, with the link-code tries of addresses
    quiet since."""
    settings = app[SETTINGS_KEY]

    async def purge() -> None:
        while True:
            await asyncio.sleep(3600)
            cutoff = datetime.now(UTC) - timedelta(hours=settings.idempotency_hours)
            try:
                await app[BACKEND_KEY].store.purge_keys(cutoff)
                await purge_link_codes(app[BACKEND_KEY], cutoff)
                await tries.purge(app[BACKEND_KEY])
            except StoreError:
                log.warning("could not purge old idempotency keys; will try again")

    task = asyncio.create_task(purge())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def solver_ctx(settings: Settings):  # type: ignore[no-untyped-def]
    """cleanup_ctx: the solver and its process pool (workers start on the first search),
    and the finished games' analyses kept."""

    async def ctx(app: web.Application) -> AsyncIterator[None]:
        solver = Solver(
            settings.hint_budget_seconds,
            capacity=settings.solver_cache,
            library=settings.solver_library,
            prefetch=settings.solver_prefetch,
            workers=settings.solver_workers,
        )
        app[SOLVER_KEY] = solver
        app[ANALYSES_KEY] = analyses = Analyses()
        yield
        analyses.close()
        solver.close()

    return ctx


async def stream_ctx(app: web.Application) -> AsyncIterator[None]:
    """The live-event hub: its listening connection opens after the pool, closes before."""
    settings = app[SETTINGS_KEY]
    # LISTEN needs a session of its own: a direct connection when DATABASE_URL goes
    # through a pooler in transaction mode (DATABASE_POOLER=transaction), where a LISTEN
    # stays on whichever server connection ran it, and its notifications reach whichever
    # client that connection serves at the time, or nobody (create_app refuses that)
    listen_dsn = (
        asyncpg_dsn(settings.listen_database_url)
        if settings.listen_database_url
        else app[DSN_KEY]
    )
    hub = StreamHub(
        app[BACKEND_KEY].store,
        listen_dsn,
        queue_size=settings.ws_queue,
        sweep_every=settings.ws_sweep,
        broker=settings.events_broker,
    )
    app[HUB_KEY] = hub
    app[BACKEND_KEY].committed = hub.committed
    app[BACKEND_KEY].committed_untold = functools.partial(hub.committed, told=False)
    app[BACKEND_KEY].race_committed = hub.race_committed
    app[BACKEND_KEY].board_committed = hub.board_committed
    hub.on_race = app[BACKEND_KEY].wake_race_feed
    hub.on_board = app[BACKEND_KEY].board_changed
    hub.on_game = functools.partial(positions.announce, app[BACKEND_KEY])
    app[BACKEND_KEY].epoch = hub.epoch
    app[BACKEND_KEY].caught_up = broker_caught_up if hub.broker else hub.beats.caught_up
    if not hub.broker:
        app[BACKEND_KEY].alone = hub.beats.alone
    hub.on_signed_out = functools.partial(accounts.signed_out, app[BACKEND_KEY])
    app[BACKEND_KEY].token_signed_out = hub.token_signed_out
    hub.sweep_races = lambda: race_feeds.sweep(app[BACKEND_KEY])
    await hub.start()
    yield
    await hub.stop()


CORS_METHODS = ("GET", "POST", "PUT", "DELETE")
CORS_REQUEST_HEADERS = (
    "Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match",
    "X-Request-Id",
)


def setup_cors(app: web.Application, origins: list[str]) -> None:
    """Web pages served from `origins` may call every route (aiohttp-cors): preflights are
    answered, answers expose the headers a client reads. Other origins get no CORS
    headers (and a preflight from one is 403). Tokens travel in Authorization, never in
    cookies, so no credentials are allowed."""
    options = aiohttp_cors.ResourceOptions(
        allow_credentials=False,
        expose_headers=CORS_EXPOSED_HEADERS,
        allow_headers=CORS_REQUEST_HEADERS,
        allow_methods=CORS_METHODS,
        max_age=600,
    )
    cors = aiohttp_cors.setup(app, defaults=dict.fromkeys(origins, options))
    for route in list(app.router.routes()):
        cors.add(route)
    app.on_response_prepare.append(cors_where_no_route(frozenset(origins)))  # (after its own)


def cors_where_no_route(origins: frozenset[str]) -> Prepare:
    """on_response_prepare, after aiohttp-cors's: the CORS headers of the answers it leaves
    bare, those of no route (a 404 for a path the service does not serve, a 405 for a
    method a path does not take), so that a page of a listed origin can read their problem
    as it reads every other."""

    async def prepare(request: web.Request, response: web.StreamResponse) -> None:
        if "Access-Control-Allow-Origin" not in response.headers:
            response.headers.update(cors_headers(request.headers.get("Origin"), origins))

    return prepare


@web.middleware
async def options_not_preflights(request: web.Request, handler: Handler) -> web.StreamResponse:
    """With CORS_ORIGINS set, aiohttp-cors gives every path an OPTIONS route for
    preflights: an OPTIONS that is not one (no Access-Control-Request-Method) is answered
    as without CORS_ORIGINS, a 405 with the path's Allow, not as a failed preflight (403)."""
    if request.method == "OPTIONS" and "Access-Control-Request-Method" not in request.headers:
        resource = request.match_info.route.resource
        if resource is not None:  # (None: no such path, the router's 404)
            allowed = {route.method for route in resource if route.method != "OPTIONS"}
            raise web.HTTPMethodNotAllowed("OPTIONS", allowed)
    return await handler(request)


def create_app(settings: Settings | None = None, limits: Slots | None = None) -> web.Application:
    """The service.  `limits`: the rate counters' table, shared by the worker processes of
    one machine (workers.py); this process's own when not given."""
    settings = settings or Settings()
    problem = settings.listener_problem()
    if problem:
        raise RuntimeError(problem)
    limits = limits if limits is not None else Slots.private()
    metrics = Metrics()
    observer = Observer(settings, metrics)
    middlewares = [observer.middleware, problem_middleware]
    if settings.cors_origin_list:
        middlewares.append(options_not_preflights)
    if settings.rate_limits_on:
        limiter = RateLimiter(settings, slots=limits)
        middlewares.append(limiter.middleware)
    app = web.Application(middlewares=middlewares, client_max_size=settings.max_body_bytes)
    name_the_server()
    app.on_response_prepare.append(answer_headers(vary_origin=bool(settings.cors_origin_list)))
    app[SETTINGS_KEY] = settings
    if settings.rate_limits_on:
        app[LIMITS_KEY] = limiter
    if settings.rate_limits_on:  # (not the middleware's: see ratelimit.py)
        app[LINK_GUESSES_KEY] = MinuteWindows(
            settings.rate_link_tries_per_minute, slots=limits, kind="link"
        )
    app[LINK_KEY] = link_code_key(settings)
    app[METRICS_KEY] = metrics
    app[OBSERVER_KEY] = observer
    app.cleanup_ctx.append(database_ctx(settings))
    app.cleanup_ctx.append(maintenance_ctx)
    app.cleanup_ctx.append(stream_ctx)
    app.cleanup_ctx.append(solver_ctx(settings))
    app.cleanup_ctx.append(races.race_clock_ctx)
    app[STREAMS_KEY] = {}
    app.on_shutdown.append(stream.close_streams)
    app.on_shutdown.append(races.close_streams)
    setup_routes(app)
    if settings.cors_origin_list:
        setup_cors(app, settings.cors_origin_list)
    return app
