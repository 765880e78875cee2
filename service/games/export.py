"""A player's data in their hands: every game of theirs with its whole log, one JSON object
a line (NDJSON), for GET /v1/players/me/export.

The player's games are read a page at a time (keyset on (created_at, id), the index
games_player_created) and each game's log by a query of its own, so the service holds one
game at a time whatever the number of games, and no database connection while a line
goes out to a client that may read slowly. Each line is one game as its log was when it
was read (a game still in play may move on while the export runs); the events are as
`GET /v1/games/{id}/events` gives them. Each game's events are charged to the reader's
allowance of events (`pace`), as pages of logs are: a player's many long games cost what
reading them page by page would, at the same rate.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

import orjson

from service.base.backend import Backend
from service.database.connections import plain
from service.games.views import event_view

GAMES_PAGE: Final = 200

_GAME = (
    "id, variant, deal, autoplay, status, version, moves, undos, hints, assisted,"
    " created_at, finished_at, elapsed_ms, race_id"
)
FIRST_GAMES = f"""
SELECT {_GAME} FROM games WHERE player_id = $1 ORDER BY created_at, id LIMIT $2
"""
GAMES_AFTER = f"""
SELECT {_GAME} FROM games WHERE player_id = $1 AND (created_at, id) > ($3, $4)
ORDER BY created_at, id LIMIT $2
"""


async def lines(
    backend: Backend,
    player_id: uuid.UUID,
    pace: Callable[[int], Awaitable[None]] | None = None,
) -> AsyncIterator[bytes]:
    """The player's games, oldest first, each a line of JSON with its `events`; `pace`
    awaited with each game's number of events before its line is made."""
    timeout = backend.store.timeout
    after: tuple[Any, Any] | None = None
    while True:
        async with backend.store.connection() as conn:
            if after is None:
                page = await conn.fetch(FIRST_GAMES, player_id, GAMES_PAGE, timeout=timeout)
            else:
                page = await conn.fetch(
                    GAMES_AFTER, player_id, GAMES_PAGE, *after, timeout=timeout
                )
        for row in page:
            game = {key: plain(value) for key, value in row.items()}
            events = await backend.store.read_events(row["id"])
            if pace is not None:
                await pace(len(events))
            game["events"] = [event_view(e) for e in events]
            yield orjson.dumps(game) + b"\n"
        if len(page) < GAMES_PAGE:
            return
        after = (page[-1]["created_at"], page[-1]["id"])
