"""Health, metrics (for loopback clients and the holders of METRICS_TOKEN) and the
OpenAPI description."""

from __future__ import annotations

import functools
import hmac
import ipaddress
import json

import yaml
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from service.base.errors import Forbidden
from service.base.keys import BACKEND_KEY, HEALTH_KEY, METRICS_KEY, SETTINGS_KEY
from service.base.problems import problem, unavailable
from service.base.responses import json_response
from service.base.settings import ROOT
from service.database.connections import DatabaseUnavailable

OPENAPI = ROOT / "openapi.yaml"


async def healthz(request: web.Request) -> web.Response:
    try:
        await request.app[HEALTH_KEY].ping()
    except DatabaseUnavailable as exc:
        return problem(503, unavailable(exc), "database-unavailable",
                       headers={"Retry-After": "2"})  # fmt: skip
    return json_response({"status": "ok"})


def _loopback(remote: str | None) -> bool:
    try:
        address = ipaddress.ip_address(remote or "")
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return (mapped or address).is_loopback


def may_read_metrics(request: web.Request) -> bool:
    """A loopback client, or a request bearing `Authorization: Bearer <METRICS_TOKEN>`
    (compared in constant time)."""
    token = request.app[SETTINGS_KEY].metrics_token
    secret = token.get_secret_value() if token is not None else ""
    if secret:
        # (the scheme's name in any case, as every HTTP scheme's: RFC 9110, 11.1)
        scheme, _, offered = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            offered.strip().encode("utf-8", "replace"), secret.encode()
        ):
            return True
    return _loopback(request.remote)


async def metrics(request: web.Request) -> web.Response:
    if not may_read_metrics(request):
        raise Forbidden(
            "the metrics answer loopback clients, and others that send"
            " Authorization: Bearer <METRICS_TOKEN>"
        )
    m = request.app[METRICS_KEY]
    backend = request.app[BACKEND_KEY]
    m.cached_games.set(len(backend.games))
    m.replayed(backend.logs_replayed)
    m.db_connections.labels("open").set(backend.store.pool.get_size())
    m.db_connections.labels("idle").set(backend.store.pool.get_idle_size())
    response = web.Response(body=m.render())
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    return response


# media types that ask for the description as YAML (a browser's text/html too)
YAML_TYPES = ("application/yaml", "text/yaml", "application/x-yaml", "text/html")


def wants_json(accept: str) -> bool:
    """Whether a request with this `Accept` gets the description as JSON: it names
    application/json, or takes anything (`*/*`, no Accept) without naming YAML or HTML.
    A generated client sends `*/*` and reads JSON; a browser gets YAML."""
    names = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    if "application/json" in names:
        return True
    if names & set(YAML_TYPES):
        return False
    return not accept.strip() or "*/*" in names or "application/*" in names


@functools.cache
def openapi_json() -> bytes:
    document = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    return json.dumps(document, ensure_ascii=False, default=str).encode()


async def openapi(request: web.Request) -> web.Response:
    """openapi.yaml, as YAML or as JSON (see :func:`wants_json`)."""
    # (Vary: the answer depends on Accept, so a cache keeps the two apart)
    if wants_json(request.headers.get("Accept", "")):
        return web.Response(body=openapi_json(), content_type="application/json",
                            headers={"Vary": "Accept"})  # fmt: skip
    return web.Response(body=OPENAPI.read_bytes(), content_type="application/yaml",
                        headers={"Vary": "Accept"})  # fmt: skip
