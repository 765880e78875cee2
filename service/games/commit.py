"""One write into the log, and into memory once it is committed: the events that a
judged command appends (service/games/write.py), or a new game's first."""

from __future__ import annotations

import uuid
from typing import Any

from engine import Event
from engine.game import GAME_WON
from service.base.backend import Backend
from service.base.requests import Idempotency
from service.database.connections import DatabaseUnavailable, SignedOut, VersionConflict
from service.database.statements import board_line, game_line
from service.games import answers, positions, times
from service.games.answers import Answer
from service.games.live_game import LiveGame
from service.races import service as races


async def commit(
    backend: Backend,
    game_id: uuid.UUID,
    done: LiveGame,
    events: list[Event],
    first_seq: int,
    finish: times.Finish,
    idem: Idempotency | None,
    token_id: uuid.UUID | None,
    extra: dict[str, Any] | None = None,
) -> Answer:
    """Append `events` (seqs from `first_seq`) that leave the game as `done` is, in one
    call of the store; memory changes once they are committed. Raises VersionConflict
    when another write took their place in the log, SignedOut when the device token the
    write came with (`token_id`) is signed out by then, whatever memory trusted."""
    g = done.game
    epoch = backend.epoch()
    # a win changes the deal's boards: memory's pages of them (boards/known.py) are told,
    # here and on the other instances, once it is committed, or when it may have been
    won = (g.variant, g.deal) if any(e.type == GAME_WON for e in events) else None
    template = answers.template(
        game_id, done, events, first_seq, finish, extra, backend.max_game_events
    )
    kept: LiveGame | None = None  # what memory keeps: nothing while the outcome is unknown
    settle = True  # memory is settled whatever happens, unless nothing was written
    try:
        recorded = await backend.store.record(
            game_id=game_id,
            first_seq=first_seq,
            events=[{"type": e.type, "data": e.data} for e in events],
            player_id=done.player_id,
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
            response=template if idem else None,  # the store sends it as JSON text
            alone=done.race_id is not None,
            # what the other instances hear at the commit (service/live/hub.py)
            notice=[game_line(game_id, g.version)]
            + ([] if won is None else [board_line(*won)]),
            token_id=token_id,
        )
        if recorded.race_ends_at is not None:
            assert done.race_id is not None
            raise races.over(done.race_id, recorded.race_ends_at)
        if recorded.replayed is not None:  # the key's earlier answer: nothing written now
            assert idem is not None
            settle = False  # (memory's copy stays: not this write's, nor forgotten)
            return answers.replayed(recorded.replayed, idem)
        answer = Answer(201, answers.stamped(template, recorded.at))
        if recorded.arrived_ms is not None:  # (nothing was appended)
            raise times.played_late(events, recorded.arrived_ms)
        assert recorded.created_at is not None
        last = times.last_action_ms(
            done.last_action_ms, recorded.created_at, recorded.at, events
        )
        kept = LiveGame(
            g, done.player_id, recorded.created_at, recorded.finished_at, done.race_id, last
        )
        return answer
    except VersionConflict:
        settle = False  # nothing was written: the caller judges again on the log
        raise
    except SignedOut:
        settle = False  # nothing was written (a 401: base/problems.py)
        raise
    except DatabaseUnavailable:
        # the outcome unknown: the write may yet commit (its statement runs on), and its
        # NOTIFY then comes back to this instance as its own, unread. So its seq counts as
        # announced: no copy of the game behind it is known current (positions.py:
        # known_version) until the log reaches it (this write's commit, or the next's)
        positions.announce(backend, game_id, first_seq + len(events) - 1)
        raise
    finally:
        if settle:
            positions.settled(backend, game_id, kept, epoch, won, done.race_id)
