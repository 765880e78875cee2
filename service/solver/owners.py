"""Who a search of the solver counts against: the client's address, and the player who asks
when there is one (API.md, "Limits that keep one client from hurting the others").

A new search counts against each of its owners under both of the solver's bounds: the
searches each may have going at once (the Solver's PER_OWNER, service/solver/verdicts.py:
past it the answer is "unknown" at once), and the searches each may start a minute
(RATE_SEARCHES_PER_MINUTE, service/base/ratelimit.py: past it 429 with Retry-After). So an
address gets what one player gets however many players it makes, and a new game's
background search (its opening's) counts against its creator alike. A hint read off the
game's record, or on a position known or being searched already, costs nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from aiohttp import web

from service.base.keys import LIMITS_KEY
from service.base.requests import request_client


def of_request(request: web.Request, player_id: uuid.UUID | None = None) -> tuple[str, ...]:
    """The owners of a search a request starts: its client's address, and its player."""
    address = f"address:{request_client(request)}"
    return (address,) if player_id is None else (address, f"player:{player_id}")


def charge(request: web.Request, owners: Sequence[str]) -> None:
    """One new search against each owner's rate: 429 (TooManyRequests, with Retry-After)
    past it, the owners after the first refused one left untouched. Nothing with
    RATE_LIMITS=off."""
    limits = request.app.get(LIMITS_KEY)
    if limits is not None:
        for owner in owners:
            limits.search(owner)


def allows(request: web.Request, owners: Sequence[str]) -> bool:
    """Whether a search nobody waits for may start: one search taken from each owner's
    rate, False (and the owners after that one left untouched) when one has none left."""
    limits = request.app.get(LIMITS_KEY)
    return limits is None or all(limits.may_search(owner) for owner in owners)
