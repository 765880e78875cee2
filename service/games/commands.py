"""Writing games: every command goes through one write path, judged against the log.

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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Protocol

import orjson

from engine import EngineError, Event, Game, IllegalMove, Move
from service.base.backend import Backend, LiveGame
from service.base.errors import (
    Forbidden,
    GameFinished,
    LogFull,
    ServiceError,
    Unprocessable,
    VersionMismatch,
)
from service.base.http import Idempotency
from service.database.store import Recorded, Replayed, VersionConflict
from service.deals.numbers import check_deal, random_deal
from service.games import queries
from service.players.accounts import Player
from service.races import service as races

WRITE_ATTEMPTS: Final = 5
HINT_ATTEMPTS: Final = 3
# In an answer built before its write: the write's time, which the database gives.
STAMP: Final = "@write"


@dataclass(frozen=True, slots=True)
class Answer:
    """A write's answer: HTTP status and body (the same again for a repeated key)."""

    status: int
    body: dict[str, Any]


Action = Callable[[Game], list[Event]]


class VersionedAction(Protocol):
    async def __call__(
        self,
        backend: Backend,
        game_id: uuid.UUID,
        player: Player,
        expected_version: int | None,
        idem: Idempotency | None = None,
    ) -> Answer: ...


# ---------------------------------------------------------------- the commands


async def create_game(
    backend: Backend,
    player: Player,
    variant: str,
    deal: int | None,
    autoplay: bool,
    idem: Idempotency | None = None,
) -> Answer:
    if deal is None:
        deal = random_deal(variant)
    check_deal(variant, deal)
    game_id = uuid.uuid4()
    game, events = Game.new(variant, deal, autoplay)
    created = events[0]
    events[0] = Event(created.type, {**created.data, "player_id": str(player.id)})
    live = LiveGame(game, player.id, _NOT_YET, None)
    finish = "now" if queries.at_an_end(game.status) else "none"
    answer, kept = await _record(backend, game_id, live, events, 1, finish, idem)
    if kept is not None:
        backend.games.put(game_id, kept)
        backend.committed(game_id, game.version)
    return answer


def parse_move(position: Any, body: dict[str, Any]) -> Move:
    """The engine's move from a request: by source pile, or by card."""
    target = body["to"]
    if body.get("card") is not None:
        return position.move_for_card(body["card"], target)  # type: ignore[no-any-return]
    source = body["from"]
    if target == "auto":
        return position.move_for_card(_free_card(position, source), "auto")  # type: ignore[no-any-return]
    return Move(source, target, body.get("count") or 1)


def _free_card(position: Any, pile: str) -> Any:
    """The free card of a column or cell named by a client."""
    card = position.card_at(pile)
    if card is None:
        raise IllegalMove(f"{pile} is empty: there is no card to move")
    return card


async def play_move(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    body: dict[str, Any],
    expected_version: int | None,
    idem: Idempotency | None = None,
) -> Answer:
    def action(game: Game) -> list[Event]:
        return game.play(parse_move(game.position, body))

    return await write(backend, game_id, player, expected_version, idem, action)


async def play_moves(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    bodies: list[dict[str, Any]],
    expected_version: int | None,
    idem: Idempotency | None = None,
) -> Answer:
    """Several moves, all or none: each judged on the position the ones before it (and
    their automatic moves) left, and all their events appended by one write. A refusal
    names the move's place in the batch (`index`, 0-based) in its problem body."""

    def action(game: Game) -> list[Event]:
        events: list[Event] = []
        for index, body in enumerate(bodies):
            try:
                events += game.play(parse_move(game.position, body))
            except EngineError as exc:
                exc.index = index  # type: ignore[attr-defined]  # read by problems.py
                raise
        return events

    return await write(backend, game_id, player, expected_version, idem, action)


async def undo(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    expected_version: int | None,
    idem: Idempotency | None = None,
) -> Answer:
    return await write(backend, game_id, player, expected_version, idem, lambda g: g.undo())


async def redo(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    expected_version: int | None,
    idem: Idempotency | None = None,
) -> Answer:
    return await write(backend, game_id, player, expected_version, idem, lambda g: g.redo())


async def abandon(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    expected_version: int | None,
    idem: Idempotency | None = None,
) -> Answer:
    return await write(backend, game_id, player, expected_version, idem, lambda g: g.abandon())


