"""A deal's layout by its number (GET /v1/deals/{variant}/{deal})."""

from __future__ import annotations

from aiohttp import web

from service.base.responses import json_response
from service.deals import numbers as deals


async def deal(request: web.Request) -> web.Response:
    variant = request.match_info["variant"]
    number = deals.deal_in_path(request.match_info["deal"])
    return json_response(deals.deal_view(variant, number))
