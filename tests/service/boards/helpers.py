"""Helpers of the board tests: games and wins recorded the way the service records them,
through EventStore.record, whose record_events writes the board entry in the transaction of
the winning move. The fixture `backend` is in conftest.py."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from service.base.backend import Backend
from service.players.accounts import Player
from tests.service.database.helpers import insert_player
from tests.timed import record_timed_game

T0 = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


async def new_player(backend: Backend, name: str = "ada") -> Player:
    pid = uuid.uuid4()
    await insert_player(backend.store, pid, name)
    return Player(pid, name)


async def record_game(
    backend: Backend,
    player: Player,
    status: str,
    finished_at: datetime | None,
    *,
    variant: str = "freecell",
    deal: int = 617,
    elapsed_ms: int = 60_000,
    moves: int = 90,
    undos: int = 0,
    hints: int = 0,
    created: datetime | None = None,
) -> uuid.UUID:
    """A game whose projection ends in `status` (won: timed, and on the boards)."""
    if created is None:
        created = (finished_at or T0) - timedelta(milliseconds=elapsed_ms)
    return await record_timed_game(
        backend.store, player.id, status, created, finished_at,
        elapsed_ms=elapsed_ms if finished_at is not None else None,
        variant=variant, deal=deal, moves=moves, undos=undos, hints=hints,
    )


async def win(
    backend: Backend, player: Player, elapsed_ms: int, moves: int, finished_at: datetime, **kw: Any
) -> uuid.UUID:
    return await record_game(
        backend, player, "won", finished_at, elapsed_ms=elapsed_ms, moves=moves, **kw
    )


def names(page: dict[str, Any]) -> list[str]:
    return [e["player"]["name"] for e in page["entries"]]