Judge = Callable[[Game], Awaitable[dict[str, Any]]]
"""The solver's hint on a game's position: {"verdict", "move", "moves_to_win", "solver",
"line"}: `line`, the player moves of the winning line, goes on the record for the next
hint and is shown to nobody."""


async def give_hint(
    backend: Backend,
    judge: Judge,
    game_id: uuid.UUID,
    player: Player,
    expected_version: int | None,
    idem: Idempotency | None = None,
) -> Answer:
    """A hint on the game's current position, recorded as a HintGiven event.

    The position is the log's (read once), the search runs outside the game's lock, and
    the hint is recorded only on the version it was found for: when a move landed
    meanwhile, the hint is searched again on the new position."""
    live = await queries.load(backend, game_id)
    _check_owner(live, player)
    refuse_hints_in_races(live)
    for _attempt in range(HINT_ATTEMPTS):
        live = await queries.current(backend, game_id)
        game = live.game
        _check_version(game, expected_version)
        _check_live(game)
        found = await judge(game.copy())
        move = found.get("move")
        hinted = None if move is None else Move(move["from"], move["to"], move["count"])
        extra = {
            "verdict": found["verdict"],
            "move": move,
            "moves_to_win": found.get("moves_to_win"),
            "solver": found.get("solver"),
        }
        line = found.get("line")

        def action(
            g: Game,
            extra: dict[str, Any] = extra,
            hinted: Move | None = hinted,
            line: tuple[str, ...] | None = line,
        ) -> list[Event]:
            return g.give_hint(extra["verdict"], hinted, extra["moves_to_win"], line)

        try:
            return await write(backend, game_id, player, game.version, idem, action, extra)
        except VersionMismatch:
            if expected_version is not None:
                raise
    live = await queries.current(backend, game_id)
    raise VersionMismatch(
        "moves keep arriving while the hint is searched; reload the game and ask again",
        current_version=live.game.version,
    )


def refuse_hints_in_races(live: LiveGame) -> None:
    """A race's games get no hint (API.md), nor a hint read off one of them once over:
    every racer plays the same deal."""
    if live.race_id is not None:
        raise Forbidden(
            f"this game is played in race {live.race_id}: hints are refused in a race's games"
        )


# ---------------------------------------------------------------- the one write path


def _check_owner(live: LiveGame, player: Player) -> None:
    if live.player_id != player.id:
        raise Forbidden("this game belongs to another player; you may read it but not play it")


def _check_version(game: Game, expected_version: int | None) -> None:
    if expected_version is not None and expected_version != game.version:
        raise VersionMismatch(
            f"the game is at version {game.version}, not {expected_version};"
            " reload it and try again",
            current_version=game.version,
        )


def _check_room(backend: Backend, game: Game, work: Game, events: list[Event]) -> None:
    """A game's log holds at most MAX_GAME_EVENTS events; abandoning always has room."""
    if work.version > backend.max_game_events and work.status != "abandoned":
        raise LogFull(
            f"this game's log is full ({backend.max_game_events} events at most); it can"
            " still be abandoned: start a new game",
            current_version=game.version,
        )


def _check_live(game: Game) -> None:
    if game.is_over:
        raise GameFinished(
            f"the game is over ({game.status}); start a new one",
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
    live = await queries.load(backend, game_id)
    _check_owner(live, player)  # a game's owner never changes: memory can tell
    # (no move lands in a race's game after the race's ends_at: record_events refuses it,
    # and ends the race then when nobody has, without a round trip more)
    async with backend.lock_for(game_id):
        try:
            return await _write_locked(backend, game_id, expected_version, idem, action, extra)
        except (EngineError, ServiceError) as exc:
            # A retried request (same Idempotency-Key) meets a game that has moved on since
            # its first answer: that answer stands. Looked up only on this path, so the
            # ordinary write stays one round trip.
            if idem is not None:
                found = await backend.store.find_key(player.id, idem.key)
                if found is not None:
                    return _replayed(found, idem)
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
) -> Answer:
    live = await queries.load(backend, game_id)
    from_log = False  # whether `live` was read from the log during this request
    for _attempt in range(WRITE_ATTEMPTS):
        game = live.game
        refusal: Exception | None = None
        events: list[Event] = []
        work = game.copy()  # the engine's verdict on a copy: memory changes on commit only
        try:
            _check_version(game, expected_version)
            _check_live(game)
            events = action(work)
            _check_room(backend, game, work, events)
        except (EngineError, VersionMismatch) as exc:
            refusal = exc
        if refusal is not None:
            if from_log:
                raise refusal
            live, from_log = await queries.current(backend, game_id), True
            continue
        done = LiveGame(work, live.player_id, live.created_at, live.finished_at, live.race_id)
        finish = _finish(game.status, done)
        if finish == "none":
            done.finished_at = None
        try:
            answer, kept = await _record(
                backend, game_id, done, events, game.version + 1, finish, idem, extra
            )
        except VersionConflict:
            # another instance wrote first: judge again on the log
            live, from_log = await queries.current(backend, game_id), True
            continue
        except BaseException:
            backend.games.drop(game_id)  # the outcome is unknown: read the log next time
            raise
        if kept is None:  # the key's earlier answer: memory may not have that write
            backend.games.drop(game_id)
            return answer
        backend.games.put(game_id, kept)
        backend.committed(game_id, work.version)
        if kept.race_id is not None:
            backend.wake_race(kept.race_id)
        return answer
    live = await queries.current(backend, game_id)
    raise VersionMismatch(
        "other moves keep arriving first; reload the game and try again",
        current_version=live.game.version,
    )


