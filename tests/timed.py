"""Games recorded with times a test chooses.

The service takes every time from the database's clock (record_events), so a test that
needs a board of wins minutes or hours apart records each game's events with the store,
then sets the projection's times and writes the board entries with record_win itself,
the same function record_events calls for a win.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from service.database.store import EventStore

RECORD_WIN = "SELECT record_win($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"


async def record_timed_game(
    store: EventStore,
    player_id: uuid.UUID,
    status: str,
    created: datetime,
    finished_at: datetime | None,
    *,
    elapsed_ms: int | None = None,
    variant: str = "freecell",
    deal: int = 617,
    moves: int = 90,
    undos: int = 0,
    hints: int = 0,
    min_median_move_ms: int = 0,
) -> uuid.UUID:
    """A game whose projection ends in `status`, timed from `created` to `finished_at`; a
    won one goes on the boards it belongs on (pace checked against min_median_move_ms)."""
    game_id = uuid.uuid4()
    await store.record(
        game_id=game_id,
        first_seq=1,
        events=[{"type": "GameCreated", "data": {"variant": variant, "deal": deal}}],
        player_id=player_id,
        variant=variant,
        deal=deal,
        autoplay=False,
        status=status,
        moves=moves,
        undos=undos,
        hints=hints,
        assisted=hints > 0,
        foundation_cards=52 if status == "won" else 10,
        finish="none",  # the times below stand for the database's
    )
    if finished_at is not None and elapsed_ms is None:
        elapsed_ms = int((finished_at - created).total_seconds() * 1000)
    async with store.connection() as conn:
        await conn.execute(
            "UPDATE games SET created_at = $2, finished_at = $3, elapsed_ms = $4 WHERE id = $1",
            game_id, created, finished_at, elapsed_ms,
        )
        if status == "won":
            await conn.execute(
                RECORD_WIN, game_id, player_id, variant, deal, elapsed_ms, moves, undos,
                hints > 0, min_median_move_ms, finished_at,
            )
    return game_id
