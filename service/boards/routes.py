"""Leaderboards of a deal and players' records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from aiohttp import web

from service.base.backend import Backend
from service.base.errors import BadRequest
from service.base.keys import BACKEND_KEY
from service.base.requests import int_query, paged_by, query_value
from service.base.responses import (
    Known,
    json_response,
    not_modified_from_memory,
    private,
    remembered,
    tagged_response,
)
from service.boards import board as boards
from service.boards import friends, known, records, times
from service.deals.numbers import checked_deal, deal_in_path
from service.players.auth import caller

MAX_CURSOR = 200
PAGE = 20  # a page's entries when the request gives no `limit`
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")


def _flag(request: web.Request, name: str) -> bool:
    raw = query_value(request, name)
    if raw is None:
        return False
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise BadRequest(f"query parameter {name!r} is true or false, not {raw!r}")


def _cursor(request: web.Request) -> str | None:
    paged_by(request, "cursor", "after")  # (a log's pages go by `after`)
    cursor = query_value(request, "cursor")
    if cursor is not None and not 0 < len(cursor) <= MAX_CURSOR:
        raise BadRequest("this cursor was not given by this service; leave 'cursor' out"
                         " for the first page")
    return cursor


class Asked(NamedTuple):
    """What a request of a board asks, read and checked as far as it goes without the
    variant's table (its refusals raised in the order a client meets them)."""

    variant: str
    deal: int
    kind: str
    limit: int
    cursor: str | None
    friends: bool
    around: str | None

    @property
    def public(self) -> bool:  # the full board's page, the same for everyone
        return not self.friends and self.around is None


def _asked(request: web.Request, path: Mapping[str, str]) -> Asked:
    deal = deal_in_path(path["deal"])
    if not request.query_string:  # (the usual: the first page of the default board)
        return Asked(path["variant"], deal, boards.board_name(), PAGE, None, False, None)
    limit = int_query(request, "limit", PAGE, 1, 100)
    assert limit is not None
    cursor = _cursor(request)
    kind = boards.board_name(_flag(request, "assisted"), _flag(request, "no_undo"))
    return Asked(path["variant"], deal, kind, limit, cursor, _flag(request, "friends"),
                 query_value(request, "around"))  # fmt: skip


def _page_key(asked: Asked) -> Asked:
    """A public page's key in memory (boards/known.py): all it asks (an option added to
    Asked is in it), its deal checked and its variant as the registry names it."""
    return asked._replace(variant=checked_deal(asked.variant, asked.deal))


def _known_page(backend: Backend, key: Asked) -> Known | None:
    """The public page's tag that memory knows current (known.known_tag)."""
    tag = known.known_tag(backend, key, key.variant, key.deal)
    return None if tag is None else Known(
        tag, lambda: known.known_tag(backend, key, key.variant, key.deal)
    )


def _known(backend: Backend, request: web.Request, path: Mapping[str, str]) -> Known | None:
    asked = _asked(request, path)
    return _known_page(backend, _page_key(asked)) if asked.public else None


@remembered(_known)
async def board(request: web.Request) -> web.Response:
    backend = request.app[BACKEND_KEY]
    asked = _asked(request, request.match_info)
    variant, deal, kind, around = asked.variant, asked.deal, asked.kind, asked.around
    if asked.public:  # its 304 from memory while it is known current
        key = _page_key(asked)
        if "If-None-Match" in request.headers and (unchanged := await not_modified_from_memory(
            request, _known_page(backend, key), backend
        )) is not None:  # fmt: skip
            return unchanged
        before = known.seen(backend, key.variant, deal)
        response = tagged_response(request, await boards.board(
            backend, key.variant, deal, asked.limit, asked.cursor, kind))  # fmt: skip
        known.remember(backend, key, response.headers["ETag"].strip('"'), before)
        return response
    if asked.friends:
        if around is not None:
            raise BadRequest("give either 'around=me' or 'friends=true', not both")
        checked_deal(variant, deal)  # a bad board is a 400/422 before the token
        player = await caller(request)
        return private(tagged_response(request, await friends.friends_board(
            backend, variant, deal, player, asked.limit, asked.cursor, kind)))  # fmt: skip
    if around != "me":
        raise BadRequest(f"'around' takes one value, 'me', not {around!r}")
    if asked.cursor is not None:
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
