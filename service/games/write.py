"""The one write path: every change of a game goes through :func:`commit`, judged against
the log.

A write is: the game's position from memory, the engine's verdict on a copy, then one call
to the store that appends the events, updates the projection, records the idempotency key
and any board entries, all in one transaction, timed by the database's clock. The
client's 2xx follows the commit, and memory changes only then.

Memory is a cache, the log is the truth: a write is never refused on the strength of
memory alone. When the copy in memory says no (the engine refuses the move, undo or redo,
or the client's `expected_version` is ahead of it), the log is read once and the request
judged again; a write that collides with another instance's (the key (game id, seq) is
taken) is judged again on the log too.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

from engine import EngineError, Event, Game
from engine.game import GAME_WON
from service.base.backend import Backend
from service.base.errors import Forbidden, GameFinished, LogFull, ServiceError, VersionMismatch
from service.base.http import Idempotency
from service.database.connections import VersionConflict
from service.games import answers, clock, played, positions
from service.games.answers import Answer
from service.games.clock import Finish
from service.games.positions import LiveGame
from service.players.accounts import Player
from service.races import service as races

WRITE_ATTEMPTS: Final = 5

Action = Callable[[Game], list[Event]]
"""A command on a copy of the game: the events it appends (the engine raises to refuse)."""


def check_owner(live: LiveGame, player: Player) -> None:
    if live.player_id != player.id:
        raise Forbidden("this game belongs to another player; you may read it but not play it")


def check_version(game: Game, expected_version: int | None) -> None:
    if expected_version is not None and expected_version != game.version:
        raise VersionMismatch(
            f"the game is at version {game.version}, not {expected_version};"
            " reload it and try again",
            current_version=game.version,
        )


def check_live(game: Game) -> None:
    if game.is_over:
        raise GameFinished(
            f"the game is over ({game.status}); start a new one",
            current_version=game.version,
        )


def _check_room(backend: Backend, game: Game, work: Game) -> None:
    """A game's log holds at most MAX_GAME_EVENTS events; abandoning always has room."""
    if work.version > backend.max_game_events and work.status != "abandoned":
        raise LogFull(
            f"this game's log is full ({backend.max_game_events} events at most); it can"
            " still be abandoned: start a new game",
            current_version=game.version,
        )


async def write(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    expected_version: int | None,
    idem: Idempotency | None,
    action: Action,
    extra: dict[str, Any] | None = None,
) -> Answer:
    """The one way to change a game: `action` on a copy of its position, judged by the log.

    `extra` goes into the answer's body beside the game and its events."""
    arrival = datetime.now(UTC)  # no move of the write may say it was played later
    live = await positions.load(backend, game_id)
    check_owner(live, player)  # a game's owner never changes: memory can tell
    # (no move lands in a race's game after the race's ends_at: record_events refuses it,
    # and ends the race then when nobody has, without a round trip more)
    async with backend.lock_for(game_id):
        try:
            return await _write_locked(
                backend, game_id, expected_version, idem, action, extra, arrival
            )
        except (EngineError, ServiceError) as exc:
            # A retried request (same Idempotency-Key) meets a game that has moved on since
            # its first answer: that answer stands. Looked up only on this path, so the
            # ordinary write stays one round trip.
            if idem is not None:
                found = await backend.store.find_key(player.id, idem.key)
                if found is not None:
                    return answers.replayed(found, idem)
            if isinstance(exc, GameFinished) and live.race_id is not None:
                # a race's game found over (abandoned at the race's end, say): when the
                # race's time is up, that is what the refusal says
                ends_at = await races.ends_at_if_passed(backend, live.race_id)
                if ends_at is not None:
                    raise races.over(live.race_id, ends_at) from None
            raise


