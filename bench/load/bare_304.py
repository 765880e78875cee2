"""The floor for a 304: a bare aiohttp handler that answers 304 to a matching
If-None-Match, as the floor of a move (../shared/bench/bare_server.py) is a bare handler
that writes one row. No database, no middleware, no log: what aiohttp itself costs for a
request and its 304, which no 304 of the service can cost less than.

Usage: python -m bench.load.bare_304 PORT
"""

from __future__ import annotations

import sys

from aiohttp import web

TAG = "bare.1"


async def game(request: web.Request) -> web.Response:
    offered = request.if_none_match
    if offered and any(e.value == TAG for e in offered):
        return web.Response(status=304, headers={"ETag": f'"{TAG}"'})
    response = web.json_response({"id": request.match_info["gid"], "version": 1})
    response.etag = TAG
    return response


if __name__ == "__main__":
    app = web.Application()
    app.router.add_get("/games/{gid}", game)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=None)
