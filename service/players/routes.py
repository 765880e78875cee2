"""A new player; the caller's own player: their record, friends, export, device tokens and
link codes (API.md: devices, tokens and linking a second device); any player's stats. A
player's record and games by id are the boards' (service/boards/routes.py)."""

from __future__ import annotations

import logging

from aiohttp import web

from service.base.keys import BACKEND_KEY, LIMITS_KEY, LINK_GUESSES_KEY, SETTINGS_KEY
from service.base.ratelimit import charge
from service.base.requests import (
    idempotency,
    parse_body,
    path_id,
    present_client,
    read_nothing,
    request_client,
)
from service.base.responses import (
    json_response,
    private,
    secret_response,
    tagged_response,
    write_patiently,
)
from service.boards import records as leaderboards
from service.database.connections import BUDGET, DatabaseUnavailable
from service.games.export import lines as export_lines
from service.players import accounts as players
from service.players import friends, link_codes, stats, tries
from service.players.auth import caller
from service.players.link_codes import LINK_KEY
from service.players.schemas import LinkDevice, NewDevice, NewPlayer
from service.players.tokens import token_key

log = logging.getLogger("service.players")


def address_scope(request: web.Request) -> bytes:
    """The scope of a token's key on a request that comes with no token: the client's
    address (service/players/tokens.py)."""
    return b"address\0" + present_client(request).encode()


async def create_player(request: web.Request) -> web.Response:
    body = await parse_body(request, NewPlayer)
    tk = token_key(idempotency(request, body), request.app[LINK_KEY], address_scope(request))
    issued = await players.create_player(
        request.app[BACKEND_KEY], body.name.strip() or body.name, request.app[LINK_KEY], tk
    )
    response = secret_response(issued.body, 201, issued.replayed)
    response.headers["Location"] = f"/v1/players/{issued.body['id']}"
    return response


async def me(request: web.Request) -> web.Response:
    player = await caller(request)
    record = await leaderboards.player_record(request.app[BACKEND_KEY], player.id)
    return private(tagged_response(request, record))


async def export(request: web.Request) -> web.StreamResponse:
    """Every game of the caller with its whole log, one game a line, streamed
    (service/games/export.py). Until the first line, trouble is an answer like any other
    (401, 503); after it, the connection is cut and the body ends without its last line."""
    player = await caller(request)
    # a long stream of reads, as a WebSocket's: each has DB_TIMEOUT of its own, not a
    # share of one budget (connections.Budget)
    BUDGET.set(None)
    limiter, address = request.app.get(LIMITS_KEY), request_client(request)
    paced = False

    async def pace(events: int) -> None:
        """The events of each game charged to the address, as a log's pages are: the
        first game's past the rate is a 429 before the answer begins, the others wait for
        the rate (as a live stream's stored pages do)."""
        nonlocal paced
        if limiter is None:
            return
        if paced:
            await limiter.pace_events(address, events)
        else:
            paced = True
            limiter.read_events(address, events)

    lines = export_lines(request.app[BACKEND_KEY], player.id, pace)
    first = await anext(lines, None)
    response = private(web.StreamResponse(headers={"Content-Type": "application/x-ndjson"}))
    await response.prepare(request)
    patience = request.app[SETTINGS_KEY].send_timeout_s
    try:
        if first is not None:
            await write_patiently(request, response, first, patience)
            async for line in lines:
                await write_patiently(request, response, line, patience)
        await response.write_eof()
    except Exception as exc:
        # the answer has begun: no problem+json can follow it, so the connection is cut
        # and the body ends without its last chunk (the client sees it broken)
        transport = request.transport
        if isinstance(exc, TimeoutError):
            log.info("export cut off: its client read none of it for %s s", patience)
            if transport is not None:
                transport.abort()  # (close would wait for the client to take what it holds)
            return response
        if isinstance(exc, ConnectionError):  # (a phone put away: no fault of ours)
            log.info("export cut off: its client went away")
        else:
            log.warning("export cut off mid-stream", exc_info=True)
        if transport is not None:
            transport.close()
    return response


async def player_stats(request: web.Request) -> web.Response:
    record = await stats.player_stats(request.app[BACKEND_KEY], request.match_info["player_id"])
    return tagged_response(request, record)


async def follow(request: web.Request) -> web.Response:
    player = await caller(request)
    friend = path_id(request, "player_id", "player")
    await read_nothing(request)
    await friends.follow(request.app[BACKEND_KEY], player, friend)
    return web.Response(status=204)


async def unfollow(request: web.Request) -> web.Response:
    player = await caller(request)
    friend = path_id(request, "player_id", "player")
    await friends.unfollow(request.app[BACKEND_KEY], player, friend)
    return web.Response(status=204)


async def list_friends(request: web.Request) -> web.Response:
    player = await caller(request)
    return private(json_response(await friends.friends(request.app[BACKEND_KEY], player)))


async def add_token(request: web.Request) -> web.Response:
    player = await caller(request)
    body = await parse_body(request, NewDevice)
    tk = token_key(idempotency(request, body), request.app[LINK_KEY], player.id.bytes)
    issued = await players.add_token(
        request.app[BACKEND_KEY], player, body.device, request.app[LINK_KEY], tk
    )
    return secret_response(issued.body, 201, issued.replayed)


async def list_tokens(request: web.Request) -> web.Response:
    player = await caller(request)
    return secret_response(await players.list_tokens(request.app[BACKEND_KEY], player))


async def revoke_token(request: web.Request) -> web.Response:
    player = await caller(request)
    await players.revoke_token(request.app[BACKEND_KEY], player, request.match_info["token_id"])
    return web.Response(status=204)


async def add_link_code(request: web.Request) -> web.Response:
    player = await caller(request)
    await read_nothing(request)
    code = await link_codes.add_link_code(
        request.app[BACKEND_KEY], player, request.app[LINK_KEY]
    )
    return secret_response(code, 201)


async def link_device(request: web.Request) -> web.Response:
    """A new device's token from a link code. Guesses are limited per address before the
    body is read (RATE_LINK_TRIES_PER_MINUTE, unless RATE_LIMITS=off): in this instance's
    memory, then in the database, for all instances together (players/tries.py)."""
    guesses = request.app.get(LINK_GUESSES_KEY)  # (none with RATE_LIMITS=off)
    address = present_client(request)
    try:
        if guesses is not None:  # this instance's count, then every instance's
            charge(guesses, address, "link-code tries from your address")
            await tries.take(request.app[BACKEND_KEY], address, int(guesses.capacity))
        body = await parse_body(request, LinkDevice)
        issued = await link_codes.redeem_link_code(
            request.app[BACKEND_KEY], request.app[LINK_KEY], body.code, body.device,
            token_key(idempotency(request, body), request.app[LINK_KEY], address_scope(request)),
        )
    except DatabaseUnavailable:  # (a 503) the try was never judged: it does not count
        if guesses is not None:
            guesses.give_back(address)
        raise
    return secret_response(issued.body, 201, issued.replayed)
