"""The reference web client: index.html at `/` and its files (no build step) under
`/static/`: the page's modules, and those of its table (`table/`) and side panels
(`panels/`)."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from service.base.errors import NotFound

STATIC = Path(__file__).resolve().parent / "static"
# Plain files, no build step: let browsers revalidate (ETag / Last-Modified) on each load.
# The page loads nothing but its own files and talks to nothing but its own origin (the
# API and the live-event sockets): no inline script or style, no other origin, not even
# data: images. (X-Content-Type-Options: nosniff is on every answer: base/responses.py.)
HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self';"
        " connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none';"
        " form-action 'self'"
    ),
    "Referrer-Policy": "no-referrer",
}
TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".svg": "image/svg+xml",
}


def _file(path: Path) -> web.FileResponse:
    response = web.FileResponse(path, headers=HEADERS)
    kind = TYPES.get(path.suffix)
    if kind is not None:
        response.content_type = kind
        response.charset = "utf-8"
    return response


async def index(request: web.Request) -> web.FileResponse:
    return _file(STATIC / "index.html")


async def static_file(request: web.Request) -> web.FileResponse:
    name = request.match_info["name"]
    path = (STATIC / name).resolve()
    if not path.is_relative_to(STATIC) or not path.is_file():
        raise NotFound(f"there is no file {name!r} in the web client")
    return _file(path)
