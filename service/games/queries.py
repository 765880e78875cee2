"""Reading games: from memory when it is current, else from the log; plain values out.

Memory is a cache and the log is the truth. A position is kept by (game id, version), and
the cache only moves forward (backend.GameCache.put keeps the newer of two versions), so a read
that raced a write never puts an older copy back. Reads catch up with the log in one round
trip: what memory holds plus any events another instance appended since.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from engine import Event, Game, Move
from service.base.backend import Backend, LiveGame
from service.base.errors import NotFound
from service.database.store import StoredEvent

MILLISECOND: Final = timedelta(milliseconds=1)
EVENTS_PAGE: Final = 1000  # the most events one answer of /events carries


def at_an_end(status: str) -> bool:
    """Won, abandoned or blocked: the game's clock stops (an undo can restart a blocked one)."""
    return status != "playing"


def elapsed_ms(created_at: datetime, finished_at: datetime | None) -> int | None:
    """Whole milliseconds from creation to the end, never negative (as the database's
    game_elapsed_ms computes them)."""
    if finished_at is None:
        return None
    return max(0, (finished_at - created_at) // MILLISECOND)


def finished_at_after(before: str, live: LiveGame, at: datetime) -> datetime | None:
    """When the game came to its present end once a write at `at` left it as `live.game`
    is (`before` its status before that write): the write's time when it ended the game
    or changed how it ended, the earlier time while it stays at the same end, none while
    it is in play. The log's replay (service/verify/games.py) follows the same rule."""
    status = live.game.status
    if not at_an_end(status):
        return None
    if status != before or live.finished_at is None:
        return at
    return live.finished_at


async def load(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    """The game from memory, or replayed from its log when memory has none (may be stale:
    writes judge by the log before they refuse, service/games/commands.py)."""
    live = backend.games.get(game_id)
    if live is not None:
        return live
    return await _replay(backend, game_id)


async def current(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    """The game as the log has it now: what memory holds plus any events appended since
    (one round trip either way)."""
    live = backend.games.get(game_id)
    if live is None:
        return await _replay(backend, game_id)
    newer = await backend.store.read_events(game_id, after=live.game.version)
    if not newer:
        return live
    if live.game.version + 1 != newer[0].seq:
        return await _replay(backend, game_id)
    if len(newer) > REPLAY_INLINE:
        return backend.games.put(game_id, await asyncio.to_thread(_caught_up, live, newer))
    return backend.games.put(game_id, _caught_up(live, newer))


def _caught_up(live: LiveGame, newer: Sequence[StoredEvent]) -> LiveGame:
    work = live.game.copy()
    finished_at = live.finished_at
    write_at = newer[0].at
    before = work.status
    for e in newer:
        if e.at != write_at:  # a write's events share their time: the end of one write
            finished_at = finished_at_after(
                before, LiveGame(work, live.player_id, live.created_at, finished_at), write_at
            )
            write_at, before = e.at, work.status
        work.apply(Event(e.type, e.data))
    finished_at = finished_at_after(
        before, LiveGame(work, live.player_id, live.created_at, finished_at), write_at
    )
    return LiveGame(work, live.player_id, live.created_at, finished_at, live.race_id)


REPLAY_INLINE = 200  # events: a longer log is replayed in a thread, off the event loop


async def _replay(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    stored = await backend.store.read_events(game_id)
    if not stored:
        raise NotFound(f"there is no game with id {game_id}")
    if len(stored) <= REPLAY_INLINE:
        live = _rebuilt(stored)
    else:  # (the thread yields the interpreter every few ms: other requests go on)
        live = await asyncio.to_thread(_rebuilt, stored)
    return backend.games.put(game_id, live)


def _rebuilt(stored: Sequence[StoredEvent]) -> LiveGame:
    """The game a whole log describes (linear in its length)."""
    first = stored[0]
    game = Game.replay([Event(first.type, first.data)])
    race = first.data.get("race_id")
    start = LiveGame(
        game, uuid.UUID(first.data["player_id"]), first.at, None,
        None if race is None else uuid.UUID(race),
    )
    live = _caught_up(start, stored[1:]) if len(stored) > 1 else start
    if len(stored) == 1:
        live.finished_at = first.at if at_an_end(game.status) else None
    return live


def game_view(game_id: uuid.UUID, live: LiveGame) -> dict[str, Any]:
    g = live.game
    return {
        "id": game_id,
        "player_id": live.player_id,
        "variant": g.variant,
        "deal": g.deal,
        "autoplay": g.autoplay,
        "status": g.status,
        "version": g.version,
        "moves": g.moves,
        "undos": g.undos,
        "hints": g.hints,
        "assisted": g.assisted,
        "foundation_cards": g.position.foundation_cards,
        "can_undo": g.can_undo,
        "can_redo": g.can_redo,
        "created_at": live.created_at,
        "finished_at": live.finished_at,
        "elapsed_ms": elapsed_ms(live.created_at, live.finished_at),
        "state": g.position.to_dict(),
        "race_id": live.race_id,
    }


async def get_game(backend: Backend, game_id: uuid.UUID) -> dict[str, Any]:
    return game_view(game_id, await current(backend, game_id))


def move_view(m: Move) -> dict[str, Any]:
    return {"from": m.source, "to": m.target, "count": m.count}


async def legal_moves(backend: Backend, game_id: uuid.UUID) -> dict[str, Any]:
    live = await current(backend, game_id)
    g = live.game
    moves = [] if g.is_over else [move_view(m) for m in g.position.legal_moves]
    return {"version": g.version, "status": g.status, "moves": moves}


async def destinations(backend: Backend, game_id: uuid.UUID, card: str) -> dict[str, Any]:
    live = await current(backend, game_id)
    g = live.game
    targets = list(g.position.destinations(card))  # not a card or pile of this game: 400
    if g.is_over:
        targets = []
    return {"version": g.version, "card": card, "destinations": targets}


async def read_events(
    backend: Backend, game_id: uuid.UUID, after: int, limit: int | None
) -> dict[str, Any]:
    """One page of the log after `after`, oldest first; `next` is the `after` of the next
    page, null when this one reaches the end."""
    limit = min(limit or EVENTS_PAGE, EVENTS_PAGE)
    events = await backend.store.read_events(game_id, after, limit + 1)
    if not events and after == 0:
        raise NotFound(f"there is no game with id {game_id}")
    if not events:
        await load(backend, game_id)  # 404 for an unknown game, even with after > 0
    page = events[:limit]
    more = len(events) > limit
    return {"events": [event_view(e) for e in page], "next": page[-1].seq if more else None}


# What the log keeps for the service alone: a hint's whole winning line (HintGiven's
# "line"), so that the next hint along it is a lookup on any instance. Shown to nobody:
# a line read off one game's log would play any other game of the deal.
PRIVATE: Final = {"HintGiven": frozenset({"line"})}


def public_data(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    private = PRIVATE.get(kind)
    if private is None or not private & data.keys():
        return data
    return {k: v for k, v in data.items() if k not in private}


def event_view(e: StoredEvent) -> dict[str, Any]:
    return {"seq": e.seq, "type": e.type, "at": e.at, "data": public_data(e.type, e.data)}
