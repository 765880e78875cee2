"""Races: create, join, read, and the race's stream (API.md, "Races").

The stream is a WebSocket like a game's: the race's events with seq > after, in order,
with no gap and no duplicate, from any instance. A socket reads its backlog itself, then
gets what one reader per race on this instance (a feed: service/races/feeds.py) reads when
woken by a commit to the race's log, this instance's at once and the other instances'
through the live events' wake-ups (LISTEN/NOTIFY or the broker: service/live/hub.py), or by
the hub's sweep; the log is the truth, so a reconnect with ?after= its last seq loses
nothing and repeats nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import uuid
from collections.abc import AsyncIterator

from aiohttp import web

from service.base.errors import BadRequest
from service.base.keys import BACKEND_KEY, SETTINGS_KEY
from service.base.logs import repeated_level
from service.base.ratelimit import EVENTS_SENT_KEY
from service.base.requests import (
    MAX_SEQ,
    after_query,
    idempotency,
    int_query,
    parse_body,
    path_id,
    read_nothing,
)
from service.base.responses import json_response, tagged_response, written
from service.database.connections import StoreError
from service.live import sockets
from service.live.subscriptions import GOING_AWAY, Subscription
from service.players.auth import caller
from service.races import feeds
from service.races import service as races
from service.races.schemas import NewRace

log = logging.getLogger("service.races")

# the open race sockets of this instance, each with its subscription to the race's feed
RACE_STREAMS_KEY = web.AppKey("race_streams", dict[web.WebSocketResponse, Subscription])


def race_id(request: web.Request) -> uuid.UUID:
    return path_id(request, "race_id", "race")


async def create_race(request: web.Request) -> web.Response:
    player = await caller(request)
    body = await parse_body(request, NewRace)
    race, replayed = await races.create_race(
        request.app[BACKEND_KEY], player, body.variant, body.deal, body.autoplay,
        body.starts_in_s, body.max_players,
        body.max_minutes * request.app[SETTINGS_KEY].race_minute_s,
        idempotency(request, body),
    )  # fmt: skip
    response = written(request, race, 201, replayed)
    response.headers["Location"] = f"/v1/races/{race['id']}"
    return response


async def get_race(request: web.Request) -> web.Response:
    """The race now, tagged with a hash of it (its players' progress changes it too)."""
    race = await races.get_race(request.app[BACKEND_KEY], race_id(request))
    return tagged_response(request, race)


async def events(request: web.Request) -> web.Response:
    """The race's log as JSON, a page at a time, like a game's /events."""
    rid = race_id(request)
    after = after_query(request, MAX_SEQ)
    limit = int_query(request, "limit", None, 1, MAX_SEQ)
    page, version = await races.events_page(request.app[BACKEND_KEY], rid, after, limit)
    request[EVENTS_SENT_KEY] = len(page["events"])
    return tagged_response(request, page, f"{rid}.{version}.events.{after}.{limit or ''}")


async def join_race(request: web.Request) -> web.Response:
    player = await caller(request)
    await read_nothing(request)
    return json_response(await races.join_race(request.app[BACKEND_KEY], race_id(request), player))


async def stream(request: web.Request) -> web.StreamResponse:
    rid = race_id(request)
    after = after_query(request, MAX_SEQ)
    ws = sockets.websocket(request, f"GET /v1/races/{rid} gives the race as JSON")
    backend = request.app[BACKEND_KEY]
    me = feeds.watch(backend, rid, after, request.app[SETTINGS_KEY].ws_queue)
    streams = request.app[RACE_STREAMS_KEY]
    streams[ws] = me  # from here on, a shutdown ends this stream too
    try:
        # before the upgrade, the race as a GET reads it (404 for an unknown one); its
        # log's pages after it, each in a turn, however long the other streams' turns last
        race = await races.settle(backend, rid)
        if after > race["version"]:  # a client ahead of the log would wait for events it has
            raise BadRequest(f"after={after} is past the race's last event, {race['version']}:"
                             f" ask with ?after={race['version']} or less")
        await sockets.prepare(request, ws)
        me.direct = sockets.direct_writer(request, ws)  # (for its catch-up: the feed queues)
        read = sockets.taking_turns(
            backend.stream_reads, functools.partial(races.read_events, backend, rid), me.ended
        )
        send = sockets.send_log(ws, me, read, feeds.PAGE)
        await sockets.serve(request, ws, me, send, f"race {rid}")
    finally:
        streams.pop(ws, None)
        feeds.unwatch(backend, rid, me)
    return ws


async def close_streams(app: web.Application) -> None:
    """on_shutdown: every open race stream says where to resume, then closes (1001)."""
    for me in list(app[RACE_STREAMS_KEY].values()):
        me.end(GOING_AWAY, "this server is shutting down")


async def race_clock_ctx(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: this instance's clock task, which starts and ends the races whose time
    has come every RACE_TICK_S seconds (each step is taken once, whichever instance gets
    there first: service/races/service.py)."""
    app[RACE_STREAMS_KEY] = {}
    every = app[SETTINGS_KEY].race_tick_s

    async def run() -> None:
        failures = 0  # in a row (a database away is not a warning at each tick)
        while True:
            try:
                await races.tick(app[BACKEND_KEY])
                failures = 0
            except StoreError as exc:
                log.log(repeated_level(failures),
                        "could not start or end the races due (%r); will try again", exc)
                failures += 1
            except Exception:
                log.exception("the race clock failed once; it goes on")
            await asyncio.sleep(every)

    task = asyncio.create_task(run())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
