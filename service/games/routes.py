"""Games, moves, undo and redo, legal moves, events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiohttp import web

from engine.moves import PILES
from service.base.backend import Backend
from service.base.errors import BadRequest
from service.base.keys import BACKEND_KEY
from service.base.ratelimit import EVENTS_SENT_KEY
from service.base.requests import (
    after_query,
    game_id,
    idempotency,
    int_query,
    parse_body,
    parse_id,
    query_value,
    read_object,
)
from service.base.responses import (
    Known,
    Recall,
    json_response,
    not_modified_from_memory,
    remembered,
    tagged_response,
    written,
)
from service.games import commands, queries, schemas
from service.games.answers import Answer
from service.games.schemas import (
    BatchRequest,
    MoveRequest,
    NewGame,
    VersionedRequest,
    card_as_written,
)
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


def _known(backend: Backend, request: web.Request, path: Mapping[str, str]) -> Known | None:
    return queries.known(backend, parse_id(path["game_id"], "game"))


def _known_moves(backend: Backend, request: web.Request, path: Mapping[str, str]) -> Known | None:
    return queries.known(backend, parse_id(path["game_id"], "game"), ".legal")


def _known_page(backend: Backend, request: web.Request, path: Mapping[str, str]) -> Known | None:
    gid = parse_id(path["game_id"], "game")
    after, limit = _page(request)
    return queries.known_page(backend, gid, after, queries.page_size(limit))


async def _unchanged(request: web.Request, known: Recall) -> web.Response | None:
    """A 304 from memory, with no round trip to the log (responses.not_modified_from_memory),
    else None. The front gives it before the app when it can (service/serving/front.py)."""
    if "If-None-Match" not in request.headers:
        return None
    backend = request.app[BACKEND_KEY]
    return await not_modified_from_memory(
        request, known(backend, request, request.match_info), backend
    )


@remembered(_known)
async def get_game(request: web.Request) -> web.Response:
    if (unchanged := await _unchanged(request, _known)) is not None:
        return unchanged
    game = await queries.get_game(request.app[BACKEND_KEY], game_id(request))
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
    version = schemas.expected(body.expected_version, request.headers.getall("If-Match", ()), gid)
    answer = await commands.play(request.app[BACKEND_KEY], gid, player, moves, version, idem)
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
    version = schemas.expected(body.expected_version, request.headers.getall("If-Match", ()), gid)
    answer = await commands.simple(
        request.app[BACKEND_KEY], gid, player, version, idempotency(request, body), command
    )
    return written(request, answer.body, answer.status, answer.replayed)


@remembered(_known_moves)
async def legal_moves(request: web.Request) -> web.Response:
    if (unchanged := await _unchanged(request, _known_moves)) is not None:
        return unchanged
    gid = game_id(request)
    moves = await queries.legal_moves(request.app[BACKEND_KEY], gid)
    return tagged_response(request, moves, f"{gid}.{moves['version']}.legal")


async def destinations(request: web.Request) -> web.Response:
    card = query_value(request, "card")
    if not card:
        raise BadRequest("give the card whose destinations you want: ?card=7H")
    if card not in PILES:
        card_as_written(card)
    return json_response(
        await queries.destinations(request.app[BACKEND_KEY], game_id(request), card)
    )


def _page(request: web.Request) -> tuple[int, int | None]:
    """The page of a log a request asks: `after`, and `limit` (more than a page is asked
    as a page: `next` says where the rest begins)."""
    return after_query(request, 2**31 - 1), int_query(request, "limit", None, 1, 2**31 - 1)


@remembered(_known_page)
async def events(request: web.Request) -> web.Response:
    if (unchanged := await _unchanged(request, _known_page)) is not None:
        return unchanged
    gid = game_id(request)
    after, limit = _page(request)
    page = await queries.read_events(request.app[BACKEND_KEY], gid, after, limit)
    request[EVENTS_SENT_KEY] = len(page["events"])
    tag = queries.page_tag(gid, after, queries.page_size(limit), page)
    return tagged_response(request, page, tag)
