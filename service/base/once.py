"""A request made once under its Idempotency-Key, where the store's write of a game does
not keep the key itself (record_events does, for every write of a game): a new player or
device (players/tokens.py), a race (races/service.py). The key's first request is looked
for before; a request that meets a copy of itself (sent again at once, on any instance)
gets the copy's answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from service.base.errors import ServiceError, Unprocessable
from service.base.requests import KEY_REUSED, Idempotency
from service.database.connections import VersionConflict

T = TypeVar("T")


async def once(
    made: Callable[[], Awaitable[T | None]] | None, make: Callable[[], Awaitable[T]]
) -> tuple[T, bool]:
    """`make()`'s answer and False; or, when `made()` (the key's first request, None
    without a key) finds it made, that one and True (replayed). A request refused while a
    copy of itself was made (its key taken meanwhile is a VersionConflict) gets the copy's
    answer too."""
    if made is not None and (first := await made()) is not None:
        return first, True
    try:
        return await make(), False
    except (ServiceError, VersionConflict):
        if made is None or (first := await made()) is None:
            raise
        return first, True


def same_request(idem: Idempotency, first_hash: str) -> None:
    """422 unless the key's first request (its hash) is this one."""
    if not idem.same_request(first_hash):
        raise Unprocessable(KEY_REUSED.format(key=idem.key))
