"""Helpers of the board tests: wins recorded through the event store (record_events, as
the service does) for players made through the API."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from service.database.store import EventStore
from tests.timed import record_timed_game


async def record_win(
    store: EventStore, player_id: str, elapsed_ms: int, moves: int, finished_at: datetime,
    deal: int = 617,
) -> None:
    await record_timed_game(
        store, uuid.UUID(player_id), "won", finished_at - timedelta(milliseconds=elapsed_ms),
        finished_at, elapsed_ms=elapsed_ms, deal=deal, moves=moves,
    )
