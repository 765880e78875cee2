"""A game's plain values out: the game, a move, an event of its log as the answers show
them (times as the database gave them), and what of the log is shown to nobody."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Final

from engine import Move
from service.database.store import StoredEvent
from service.games.live_game import LiveGame
from service.games.times import whole_ms

# What the log keeps for the service alone: a hint's whole winning line (HintGiven's
# "line"), so that the next hint along it is a lookup on any instance. Shown to nobody:
# a line read off one game's log would play any other game of the deal.
PRIVATE: Final = {"HintGiven": frozenset({"line"})}


def elapsed_ms(created_at: datetime, finished_at: datetime | None) -> int | None:
    """Whole milliseconds from creation to the end, never negative (as the database's
    game_elapsed_ms computes them)."""
    return None if finished_at is None else whole_ms(created_at, finished_at)


def game_view(game_id: uuid.UUID, live: LiveGame, max_events: int) -> dict[str, Any]:
    """The game as answers show it; an undo or a redo it cannot take for a full log (409
    log-full) is not offered."""
    g = live.game
    room = live.room(max_events) > 0
    return {
        "id": game_id,
        "player_id": live.player_id,
        "variant": g.variant,
        "deal": g.deal,
        "autoplay": g.autoplay,
        "status": g.status,
        "version": g.version,
        "moves": g.moves,
        "undos": g.undos,
        "hints": g.hints,
        "assisted": g.assisted,
        "foundation_cards": g.position.foundation_cards,
        "can_undo": g.can_undo and room,
        "can_redo": g.can_redo and room,
        "created_at": live.created_at,
        "finished_at": live.finished_at,
        "elapsed_ms": elapsed_ms(live.created_at, live.finished_at),
        "state": g.position.to_dict(),
        "race_id": live.race_id,
    }


def move_view(m: Move) -> dict[str, Any]:
    return {"from": m.source, "to": m.target, "count": m.count}


def public_data(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    private = PRIVATE.get(kind)
    if private is None or not private & data.keys():
        return data
    return {k: v for k, v in data.items() if k not in private}


def event_view(e: StoredEvent) -> dict[str, Any]:
    return {"seq": e.seq, "type": e.type, "at": e.at, "data": public_data(e.type, e.data)}
