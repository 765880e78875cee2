"""Leaderboards of a deal and players' records."""

from __future__ import annotations

from aiohttp import web

from service.base.errors import BadRequest
from service.base.keys import BACKEND_KEY
from service.base.requests import int_query
from service.base.responses import (
    json_response,
    not_modified_from_memory,
    private,
    tagged_response,
)
from service.boards import board as boards
from service.boards import friends, known, records, times
from service.deals.numbers import checked_deal, deal_in_path
from service.players.auth import caller

MAX_CURSOR = 200
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")


def _flag(request: web.Request, name: str) -> bool:
    raw = request.query.get(name)
    if raw is None:
        return False
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise BadRequest(f"query parameter {name!r} is true or false, not {raw!r}")


def _cursor(request: web.Request) -> str | None:
    cursor = request.query.get("cursor")
    if cursor is not None and not 0 < len(cursor) <= MAX_CURSOR:
        raise BadRequest("this cursor was not given by this service; leave 'cursor' out"
                         " for the first page")
    return cursor


async def board(request: web.Request) -> web.Response:
    variant = request.match_info["variant"]
    deal = deal_in_path(request.match_info["deal"])
    limit = int_query(request, "limit", 20, 1, 100)
    assert limit is not None
    cursor = _cursor(request)
    around = request.query.get("around")
    kind = boards.board_name(_flag(request, "assisted"), _flag(request, "no_undo"))
    backend = request.app[BACKEND_KEY]
    if _flag(request, "friends"):
        if around is not None:
            raise BadRequest("give either 'around=me' or 'friends=true', not both")
        checked_deal(variant, deal)  # a bad board is a 400/422 before the token
        player = await caller(request)
        return private(tagged_response(request, await friends.friends_board(
            backend, variant, deal, player, limit, cursor, kind)))  # fmt: skip
    if around is None:  # a public page: its 304 from memory while it is known current
        variant = checked_deal(variant, deal)
        key = (variant, deal, kind, limit, cursor)
        tag = known.known_tag(backend, key, variant, deal) if request.if_none_match else None
        if tag is not None and (unchanged := await not_modified_from_memory(
            request, tag, lambda: known.known_tag(backend, key, variant, deal),
            backend.caught_up,
        )) is not None:  # fmt: skip
            return unchanged
        before = known.seen(backend, variant, deal)
        response = tagged_response(
            request, await boards.board(backend, variant, deal, limit, cursor, kind)
        )
        known.remember(backend, key, response.headers["ETag"].strip('"'), before)
        return response
    if around != "me":
        raise BadRequest(f"'around' takes one value, 'me', not {around!r}")
    if cursor is not None:
        raise BadRequest("give either 'around=me' or 'cursor', not both")
    checked_deal(variant, deal)  # a bad board is a 400/422 before the token
    player = await caller(request)
    page = await boards.board_around(backend, variant, deal, player, kind=kind)
    return private(tagged_response(request, page))


async def winning_times(request: web.Request) -> web.Response:
    """The default board's winning times in bins (service/boards/times.py)."""
    variant = request.match_info["variant"]
    deal = deal_in_path(request.match_info["deal"])
    return tagged_response(
        request, await times.winning_times(request.app[BACKEND_KEY], variant, deal)
    )


async def player_record(request: web.Request) -> web.Response:
    backend = request.app[BACKEND_KEY]
    record = await records.player_record(backend, request.match_info["player_id"])
    return tagged_response(request, record)


async def player_games(request: web.Request) -> web.Response:
    limit = int_query(request, "limit", 20, 1, 100)
    assert limit is not None
    backend = request.app[BACKEND_KEY]
    page = await records.player_games(
        backend, request.match_info["player_id"], limit, _cursor(request)
    )
    return json_response(page)
