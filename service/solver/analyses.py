"""Finished games' analyses, kept: computed once per instance, shared while computed.

A game won or abandoned never changes, so its analysis (service/solver/postmortem.py) is
kept by game id once computed, the least recently used dropped first past ``capacity``;
requests for a game whose analysis is being computed wait for that one computation (single
flight), which goes on if its first requester goes away. An analysis left incomplete (a
verdict unknown: the budget ran out, or the solver was full) is kept only
INCOMPLETE_KEPT_S seconds, after which a request may complete it. Kept in memory rather
than in the database: an analysis is small and cheap to keep, costly only to compute, at
most once per instance; the database would cost a table, a write per analysis and a read
per request.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final

from aiohttp import web

from service.base.backend import Lru

KEPT: Final = 5000  # analyses kept (each a few kilobytes at most)
INCOMPLETE_KEPT_S: Final = 300.0

Analysis = dict[str, Any]


class Analyses:
    """The analyses of this instance's finished games, and those being computed."""

    def __init__(self, capacity: int = KEPT) -> None:
        # each with the time.monotonic() past which it is not answered any more (None: never)
        self._kept: Lru[uuid.UUID, tuple[Analysis, float | None]] = Lru(capacity)
        self._running: dict[uuid.UUID, asyncio.Task[Analysis]] = {}

    def get(self, game_id: uuid.UUID) -> Analysis | None:
        """The game's analysis, if kept."""
        kept = self._kept.get(game_id)
        if kept is None:
            return None
        body, until = kept
        if until is not None and time.monotonic() >= until:
            self._kept.pop(game_id)
            return None
        return body

    def would_compute(self, game_id: uuid.UUID) -> bool:
        """Whether asking for the game's analysis would start a computation (none kept, none
        being computed)."""
        return game_id not in self._running and self.get(game_id) is None

    async def share(
        self, game_id: uuid.UUID, compute: Callable[[], Awaitable[Analysis]]
    ) -> Analysis:
        """The game's analysis: the one kept, the one being computed, or ``compute()``'s,
        which is then kept. A failure is kept by nobody: every waiter gets it."""
        body = self.get(game_id)
        if body is not None:
            return body
        task = self._running.get(game_id)
        if task is None:
            task = self._running[game_id] = asyncio.create_task(self._run(game_id, compute))
            task.add_done_callback(_retrieve)
        return await asyncio.shield(task)

    async def _run(
        self, game_id: uuid.UUID, compute: Callable[[], Awaitable[Analysis]]
    ) -> Analysis:
        try:
            body = await compute()
        finally:
            self._running.pop(game_id, None)
        until = None if body.get("complete") else time.monotonic() + INCOMPLETE_KEPT_S
        self._kept[game_id] = (body, until)
        return body

    def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()


def _retrieve(task: asyncio.Task[Analysis]) -> None:
    """A computation whose waiters all went away: its failure is read, not left unread
    (each waiter still there got it)."""
    if not task.cancelled():
        task.exception()


ANALYSES_KEY = web.AppKey("analyses", Analyses)
