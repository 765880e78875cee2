"""The verdict on a command before it is written: who may play, on which version, while
the game is on, at what times, and with room in its log; then the engine's events on a
copy of the game. Nothing here reads or writes: the write path (service/games/write.py)
gives the position and records what is judged."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import NamedTuple

from engine import Event, Game
from service.base.errors import (
    Forbidden,
    GameFinished,
    LogFull,
    PreconditionFailed,
    VersionMismatch,
)
from service.games import times
from service.games.live_game import LiveGame
from service.games.schemas import TaggedVersion
from service.players.accounts import Player

Action = Callable[[Game], list[Event]]
"""A command on a copy of the game: the events it appends (the engine raises to refuse)."""


class Judged(NamedTuple):
    """A command found good: the game it leaves, its events and what it does to the
    game's finish time."""

    done: LiveGame
    events: list[Event]
    finish: times.Finish


def check_owner(live: LiveGame, player: Player) -> None:
    if live.player_id != player.id:
        raise Forbidden("this game belongs to another player; you may read it but not play it")


def check_version(game: Game, expected_version: int | None) -> None:
    if isinstance(expected_version, TaggedVersion):
        if game.version in expected_version.versions:
            return
        said = "an ETag of another version" if expected_version.versions else "no ETag of it"
        raise PreconditionFailed(
            f"the game is at version {game.version}, and If-Match names {said}; reload it"
            " (its ETag) and try again",
            current_version=game.version,
        )
    if expected_version is None or expected_version == game.version:
        return
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


def judged(
    live: LiveGame,
    player: Player,
    expected_version: int | None,
    action: Action,
    arrival: datetime,
    max_events: int,
) -> Judged:
    """`action` on a copy of `live`'s game (memory changes on commit only), or the
    refusal: Forbidden, VersionMismatch, GameFinished, the engine's, BadMoveTime (a
    batch's times: games/times.py) or LogFull (a game's log holds at most `max_events`
    events, the last of them kept for its abandonment)."""
    game = live.game
    check_owner(live, player)
    check_version(game, expected_version)
    check_live(game)
    work = game.copy()
    events = action(work)
    times.check(events, live.last_action_ms, live.created_at, arrival)
    # (the log's last place is its abandonment's: a full log still takes it, and holds
    # max_events events at most)
    if len(events) > live.room(max_events) and work.status != "abandoned":
        raise LogFull(
            f"this game's log is full ({max_events} events at most, the last kept for"
            " abandoning it); it can still be abandoned: start a new game",
            current_version=game.version,
        )
    finish = times.finish(game.status, work.status, live.finished_at)
    finished_at = None if finish == "none" else live.finished_at
    # (its last action's time is the write's, set once the database gives it)
    done = LiveGame(
        work, live.player_id, live.created_at, finished_at, live.race_id, live.last_action_ms
    )
    return Judged(done, events, finish)
