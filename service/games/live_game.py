"""What a game is to the service, and how the events of its log bring it up to date.

A game is its engine's position with who plays it, when it began and ended and the race
it is played in: a :class:`LiveGame`. :func:`caught_up` applies the log's events to one
(or builds one from the whole log), following the rules of a game's times
(service/games/times.py) as the write path and the log's replay (service/verify/replay.py)
do. Where games are kept, and how fresh a copy is, is service/games/positions.py.
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
from service.database.store import StoredEvent
from service.games.times import finished_at_after, is_players, played_ms

SLICE: Final = 200  # events: a longer log is replayed so many at a time, others served between


@dataclass(slots=True)
class LiveGame:
    """A game's replayed line of play, as of version `game.version`."""

    game: Game
    player_id: uuid.UUID
    created_at: datetime
    finished_at: datetime | None
    # the race the game is played in (its GameCreated says), None for a game of its own
    race_id: uuid.UUID | None = None
    # when the player's last action was played, in ms since created_at (games/times.py)
    last_action_ms: int = 0
    # the listener's epoch under which this copy was the log's latest (Backend.epoch),
    # None when that is not known: service/games/positions.py, known_version
    epoch: int | None = None

    @property
    def version(self) -> int:
        return self.game.version

    def room(self, max_events: int) -> int:
        """The events the game's log still takes (it holds `max_events` at most, the last
        place kept for abandoning the game)."""
        return max(0, max_events - 1 - self.game.version)

    def takes_moves(self, max_events: int) -> bool:
        """Whether a move can still be played: the game in play and its log not full
        (a full log takes no move: 409 log-full)."""
        return not self.game.is_over and self.room(max_events) > 0


def caught_up(live: LiveGame | None, newer: Sequence[StoredEvent]) -> LiveGame:
    """`live` with the log's events after it applied to a copy; with `live` None, the
    game the whole log describes (`newer` from its first event). Linear in the events; a
    write's events share their time: a change of `at` is the end of one write."""
    if live is None:
        first = newer[0]
        race = first.data.get("race_id")
        game = Game.replay([Event(first.type, first.data)])
        created = first.at
        live = LiveGame(
            game, uuid.UUID(first.data["player_id"]), created,
            finished_at_after(PLAYING, game.status, None, created),
            None if race is None else uuid.UUID(race),
        )
        newer = newer[1:]
    if not newer:
        return live
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
        if is_players(e.type, e.data):
            last = played_ms(live.created_at, e.at, e.data)
    finished_at = finished_at_after(before, work.status, finished_at, write_at)
    return LiveGame(work, live.player_id, live.created_at, finished_at, live.race_id, last)


async def caught_up_slices(live: LiveGame | None, newer: Sequence[StoredEvent]) -> LiveGame:
    """:func:`caught_up`, about SLICE events at a time, the event loop free for other
    requests between them. A slice ends where a write does (its events share their time,
    which dates the game's end), so the slices add up to one replay."""
    start = 0
    while start < len(newer):
        end = min(start + SLICE, len(newer))
        while end < len(newer) and newer[end].at == newer[end - 1].at:
            end += 1
        live = caught_up(live, newer[start:end])
        start = end
        if start < len(newer):
            await asyncio.sleep(0)
    assert live is not None
    return live