def _finish(before: str, done: LiveGame) -> str:
    """What the write does to the game's finish time (record_events' p_finish)."""
    if not queries.at_an_end(done.game.status):
        return "none"
    if done.game.status != before or done.finished_at is None:
        return "now"
    return "keep"


# ---------------------------------------------------------------- answers and the store

_NOT_YET: Final = datetime.min  # a new game's creation time, until the database gives it


def _template(
    game_id: uuid.UUID,
    live: LiveGame,
    events: list[Event],
    first_seq: int,
    finish: str,
    extra: dict[str, Any] | None,
) -> dict[str, Any]:
    """The answer, with STAMP where the write's time goes."""
    view = queries.game_view(game_id, live)
    if live.created_at is _NOT_YET:
        view["created_at"] = STAMP
    if finish == "now":
        view["finished_at"] = STAMP
        view["elapsed_ms"] = None
    body = {
        **(extra or {}),
        "game": view,
        "events": [
            {"seq": first_seq + i, "type": e.type, "at": STAMP,
             "data": queries.public_data(e.type, e.data)}
            for i, e in enumerate(events)
        ],
    }
    if extra is not None:
        body["version"] = live.game.version
    return body


def _stamped(template: dict[str, Any], at: datetime) -> dict[str, Any]:
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
        game["elapsed_ms"] = queries.elapsed_ms(created, at)
    body["game"] = game
    body["events"] = [{**e, "at": at} if e["at"] == STAMP else e for e in body["events"]]
    return body


def _replayed(found: Replayed, idem: Idempotency) -> Answer:
    if found.request_hash != idem.request_hash:
        raise Unprocessable(
            f"the Idempotency-Key {idem.key!r} was used before for another request;"
            " use a new key for a new request"
        )
    return Answer(found.status, _stamped(found.response, found.at))


async def _record(
    backend: Backend,
    game_id: uuid.UUID,
    live: LiveGame,
    events: list[Event],
    first_seq: int,
    finish: str,
    idem: Idempotency | None,
    extra: dict[str, Any] | None = None,
) -> tuple[Answer, LiveGame | None]:
    """Append the write; its answer, and the game to keep in memory (None when the key's
    earlier answer came back instead)."""
    g = live.game
    template = _template(game_id, live, events, first_seq, finish, extra)
    recorded: Recorded = await backend.store.record(
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
        foundation_cards=g.position.foundation_cards,
        finish=finish,
        key=idem.key if idem else None,
        request_hash=idem.request_hash if idem else None,
        http_status=201 if idem else None,
        response=_jsonable(template) if idem else None,
        alone=live.race_id is not None,
    )
    if recorded.replayed is not None:
        assert idem is not None
        return _replayed(recorded.replayed, idem), None
    if recorded.race_ends_at is not None:
        assert live.race_id is not None
        backend.wake_race(live.race_id)
        raise races.over(live.race_id, recorded.race_ends_at)
    assert recorded.created_at is not None
    kept = LiveGame(g, live.player_id, recorded.created_at, recorded.finished_at, live.race_id)
    return Answer(201, _stamped(template, recorded.at)), kept


def _jsonable(body: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = orjson.loads(orjson.dumps(body))
    return result
