"""Hints, post-mortem analysis and the day's deal (service/solving.py does the work)."""

from __future__ import annotations

from aiohttp import web

from engine import find_variant

from .. import games, solving
from ..errors import Conflict, GameFinished
from ..keys import SETTINGS_KEY, SOLVER_KEY, UOW_KEY
from .common import game_id, json_response


async def hint(request: web.Request) -> web.Response:
    live = await games.current(request.app[UOW_KEY], game_id(request))
    game = live.game.copy()
    if game.status in games.FINISHED:
        raise GameFinished(
            f"the game is over ({game.status}): there is no move to hint",
            current_version=game.version,
        )
    return json_response(await solving.hint(request.app[SOLVER_KEY], game))


async def analysis(request: web.Request) -> web.Response:
    uow = request.app[UOW_KEY]
    gid = game_id(request)
    live = await games.current(uow, gid)
    if live.game.status == "playing":
        raise Conflict(
            "the game is still being played: analysis is for a game that is over "
            "(won, abandoned or blocked)",
            current_version=live.game.version,
        )
    stored = await uow.store.read_events(gid, after=0, limit=live.game.version)
    events = [(e.seq, e.type, e.data) for e in stored]
    body = await solving.analysis(
        request.app[SOLVER_KEY], events, request.app[SETTINGS_KEY].analysis_budget_seconds
    )
    return json_response(body)


async def daily(request: web.Request) -> web.Response:
    variant = find_variant(request.match_info["variant"]).name
    return json_response(solving.daily_view(variant, request.app[SOLVER_KEY]))
