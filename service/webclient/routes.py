"""The reference web client: index.html at `/` and its files (no build step) under
`/static/`: the page's modules, and those of its table (`table/`) and side panels
(`panels/`)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from aiohttp import web

from service.base.errors import NotFound
from service.base.logs import printable
from service.base.responses import not_modified

STATIC = Path(__file__).resolve().parent / "static"
# Plain files, no build step: let browsers revalidate (ETag) on each load.
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


def _file(request: web.Request, path: Path) -> web.Response:
    """The file whole, tagged by its content (304 when the client has it): a `Range` is
    ignored, as RFC 9110 lets a server do, so that no part of a file that changed since
    the client's copy is spliced onto it, and no range is refused (the files are small)."""
    stat = path.stat()
    body, tag = _content(path, stat.st_mtime_ns, stat.st_size)
    if (unchanged := not_modified(request, tag)) is not None:
        unchanged.headers.update(HEADERS)
        return unchanged
    kind = TYPES.get(path.suffix, "application/octet-stream")
    response = web.Response(body=body, headers=HEADERS, content_type=kind)
    if kind.startswith("text/"):
        response.charset = "utf-8"
    response.headers["ETag"] = f'"{tag}"'
    return response


@functools.lru_cache(maxsize=64)
def _content(path: Path, _mtime_ns: int, _size: int) -> tuple[bytes, str]:
    """The file's bytes and their tag, read again when the file changed (its time or
    size: an edit shows at the next load, without a restart)."""
    body = path.read_bytes()
    return body, hashlib.blake2b(body, digest_size=12).hexdigest()


async def index(request: web.Request) -> web.Response:
    return _file(request, STATIC / "index.html")


async def static_file(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    try:
        path = (STATIC / name).resolve()
        found = path.is_relative_to(STATIC) and path.is_file()
    except OSError:  # (a name the file system refuses: too long, say)
        found = False
    if not found:
        raise NotFound(f"there is no file {printable(name)[:80]!r} in the web client")
    return _file(request, path)
