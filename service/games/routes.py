"""Games, moves, undo and redo, legal moves, events."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from service.base.errors import BadRequest
from service.base.keys import BACKEND_KEY
from service.base.requests import game_id, idempotency, int_query, parse_body, read_object
from service.base.responses import (
    json_response,
    not_modified,
    not_modified_from_memory,
    tagged_response,
    written,
)
from service.games import commands, queries
from service.games.answers import Answer
from service.games.schemas import BatchRequest, MoveRequest, NewGame, VersionedRequest
from service.players.auth import writer
from service.solver import hints, owners
from service.solver.verdicts import SOLVER_KEY


async def create_game(request: web.Request) -> web.Response:
    player = await writer(request)
    body = await parse_body(request, NewGame)
    answer = await commands.create_game(
        request.app[BACKEND_KEY],
        player,
        body.variant,
        body.deal,
        body.autoplay,
        idempotency(request, body),
        body.grade,
    )
    if answer.status == 201:
        # a new game answers with the game itself, as API.md shows; its events are in /events
        answer = Answer(
            201, {**answer.body["game"], "events": answer.body["events"]}, answer.replayed
        )
        # the opening's search in the background counts against the game's creator
        who = owners.of_request(request, player.id)
        hints.prefetch_opening(
            request.app[SOLVER_KEY], answer.body, who, lambda: owners.allows(request, who)
        )
        response = written(request, answer.body, answer.status, answer.replayed)
        response.headers["Location"] = f"/v1/games/{answer.body['id']}"
        return response
    return written(request, answer.body, answer.status, answer.replayed)


async def _unchanged(request: web.Request, gid: Any, suffix: str = "") -> web.Response | None:
    """A 304 from memory, with no round trip to the log, when the request's tag is the
    game's version that memory knows to be current (queries.known_version) and still does
    a moment later (responses.not_modified_from_memory); else None. (A won game's view is
    tagged with its standing too, which memory does not know: its tag never matches.)"""
    if not request.if_none_match:
        return None
    backend = request.app[BACKEND_KEY]

    def known() -> str | None:
        version = queries.known_version(backend, gid)
        return None if version is None else f"{gid}.{version}{suffix}"

    tag = known()
    return None if tag is None else await not_modified_from_memory(
        request, tag, known, backend.caught_up
    )


async def get_game(request: web.Request) -> web.Response:
    gid = game_id(request)
    if (unchanged := await _unchanged(request, gid)) is not None:
        return unchanged
    game = await queries.get_game(request.app[BACKEND_KEY], gid)
    return tagged_response(request, game, queries.view_tag(game))


async def play_move(request: web.Request) -> web.Response:
    """One move, or a batch of them (`{"moves": [...]}`), all or none."""
    player = await writer(request)
    gid = game_id(request)
    raw = await read_object(request)
    moves: dict[str, Any] | list[dict[str, Any]]
    body: BatchRequest | MoveRequest
    if "moves" in raw:
        body = BatchRequest.model_validate(raw)
        moves = [m.as_dict() for m in body.moves]
    else:
        body = MoveRequest.model_validate(raw)
        moves = body.as_dict()
    idem = idempotency(request, body)
    answer = await commands.play(
        request.app[BACKEND_KEY], gid, player, moves, body.expected_version, idem
    )
    return written(request, answer.body, answer.status, answer.replayed)


async def undo(request: web.Request) -> web.Response:
    return await _simple(request, "undo")


async def redo(request: web.Request) -> web.Response:
    return await _simple(request, "redo")


async def abandon(request: web.Request) -> web.Response:
    return await _simple(request, "abandon")


async def _simple(request: web.Request, command: str) -> web.Response:
    gid = game_id(request)
    player = await writer(request)
    body = await parse_body(request, VersionedRequest)
    answer = await commands.simple(
        request.app[BACKEND_KEY], gid, player, body.expected_version, idempotency(request, body),
        command,
    )
    return written(request, answer.body, answer.status, answer.replayed)


async def legal_moves(request: web.Request) -> web.Response:
    gid = game_id(request)
    if (unchanged := await _unchanged(request, gid, ".legal")) is not None:
        return unchanged
    moves = await queries.legal_moves(request.app[BACKEND_KEY], gid)
    return tagged_response(request, moves, f"{gid}.{moves['version']}.legal")


async def destinations(request: web.Request) -> web.Response:
    card = request.query.get("card")
    if not card:
        raise BadRequest("give the card whose destinations you want: ?card=7H")
    return json_response(
        await queries.destinations(request.app[BACKEND_KEY], game_id(request), card)
    )


async def events(request: web.Request) -> web.Response:
    gid = game_id(request)
    after = int_query(request, "after", 0, 0, 2**31 - 1)
    # more than a page is asked as a page: `next` says where the rest begins
    limit = int_query(request, "limit", None, 1, 2**31 - 1)
    assert after is not None
    size = queries.page_size(limit)
    if request.if_none_match:
        # a full page never changes: its tag is answered from memory, but only when
        # memory's copy of the game goes past the page (a tag the service never gave, or
        # a game it does not know, is the log's to judge: 404, or the page as it is)
        if queries.full_page(request.app[BACKEND_KEY], gid, after, size):
            full = not_modified(request, queries.events_tag(gid, after, size, None))
            if full is not None:
                return full
        # a page that ends at the game's current version, which memory may know
        suffix = queries.events_suffix(after, size)
        if (unchanged := await _unchanged(request, gid, suffix)) is not None:
            return unchanged
    page = await queries.read_events(request.app[BACKEND_KEY], gid, after, limit)
    return tagged_response(request, page, queries.page_tag(gid, after, size, page))

