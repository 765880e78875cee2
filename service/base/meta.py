"""Health, metrics and the OpenAPI description."""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from service.base.http import json_response
from service.base.keys import BACKEND_KEY, METRICS_KEY
from service.base.settings import ROOT
from service.database.connections import DatabaseUnavailable

OPENAPI = ROOT / "openapi.yaml"


async def healthz(request: web.Request) -> web.Response:
    try:
        await request.app[BACKEND_KEY].store.ping()
    except DatabaseUnavailable:
        return web.Response(
            status=503,
            content_type="application/problem+json",
            headers={"Retry-After": "2"},
            text='{"type":"https://open-solitaire.example/problems/database-unavailable",'
            '"title":"Service Unavailable","status":503,'
            '"detail":"the game database cannot be reached right now"}',
        )
    return json_response({"status": "ok"})


async def metrics(request: web.Request) -> web.Response:
    m = request.app[METRICS_KEY]
    m.cached_games.set(len(request.app[BACKEND_KEY].games))
    response = web.Response(body=m.render())
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    return response


async def openapi(request: web.Request) -> web.Response:
    return web.Response(body=OPENAPI.read_bytes(), content_type="application/yaml")
