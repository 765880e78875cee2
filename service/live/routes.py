"""GET /v1/games/{id}/stream: a game's events over a WebSocket (API.md, docs/stream.md).

Before the upgrade, a bad `after` is a 400 and an unknown game a 404 (problem+json). After
it: the stored events with seq > after, then the live ones from the hub, each once and in
order. The server ends a socket with a {"type": "reconnect", "after": n, "detail": …}
message and close code 4000 when its client fell behind, 1001 when this instance stops.
"""

from __future__ import annotations

import functools

from aiohttp import web

from service.base.errors import BadRequest, NotFound
from service.base.keys import BACKEND_KEY, LIMITS_KEY
from service.base.requests import MAX_SEQ, after_query, game_id, request_client
from service.live import sockets
from service.live.hub import HUB_KEY, STREAMS_KEY
from service.live.subscriptions import GOING_AWAY


async def stream(request: web.Request) -> web.StreamResponse:
    gid = game_id(request)
    after = after_query(request, MAX_SEQ)
    ws = sockets.websocket(request, f"GET /v1/games/{gid}/events gives the stored events as JSON")
    hub = request.app[HUB_KEY]
    store = request.app[BACKEND_KEY].store
    turns = request.app[BACKEND_KEY].stream_reads
    streams = request.app[STREAMS_KEY]
    # subscribe first, then read the log: an event committed in between arrives both ways
    # and the sender drops the second copy
    sub = hub.subscribe(gid, after)
    streams[ws] = sub  # from here on, a shutdown ends this stream too
    limiter = request.app.get(LIMITS_KEY)
    address = request_client(request)
    try:
        # before the upgrade, only the game's version (one row, as a GET reads): its pages
        # are read after it, each in a turn, however long the other streams' turns last
        last = (await store.versions([gid])).get(gid)
        if last is None:
            raise NotFound(f"there is no game with id {gid}")
        if after > last:  # a client ahead of the log would wait for events it has
            raise BadRequest(f"after={after} is past the game's last event, {last}:"
                             f" ask with ?after={last} or less")
        # the stored events a stream sends cost what a page of /events does: the first page
        # past the address's rate is a 429 (before the upgrade), the next ones wait for it
        # (seqs run from 1 without gap: the first page holds this many)
        if limiter is not None:
            limiter.read_events(address, min(last - after, BACKLOG_PAGE))
        await sockets.prepare(request, ws)
        sub.direct = sockets.direct_writer(request, ws)

        async def pace(events: int) -> None:
            if limiter is not None:
                await limiter.pace_events(address, events)

        read = sockets.taking_turns(turns, functools.partial(store.read_events, gid), sub.ended)
        send = sockets.send_log(ws, sub, read, BACKLOG_PAGE, pace=pace)
        await sockets.serve(request, ws, sub, send, f"game {gid}")
    finally:
        hub.unsubscribe(sub)
        streams.pop(ws, None)
    return ws


# a new stream's stored events are read and sent this many at a time, so that a long log
# costs memory in proportion to a page, not to the log
BACKLOG_PAGE = 1000


async def close_streams(app: web.Application) -> None:
    """on_shutdown: every open stream says goodbye (a reconnect message with its last seq,
    then close code 1001); aiohttp then waits for the handlers to finish."""
    for sub in list(app[STREAMS_KEY].values()):
        sub.end(GOING_AWAY, "this server is shutting down")
