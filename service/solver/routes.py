"""Hints, post-mortem analysis and the day's deal: the HTTP handlers (hints.py, postmortem.py
and daily.py do the work)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from engine import Game, clock_stopped, find_variant
from service.base.errors import Conflict
from service.base.http import game_id, idempotency, json_response, parse_body
from service.base.keys import BACKEND_KEY, LIMITS_KEY, SETTINGS_KEY
from service.games import commands, positions
from service.games.routes import written
from service.games.schemas import VersionedRequest
from service.players.auth import caller
from service.solver import hints, postmortem
from service.solver.daily import daily_view
from service.solver.lines import line_from_record
from service.solver.verdicts import SOLVER_KEY


async def hint(request: web.Request) -> web.Response:
    """POST: a hint is part of the game's record (a HintGiven event), so it is a write."""
    gid = game_id(request)
    player = await caller(request)
    body, raw = await parse_body(request, VersionedRequest)
    solver = request.app[SOLVER_KEY]
    limits = request.app.get(LIMITS_KEY)

    async def judge(game: Game) -> dict[str, Any]:
        # only a new search is charged: a hint along the line on the game's record, or on
        # a position known or being searched already, costs nothing
        if (
            limits is not None
            and line_from_record(game) is None
            and solver.would_search(game.position)
        ):
            limits.search(player.id)
        return await hints.hint(solver, game, owner=f"player:{player.id}")

    answer = await commands.give_hint(
        request.app[BACKEND_KEY], judge, gid, player, body.expected_version,
        idempotency(request, raw),
    )
    return written(request, answer)


async def hint_after(request: web.Request) -> web.Response:
    """GET: the hint on a game that is over, recorded nowhere (anyone may ask)."""
    live = await positions.current(request.app[BACKEND_KEY], game_id(request))
    commands.refuse_hints_in_races(live)
    game = live.game.copy()
    if not clock_stopped(game.status):
        raise Conflict(
            "the game is in play: a hint is part of its record, so ask for one with"
            " POST /v1/games/{id}/hint and the player's token",
            current_version=game.version,
        )
    limits = request.app.get(LIMITS_KEY)
    if limits is not None and request.app[SOLVER_KEY].would_search(game.position):
        limits.search(request.remote or "-")
    answer = await hints.hint(request.app[SOLVER_KEY], game, owner=f"address:{request.remote}")
    return json_response(hints.public_hint(answer))


async def analysis(request: web.Request) -> web.Response:
    backend = request.app[BACKEND_KEY]
    gid = game_id(request)
    live = await positions.current(backend, gid)
    if not clock_stopped(live.game.status):
        raise Conflict(
            "the game is still being played: analysis is for a game that is over "
            "(won, abandoned or blocked)",
            current_version=live.game.version,
        )
    limits = request.app.get(LIMITS_KEY)
    if limits is not None:  # each analysis may search many positions
        limits.search(request.remote or "-")
    stored = await backend.store.read_events(gid, after=0, limit=live.game.version)
    events = [(e.seq, e.type, e.data) for e in stored]
    body = await postmortem.analysis(
        request.app[SOLVER_KEY], events, request.app[SETTINGS_KEY].analysis_budget_seconds,
        owner=f"address:{request.remote}",
    )  # fmt: skip
    return json_response(body)


async def daily(request: web.Request) -> web.Response:
    variant = find_variant(request.match_info["variant"]).name
    return json_response(daily_view(variant, request.app[SOLVER_KEY]))
