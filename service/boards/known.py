"""A board's page answered 304 from memory: the tag of the page last read, while it is
known to be the board's now.

A deal's boards change only when a game of the deal is won, on some instance: the
instance that wrote the win counts the change at once and announces it to the others
with its live-event lines ('board <variant> <deal>', service/live/hub.py), who count it as
they hear it (Backend.board_changed). A page's tag in memory is known current while no
change of its deal has been counted since its read began, the live-event listener has
stayed connected since (so no announcement was missed), and for at most FRESH_SECONDS
(a win whose announcement never left a crashed instance is missed no longer than that).
Pages that depend on the caller (around=me, friends) are never kept.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

from service.base.backend import Backend

FRESH_SECONDS: Final = 10.0


@dataclass(frozen=True, slots=True)
class Seen:
    """What was known when a page's read began."""

    epoch: int | None
    changes: int
    at: float


@dataclass(frozen=True, slots=True)
class KnownPage:
    tag: str
    seen: Seen


def seen(backend: Backend, variant: str, deal: int) -> Seen:
    """Taken before a page is read from the database."""
    return Seen(backend.epoch(), backend.board_changes.get((variant, deal), 0), time.monotonic())


def remember(backend: Backend, key: Any, tag: str, before: Seen) -> None:
    """The page read under `key` (its deal first) has `tag`, as of `before`."""
    if before.epoch is not None:
        backend.boards[key] = KnownPage(tag, before)


def known_tag(backend: Backend, key: Any, variant: str, deal: int) -> str | None:
    """The page's tag when memory knows it is the board's now, else None."""
    page: KnownPage | None = backend.boards.get(key)
    if page is None:
        return None
    before = page.seen
    if before.epoch != backend.epoch() or time.monotonic() - before.at > FRESH_SECONDS:
        return None
    if backend.board_changes.get((variant, deal), 0) != before.changes:
        return None
    return page.tag
