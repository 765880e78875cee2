"""The verdict on a command before it is written: who may play, on which version, while
the game is on, at what times, and with room in its log; then the engine's events on a
copy of the game. Nothing here reads or writes: the write path (service/games/write.py)
gives the position and records what is judged."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Final, NamedTuple

from engine import Event, Game
from service.base.errors import (
    BadRequest,
    Forbidden,
    GameFinished,
    LogFull,
    PreconditionFailed,
    VersionMismatch,
)
from service.games import times
from service.games.live_game import LiveGame
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


class TaggedVersion(int):
    """A version a write is conditioned on by If-Match, the game's ETag: refused with a
    412 (PreconditionFailed) where a stale `expected_version` is a 409. NO_TAG: a field
    that names no ETag of the game, which no version meets."""


NO_TAG: Final = TaggedVersion(-1)
# a strong ETag of a game's view, as queries.view_tag writes it: its id, its version and,
# once won, its standing's rank and count
_GAME_TAG = re.compile(r'"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'
                       r'\.([0-9]{1,10})(?:\.[0-9]+\.[0-9]+)?"')  # fmt: skip


def expected(said: int | None, if_match: str | None, game_id: uuid.UUID) -> int | None:
    """The version a write is conditioned on: `said` (its `expected_version`) or the one
    of the game's ETags in `if_match` (the If-Match field), which must agree when both
    come (400 otherwise). "*" conditions nothing more (the game exists, or it is a 404);
    tags of other games, weak tags (never equal by the strong comparison If-Match asks)
    and other resources' tags name no version of the game: NO_TAG."""
    if if_match is None or if_match.strip() == "*":
        return said
    versions = set()
    for tag in if_match.split(","):
        found = _GAME_TAG.fullmatch(tag.strip())
        if found is not None and found[1] == str(game_id):
            versions.add(int(found[2]))
    if len(versions) > 1:
        raise BadRequest("If-Match names several versions of this game; give the ETag your"
                         " copy of the game has")  # fmt: skip
    tagged = TaggedVersion(versions.pop()) if versions else NO_TAG
    if said is not None and said != tagged:
        raise BadRequest(f"expected_version {said} and If-Match's ETag disagree; send one")
    return tagged


def check_version(game: Game, expected_version: int | None) -> None:
    if expected_version is None or expected_version == game.version:
        return
    if isinstance(expected_version, TaggedVersion):
        said = "no ETag of it" if expected_version == NO_TAG else "an ETag of another version"
        raise PreconditionFailed(
            f"the game is at version {game.version}, and If-Match names {said}; reload it"
            " (its ETag) and try again",
            current_version=game.version,
        )
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
    if work.version >= max_events and work.status != "abandoned":
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
