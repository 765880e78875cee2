"""The games and their deals: each game's layout and rules as its rule book describes them
(GET /v1/variants), a deal's layout by its number (GET /v1/deals/{variant}/{deal})."""

from __future__ import annotations

from aiohttp import web

from service.base.responses import json_response, tagged_response
from service.deals import numbers as deals


async def variants(request: web.Request) -> web.Response:
    return tagged_response(request, deals.variants_view())


async def deal(request: web.Request) -> web.Response:
    variant = request.match_info["variant"]
    number = deals.deal_in_path(request.match_info["deal"])
    return json_response(deals.deal_view(variant, number))
