"""Who a request comes from: the bearer token of its Authorization header, checked."""

from __future__ import annotations

from aiohttp import web

from service.base.errors import Unauthorized
from service.base.keys import BACKEND_KEY
from service.players.accounts import Player, authenticate


def bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")  # (sent once: base/problems.py)
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = token.strip()
    # tokens are URL-safe ASCII; anything else (undecodable bytes included) is no token of ours
    if token and not (token.isascii() and token.isprintable()):
        raise Unauthorized("this token belongs to no player")
    return token or None


async def caller(request: web.Request) -> Player:
    """The player whose token the request bears, signed in by the database's word (401
    without one of ours)."""
    token = bearer(request)
    return await authenticate(request.app[BACKEND_KEY], token)


async def writer(request: web.Request) -> Player:
    """The same for a game's write, from memory: the statement that would append it checks
    the token again (database/statements.py: signed_in), and appends nothing for one
    signed out."""
    token = bearer(request)
    return await authenticate(request.app[BACKEND_KEY], token, memory=True)