async def _write_locked(
    backend: Backend,
    game_id: uuid.UUID,
    expected_version: int | None,
    idem: Idempotency | None,
    action: Action,
    extra: dict[str, Any] | None,
    arrival: datetime,
) -> Answer:
    from_log = False  # whether the game is read from the log (else memory's copy will do)
    for attempt in range(WRITE_ATTEMPTS + 1):
        live = await (positions.current if from_log else positions.load)(backend, game_id)
        game = live.game
        if attempt == WRITE_ATTEMPTS:  # all spent: this last read names the log's version
            break
        work = game.copy()  # the engine's verdict on a copy: memory changes on commit only
        try:
            check_version(game, expected_version)
            check_live(game)
            events = action(work)
            played.check(events, live.last_action_ms, live.created_at, arrival)
            _check_room(backend, game, work)
        except (EngineError, VersionMismatch):
            if from_log:
                raise
            from_log = True  # memory's copy said no: judge again on the log
            continue
        finish = clock.finish(game.status, work.status, live.finished_at)
        finished_at = None if finish == "none" else live.finished_at
        # (its last action's time is the write's, set once the database gives it: _record)
        done = LiveGame(work, live.player_id, live.created_at, finished_at, live.race_id,
                        live.last_action_ms)
        try:
            return await commit(
                backend, game_id, done, events, game.version + 1, finish, idem, extra
            )
        except VersionConflict:
            from_log = True  # another instance wrote first: judge again on the log
    raise VersionMismatch(
        "other moves keep arriving first; reload the game and try again",
        current_version=game.version,
    )


async def commit(
    backend: Backend,
    game_id: uuid.UUID,
    done: LiveGame,
    events: list[Event],
    first_seq: int,
    finish: Finish,
    idem: Idempotency | None,
    extra: dict[str, Any] | None = None,
) -> Answer:
    """Append `events` (seqs from `first_seq`) that leave the game as `done` is, in one
    call of the store; memory changes once they are committed. Raises VersionConflict
    when another write took their place in the log."""
    epoch = backend.epoch()
    # a win changes the deal's boards: memory's pages of them (boards/known.py) are told,
    # here and on the other instances, once it is committed, or when it may have been
    won = any(e.type == GAME_WON for e in events)
    try:
        answer, kept = await _record(backend, game_id, done, events, first_seq, finish, idem, extra)
    except VersionConflict:
        raise
    except BaseException:
        backend.games.drop(game_id)  # the outcome is unknown: read the log next time
        if won:
            backend.board_changed(done.game.variant, done.game.deal, ours=True)
        raise
    if won:
        backend.board_changed(done.game.variant, done.game.deal, ours=True)
    if kept is None:  # the key's earlier answer: memory may not have that write
        backend.games.drop(game_id)
        return answer
    positions.confirmed(backend, game_id, kept, epoch)
    backend.games.put(game_id, kept)
    backend.committed(game_id, kept.game.version)
    if kept.race_id is not None:
        backend.wake_race(kept.race_id)
    return answer


async def _record(
    backend: Backend,
    game_id: uuid.UUID,
    live: LiveGame,
    events: list[Event],
    first_seq: int,
    finish: Finish,
    idem: Idempotency | None,
    extra: dict[str, Any] | None,
) -> tuple[Answer, LiveGame | None]:
    """Append the write; its answer, and the game to keep in memory (None when the key's
    earlier answer came back instead)."""
    g = live.game
    template = answers.template(game_id, live, events, first_seq, finish, extra)
    recorded = await backend.store.record(
        game_id=game_id,
        first_seq=first_seq,
        events=[{"type": e.type, "data": e.data} for e in events],
        player_id=live.player_id,
        variant=g.variant,
        deal=g.deal,
        autoplay=g.autoplay,
        status=g.status,
        moves=g.moves,
        undos=g.undos,
        hints=g.hints,
        assisted=g.assisted,
        foundation_cards=g.position.foundation_cards,
        finish=finish,
        key=idem.key if idem else None,
        request_hash=idem.request_hash if idem else None,
        http_status=201 if idem else None,
        response=answers.jsonable(template) if idem else None,
        alone=live.race_id is not None,
    )
    if recorded.replayed is not None:
        assert idem is not None
        return answers.replayed(recorded.replayed, idem), None
    if recorded.race_ends_at is not None:
        assert live.race_id is not None
        backend.wake_race(live.race_id)
        raise races.over(live.race_id, recorded.race_ends_at)
    assert recorded.created_at is not None
    last = played.last_action_ms(live.last_action_ms, recorded.created_at, recorded.at, events)
    kept = LiveGame(
        g, live.player_id, recorded.created_at, recorded.finished_at, live.race_id, last
    )
    return Answer(201, answers.stamped(template, recorded.at)), kept
