"""A write's answer: built before the write, with STAMP where the write's time goes (the
database's clock gives it), and stamped once the write is made. A repeated
Idempotency-Key gets its first answer again, stamped the same way (a stored answer's times
are text)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from engine import EngineError, Event
from service.base.backend import Backend
from service.base.errors import (
    Conflict,
    FirstAnswer,
    Forbidden,
    NotFound,
    ServiceError,
    Unprocessable,
)
from service.base.problems import refusal_problem
from service.base.requests import KEY_REUSED, Idempotency
from service.database.store import Replayed
from service.games.live_game import LiveGame
from service.games.times import Finish
from service.games.views import elapsed_ms, game_view, public_data
from service.players.accounts import Player

# In an answer built before its write: the write's time, which the database gives.
STAMP: Final = "@write"
NOT_YET: Final = datetime.min  # a new game's creation time, until the database gives it


@dataclass(frozen=True, slots=True)
class Answer:
    """A write's answer: HTTP status and body (the same again for a repeated key, then
    `replayed`)."""

    status: int
    body: dict[str, Any]
    replayed: bool = False


def template(
    game_id: uuid.UUID,
    live: LiveGame,
    events: list[Event],
    first_seq: int,
    finish: Finish,
    extra: dict[str, Any] | None,
    max_events: int,
) -> dict[str, Any]:
    """The answer, with STAMP where the write's time goes; `extra` goes into the body
    beside the game and its events."""
    view = game_view(game_id, live, max_events)
    if live.created_at is NOT_YET:
        view["created_at"] = STAMP
    if finish == "now":
        view["finished_at"] = STAMP
        view["elapsed_ms"] = None
    body = {
        **(extra or {}),
        "game": view,
        "events": [
            {"seq": first_seq + i, "type": e.type, "at": STAMP,
             "data": public_data(e.type, e.data)}
            for i, e in enumerate(events)
        ],
    }
    if extra is not None:
        body["version"] = live.game.version
    return body


def stamped(template: dict[str, Any], at: datetime) -> dict[str, Any]:
    """The answer with the write's time where STAMP stands (a stored answer too, whose
    times are text)."""
    body = dict(template)
    game = dict(body["game"])
    stamped_end = game["finished_at"] == STAMP
    for name in ("created_at", "finished_at"):
        if game[name] == STAMP:
            game[name] = at
    if stamped_end:
        created = game["created_at"]
        if isinstance(created, str):
            created = datetime.fromisoformat(created)
        game["elapsed_ms"] = elapsed_ms(created, at)
    body["game"] = game
    body["events"] = [{**e, "at": at} if e["at"] == STAMP else e for e in body["events"]]
    return body


def replayed(found: Replayed, idem: Idempotency) -> Answer:
    """The key's first answer, unless the key came with another request; a refusal kept
    as the first answer is raised again (FirstAnswer), as it was first answered."""
    if not idem.same_request(found.request_hash):
        raise Unprocessable(KEY_REUSED.format(key=idem.key))
    if found.status < 400:
        return Answer(found.status, stamped(found.response, found.at), replayed=True)
    raise FirstAnswer(found.response)


def kept_refusal(refusal: Exception) -> bool:
    """Whether a refusal is its request's answer for good, kept under its key: the rules'
    (400, 409, 422) and the game's state (over, its version, its log full, its race over).
    Not a key that came with another request, nor a refusal that a retry may not meet: the
    database unreachable, a rate, a batch's times (a move said to be played after the
    batch came: a retry comes later); nor a 404 or 403, which no write of the player's
    with the key can change."""
    return isinstance(refusal, EngineError | Conflict)


async def answered_before(
    backend: Backend, player: Player, idem: Idempotency | None, refusal: Exception
) -> Answer | None:
    """The first answer to a request refused now (by the write path, or before it by a
    hint's checks and search), when it is a retry (same Idempotency-Key): that answer
    stands, whatever happened to the game since (422 when the key came with another
    request). Else the refusal (kept_refusal) becomes the key's first answer, which a
    retry gets again: an undo refused with nothing to undo is not made by its retry after
    a move. Without a key (or for a 404 or a 403), whether the token is still signed in
    (a 401 if not). Asked only when a request is refused, so the ordinary write stays one
    round trip."""
    # (each look-up checks the token asking is still signed in, SignedOut (401) if not:
    # memory may trust one that another instance signed out a moment ago)
    key = None if idem is None or isinstance(refusal, NotFound | Forbidden) else idem.key
    if key is not None and kept_refusal(refusal):
        assert idem is not None and isinstance(refusal, EngineError | ServiceError)
        problem = refusal_problem(refusal)
        found = await backend.store.keep_answer(
            player.id, key, idem.request_hash, problem["status"], problem, player.token_id,
        )
    else:  # (no key: only the token is checked)
        found = await backend.store.find_key(player.id, key, player.token_id)
    if found is None or idem is None:
        return None
    return replayed(found, idem)
