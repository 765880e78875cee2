"""Hints, post-mortem analysis and the day's deal: the HTTP handlers (hints.py, postmortem.py
and daily.py do the work)."""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from engine import Game, find_variant
from service.base.keys import BACKEND_KEY, METRICS_KEY, SETTINGS_KEY
from service.base.requests import game_id, idempotency, parse_body, query_value
from service.base.responses import json_response, written
from service.deals.numbers import check_grade
from service.games import commands, positions, schemas
from service.games.schemas import VersionedRequest
from service.players.auth import writer
from service.races import service as races
from service.solver import hints, owners, postmortem
from service.solver.analyses import ANALYSES_KEY
from service.solver.daily import daily_view
from service.solver.lines import line_from_record
from service.solver.verdicts import ANSWER_SLACK, SOLVER_KEY


async def hint(request: web.Request) -> web.Response:
    """POST: a hint is part of the game's record (a HintGiven event), so it is a write."""
    gid = game_id(request)
    player = await writer(request)
    body = await parse_body(request, VersionedRequest)
    solver = request.app[SOLVER_KEY]
    who = owners.of_request(request, player.id)

    # the request's searches share one budget: one searched again (moves landed meanwhile)
    # has what the first left (API.md: a hint answers within its budget and half a second)
    deadline = time.monotonic() + solver.budget + ANSWER_SLACK

    async def judge(game: Game) -> dict[str, Any]:
        # only a new search is charged: a hint along the line on the game's record, or on
        # a position known or being searched already, costs nothing
        winnable = hints.known_winnable(game)
        if line_from_record(game) is None and solver.would_search(game.position, None, winnable):
            owners.charge(request, who)
        return await hints.hint(solver, game, owner=who, deadline=deadline)

    answer = await commands.give_hint(
        request.app[BACKEND_KEY], judge, gid, player,
        schemas.expected(body.expected_version, request.headers.getall("If-Match", ()), gid),
        idempotency(request, body),
    )
    return written(request, answer.body, answer.status, answer.replayed)


async def hint_after(request: web.Request) -> web.Response:
    """GET: the hint on a game that is over, recorded nowhere (anyone may ask)."""
    backend = request.app[BACKEND_KEY]
    gid = game_id(request)
    live = await positions.current(backend, gid)
    # as a hint asked with a token: none of a race's games, nor of a racer's on its deal
    await commands.refuse_hints_in_races(backend, gid, live, read_by_anyone=True)
    game = live.game.copy()
    hints.require_over(
        game, "a hint read without a record", "a hint on a game not over is part of its"
        f" record: its player asks for one with POST /v1/games/{gid}/hint and their token",
    )
    who = owners.of_request(request)
    if request.app[SOLVER_KEY].would_search(game.position, None, hints.known_winnable(game)):
        owners.charge(request, who)
    answer = await hints.hint(request.app[SOLVER_KEY], game, owner=who)
    return json_response({**hints.public_hint(answer), "events": []})  # (nothing recorded)


async def analysis(request: web.Request) -> web.Response:
    """GET: a finished game's analysis, computed once and kept (service/solver/analyses.py)."""
    backend = request.app[BACKEND_KEY]
    gid = game_id(request)
    # the analysis of a game of a race's deal says which of its positions can still be won:
    # refused, as hints are, while its player races on the deal (kept or not)
    await races.refuse_while_its_player_races(backend, gid, "analyses", read_by_anyone=True)
    kept = request.app[ANALYSES_KEY]
    body = kept.get(gid)  # kept: the game is over, and never changes
    if body is None:
        who = owners.of_request(request)
        if kept.would_compute(gid):  # only a new analysis, which may search many positions
            owners.charge(request, who)

        async def compute() -> dict[str, Any]:
            # a finished game is known by its row; its log is replayed by a search process
            version = await postmortem.version_if_over(backend, gid)
            if version is None:  # no such game, or not over: the rules say which (404, 409)
                live = await positions.current(backend, gid)
                hints.require_over(live.game, "its analysis", "the analysis of a game"
                                   " still played would show its player the way to win:"
                                   " ask again once the game is over")
                version = live.game.version
            request.app[METRICS_KEY].analyses.inc()
            return await postmortem.of_game(
                backend, request.app[SOLVER_KEY], gid, version,
                request.app[SETTINGS_KEY].analysis_budget_seconds, who,
            )  # fmt: skip

        body = await kept.share(gid, compute)
    return json_response(body)


async def daily(request: web.Request) -> web.Response:
    variant = find_variant(request.match_info["variant"]).name
    raw = query_value(request, "grade")
    grade = None if raw is None else check_grade(raw)
    return json_response(daily_view(variant, request.app[SOLVER_KEY], grade))
