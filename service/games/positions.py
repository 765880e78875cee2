"""What a game is to the service, and how it is brought up to date from its log.

A game is its engine's position with who plays it, when it began and ended and the race
it is played in: a :class:`LiveGame`. Memory is a cache and the log is the truth. This
instance keeps games by (game id, version) in ``backend.games`` (service/base/backend.py:
GameCache), which only moves forward, so a read that raced a write never puts an older copy
back. :func:`load` gives memory's copy when there is one, which may be stale (a write
judges again on the log before it refuses: service/games/write.py); :func:`current` gives
the game as the log has it now, in one round trip either way: what memory holds plus any
events another instance appended since.

When a game's clock stops is one rule (service/games/clock.py), which the catch-up here,
the write path and the log's replay (service/verify/replay.py) all follow.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from engine import Event, Game
from engine.status import PLAYING
from service.base.backend import Backend, GameCache
from service.base.errors import NotFound
from service.database.store import StoredEvent
from service.games import played
from service.games.clock import finished_at_after

REPLAY_INLINE: Final = 200  # events: a longer log is replayed in a thread, off the event loop

@dataclass(slots=True)
class LiveGame:
    """A game's replayed line of play, as of version `game.version`."""

    game: Game
    player_id: uuid.UUID
    created_at: datetime
    finished_at: datetime | None
    # the race the game is played in (its GameCreated says), None for a game of its own
    race_id: uuid.UUID | None = None
    # when the player's last action was played, in ms since created_at (games/played.py)
    last_action_ms: int = 0
    # the listener's epoch under which this copy was the log's latest (Backend.epoch),
    # None when that is not known: see known_version
    epoch: int | None = None

    @property
    def version(self) -> int:
        return self.game.version


def memory(backend: Backend) -> GameCache[LiveGame]:
    """The games this instance keeps (the backend holds them, not knowing what a game is)."""
    return backend.games


async def load(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    """The game from memory, or replayed from its log when memory has none (may be stale:
    writes judge by the log before they refuse)."""
    live = memory(backend).get(game_id)
    if live is not None:
        return live
    return await _replay(backend, game_id)


def known_version(backend: Backend, game_id: uuid.UUID) -> int | None:
    """The game's version as the log has it now, known without asking the log, or None.

    Known when memory's copy was read from the log (or written to it by this instance)
    while the live-event listener was connected, the listener has stayed connected since,
    and no other instance has announced a later seq: every commit of every instance is
    announced to the others (NOTIFY or the broker, a few milliseconds after it), so the
    answer is behind a write of another instance for that long at most. A listener that
    lost its connection, or was never connected, knows nothing. Nor is a race's game ever
    known: the race's end abandons its games in the database (race_end), announced as the
    race's, not the games'."""
    live = memory(backend).get(game_id)
    if live is None or live.epoch is None or live.epoch != backend.epoch():
        return None
    if live.race_id is not None:
        return None
    if (backend.announced.get(game_id) or 0) > live.version:
        return None
    return live.version


def announce(backend: Backend, game_id: uuid.UUID, seq: int) -> None:
    """Another instance says the game's log reaches `seq` (the live-event hub's
    on_game): a copy in memory behind it is no longer known to be current, nor one being
    read from the log meanwhile (confirmed)."""
    if seq > (backend.announced.get(game_id) or 0):
        backend.announced[game_id] = seq
    held = memory(backend).get(game_id)
    if held is not None and held.version < seq:
        held.epoch = None


def confirmed(backend: Backend, game_id: uuid.UUID, live: LiveGame, epoch: int | None) -> None:
    """`live` was the log's latest under the listener's `epoch` (taken before the round
    trip that said so), unless another instance announced more since."""
    if (backend.announced.get(game_id) or 0) <= live.version:
        live.epoch = epoch


async def current(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    """The game as the log has it now: what memory holds plus any events appended since
    (one round trip either way)."""
    live = memory(backend).get(game_id)
    if live is None:
        return await _replay(backend, game_id)
    epoch = backend.epoch()
    newer = await backend.store.read_events(game_id, after=live.game.version)
    if not newer:
        confirmed(backend, game_id, live, epoch)
        return live
    if live.game.version + 1 != newer[0].seq:
        return await _replay(backend, game_id)
    if len(newer) > REPLAY_INLINE:
        caught = await asyncio.to_thread(_caught_up, live, newer)
    else:
        caught = _caught_up(live, newer)
    confirmed(backend, game_id, caught, epoch)
    return memory(backend).put(game_id, caught)


def _caught_up(live: LiveGame, newer: Sequence[StoredEvent]) -> LiveGame:
    """`live` with the events after it applied to a copy (a write's events share their
    time: a change of `at` is the end of one write)."""
    work = live.game.copy()
    finished_at = live.finished_at
    write_at = newer[0].at
    before = work.status
    last = live.last_action_ms
    for e in newer:
        if e.at != write_at:
            finished_at = finished_at_after(before, work.status, finished_at, write_at)
            write_at, before = e.at, work.status
        work.apply(Event(e.type, e.data))
        if played.is_players(e.type, e.data):
            last = played.played_ms(live.created_at, e.at, e.data)
    finished_at = finished_at_after(before, work.status, finished_at, write_at)
    return LiveGame(work, live.player_id, live.created_at, finished_at, live.race_id, last)


async def _replay(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    epoch = backend.epoch()
    stored = await backend.store.read_events(game_id)
    if not stored:
        raise NotFound(f"there is no game with id {game_id}")
    if len(stored) <= REPLAY_INLINE:
        live = _rebuilt(stored)
    else:  # (the thread yields the interpreter every few ms: other requests go on)
        live = await asyncio.to_thread(_rebuilt, stored)
    confirmed(backend, game_id, live, epoch)
    return memory(backend).put(game_id, live)


def _rebuilt(stored: Sequence[StoredEvent]) -> LiveGame:
    """The game a whole log describes (linear in its length)."""
    first = stored[0]
    race = first.data.get("race_id")
    start = LiveGame(
        Game.replay([Event(first.type, first.data)]), uuid.UUID(first.data["player_id"]),
        first.at, None, None if race is None else uuid.UUID(race),
    )
    start.finished_at = finished_at_after(PLAYING, start.game.status, None, first.at)
    return _caught_up(start, stored[1:]) if len(stored) > 1 else start
