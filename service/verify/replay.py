"""The replay of one game's log, for `python -m service verify`: what its projection must
hold, the game as each write of the log left it (what a race's events say of the game),
and its win as the boards rank it.

The games' check (service/verify/games.py) compares the projection and the board entries
with it; the races' check (service/verify/races.py) a race's events with its games' writes.
"""

from __future__ import annotations

import itertools
import statistics
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine import EngineError, Event, Game
from engine.game import CARD_MOVED, GAME_CREATED
from service.boards import order
from service.games.times import finished_at_after, is_players, played_at, played_ms, whole_ms
from service.games.views import elapsed_ms


@dataclass(frozen=True, slots=True)
class Write:
    """The game as one write of its log left it (a write's events share their `at`)."""

    at: datetime
    status: str
    moves: int
    foundation_cards: int
    elapsed_ms: int | None  # from the creation to the game's present end, if at one
    ended: bool  # this write brought the game to its present end (record_events' 'now')


@dataclass(frozen=True, slots=True)
class Win:
    game_id: uuid.UUID
    elapsed_ms: int
    moves: int
    undos: int
    finished_at: datetime
    assisted: bool
    pace_ms: float | None  # the median time between the player's own moves

    @property
    def rank_key(self) -> tuple[Any, ...]:
        """Which of a player's wins is the better, by the boards' order: the smaller."""
        return order.better_key(self)


def pace_ms(events: Sequence[Any]) -> float | None:
    """The median time in milliseconds between the player's own actions (moves, undos,
    redos), counted from the game's creation, each when it was played (a batch's move
    may say: service/games/times.py); None when the player made none (as the database's
    game_median_move_ms measures it)."""
    created = events[0]["at"]
    times = [
        created, *(played_at(created, e["at"], e["data"]) for e in events[1:]
                   if is_players(e["type"], e["data"]))
    ]
    gaps = [(b - a).total_seconds() * 1000 for a, b in itertools.pairwise(times)]
    return statistics.median(gaps) if gaps else None


def replay(events: Sequence[Any]) -> dict[str, Any]:
    """What the projection of these events (one game's log, by seq) must hold.

    finished_at follows the service's rule (games.times.finished_at_after): the time of the
    write that brought the game to its present end (won, abandoned, or blocked), kept
    while it stays there, cleared when an undo makes it playable again. A write's events
    share their `at`, so the log's writes are its runs of equal `at`; `writes` holds the
    game as each of them left it, the creation first (what a race's events say of the
    game, service/verify/races.py). Raises ValueError for a log that cannot be replayed.
    """
    if not events:
        raise ValueError("the game has no events")
    seqs = [e["seq"] for e in events]
    if seqs != list(range(1, len(events) + 1)):
        raise ValueError(f"the log's seqs are not 1..{len(events)} without gaps")
    first = events[0]
    if first["type"] != GAME_CREATED:
        raise ValueError(f"the log starts with {first['type']}, not {GAME_CREATED}")
    data = first["data"]
    try:  # (checked: the opening it says, when it says one, is its deal's)
        game = Game.replay([Event(first["type"], data)], check=True)
    except (EngineError, KeyError, TypeError) as exc:
        raise ValueError(f"GameCreated cannot be replayed: {exc!r}") from None
    finished: datetime | None = None
    before = "playing"  # the status before the write being replayed
    notes: list[str] = []  # what the log gets wrong beyond the rules of each move
    writes: list[Write] = []

    def end_of_write(at: datetime, seq: int) -> None:
        nonlocal finished, before
        finished = finished_at_after(before, game.status, finished, at)
        before = game.status
        writes.append(Write(
            at, game.status, game.moves, game.position.foundation_cards,
            elapsed_ms(first["at"], finished), finished is not None and finished == at,
        ))
        if game.autoplay and not game.is_over:
            left = game.position.auto_move()
            if left is not None:
                notes.append(
                    f"autoplay is on, but after event {seq} the automatic move {left} was"
                    " not played"
                )

    write_at = first["at"]
    last_seq, last_played = 1, 0
    for e in events[1:]:
        if e["at"] != write_at:
            end_of_write(write_at, last_seq)
            write_at = e["at"]
        last_seq = e["seq"]
        if e["type"] == CARD_MOVED and e["data"].get("auto") and not game.autoplay:
            notes.append(f"event {e['seq']} is an automatic move, but autoplay is off")
        if (said := played_ms(first["at"], e["at"], e["data"])) > whole_ms(first["at"], e["at"]):
            notes.append(f"event {e['seq']} says it was played {said} ms after the game's"
                         " creation, after it was recorded")
        if is_players(e["type"], e["data"]):
            if said < last_played:
                notes.append(f"event {e['seq']} says it was played {said} ms after the game's"
                             f" creation, before the player's action before it ({last_played}"
                             " ms): times go forward")
            last_played = said
        try:
            game.apply(Event(e["type"], e["data"]), check=True)
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"event {e['seq']} ({e['type']}) breaks the rules: {exc}") from None
    end_of_write(write_at, last_seq)
    return {
        "player_id": _uuid(data.get("player_id")),
        "variant": game.variant,
        "deal": game.deal,
        "autoplay": game.autoplay,
        "status": game.status,
        "version": game.version,
        "moves": game.moves,
        "undos": game.undos,
        "hints": game.hints,
        "assisted": game.assisted,  # the engine's rule (a hint gave something away)
        "foundation_cards": game.position.foundation_cards,
        "created_at": first["at"],
        "updated_at": events[-1]["at"],
        "finished_at": finished,
        "elapsed_ms": elapsed_ms(first["at"], finished),
        "pace_ms": pace_ms(events),
        "notes": notes,
        "writes": writes,
    }


def _uuid(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None
