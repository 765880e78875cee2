"""The one write path: every change of a game is judged here, against the log.

A write is: the game's position in one call (service/games/positions.py: memory's copy,
else the log's), the verdict on a copy (service/games/checks.py: the checks and the
engine's events), then one call to the store that appends the events, updates the
projection, records the idempotency key and any board entries, all in one transaction,
timed by the database's clock (service/games/commit.py). The client's 2xx follows the
commit, and memory changes only then.

Memory is a cache, the log is the truth: a write is never refused on the strength of
memory alone. When the copy in memory says no (the engine refuses the move, undo or redo,
or the client's `expected_version` is ahead of it), the log is read once and the request
judged again; a write that collides with another instance's (the key (game id, seq) is
taken) is judged again on the log too. A write that collided twice (the other instance's
copy is current, and it writes in one round trip where this one needs two) reads, judges
and commits under the game's locks: no other write of the game lands meanwhile, and a
move sent without `expected_version` is never refused for another's.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import Any, Final

from engine import EngineError, Game
from service.base.backend import Backend
from service.base.errors import GameFinished, RaceOver, ServiceError, VersionMismatch
from service.base.requests import Idempotency
from service.database.connections import VersionConflict
from service.games import answers, checks, commit, positions
from service.games.answers import Answer
from service.games.checks import Action
from service.players.accounts import Player
from service.races import service as races

Search = Callable[[Game], Awaitable[tuple[Action, dict[str, Any]]]]
"""What a write's action is found by, on the game's position (a hint's search): the action
and the answer's extra fields."""

WRITE_ATTEMPTS: Final = 5
# conflicts after which a write reads the log, judges and commits under the game's locks
LOCK_AFTER: Final = 2


async def write(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    expected_version: int | None,
    idem: Idempotency | None,
    action: Action | None,
    extra: dict[str, Any] | None = None,
    search: Search | None = None,
) -> Answer:
    """The one way to change a game: `action` on a copy of its position, judged by the log.

    `extra` goes into the answer's body beside the game and its events. With `search`
    instead (a hint), the action and the extra fields come from it, awaited on each
    position the write judges."""
    arrival = datetime.now(UTC)  # when the write came, by this machine (times.check)
    from_log = False  # whether the game is read from the log (else memory's copy will do)
    live = None
    # (no move lands in a race's game after the race's ends_at: record_events refuses it,
    # and ends the race then when nobody has, without a round trip more)
    held = await positions.taken(backend, game_id)
    try:
        conflicts = 0  # writes of this request that met another's
        for attempt in range(WRITE_ATTEMPTS + 1):
            last = attempt == WRITE_ATTEMPTS  # all spent: this last read names the log's
            # (after LOCK_AFTER conflicts: in a transaction that holds the game's locks from
            # the read of its log to the commit, EventStore.locked)
            locked = conflicts >= LOCK_AFTER and not last
            try:
                async with backend.store.locked(game_id) if locked else nullcontext():
                    live = await positions.fresh(backend, game_id, from_log)
                    if last:
                        break
                    try:
                        if search is not None:  # (searched on this very position)
                            action, extra = await search(live.game)
                        assert action is not None
                        done, events, finish = checks.judged(
                            live, player, expected_version, action, arrival,
                            backend.max_game_events,
                        )
                    except (EngineError, VersionMismatch):
                        if from_log:
                            raise
                        from_log = True  # memory's copy said no: judge again on the log
                        continue
                    return await commit.commit(
                        backend, game_id, done, events, live.version + 1, finish, idem,
                        player.token_id, extra,
                    )
            except VersionConflict:
                # another instance wrote first (or the database broke a deadlock of the
                # game's locks, taking them or writing): judge again on the log
                from_log = True
                conflicts += 1
        assert live is not None
        raise VersionMismatch(
            "other moves keep arriving first; reload the game and try again",
            current_version=live.version,
        )
    except (EngineError, ServiceError) as exc:
        refusal: Exception = exc
        race_id = None if live is None else live.race_id
        if isinstance(exc, GameFinished) and race_id is not None:
            # a race's game found over (abandoned at the race's end, say): when the
            # race's time is up, that is what the refusal says
            refusal = await races.over_if_ended(backend, race_id) or exc
        elif isinstance(exc, RaceOver) and race_id is not None:
            await races.games_ended(backend, race_id)  # (this write may have ended it)
        # a retry (same Idempotency-Key) gets its first answer; a first is kept as one
        first = await answers.answered_before(backend, player, idem, refusal)
        if first is not None:
            return first
        if refusal is exc:
            raise
        raise refusal from None
    finally:
        held.release()
