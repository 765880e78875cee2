"""The events that record a game: their types, their data, and :class:`Event`.

Events are plain data (a type and a JSON-able dict) that the service stores verbatim;
:meth:`engine.game.Game.replay` rebuilds the game from them.  Event types and their ``data``:

``GameCreated``   ``{"variant": "freecell", "deal": 617, "autoplay": true, "state": {...}}``
                  ``state`` is the opening layout, as a position's ``to_dict`` writes
                  it: the log replays without the deal's dealing, and a log that holds
                  no ``state`` (older ones) replays on the deal's layout.
``CardMoved``     ``{"from": "t3", "to": "c1", "count": 1, "card": "7H", "auto": false}``
                  ``card`` is the deepest card moved (the one the player picked up);
                  ``auto`` is true for an automatic move to the foundations.
``MoveUndone``    ``{"moves": [{"from", "to", "count", "card", "auto"}, ...]}`` the moves
                  taken back, last played first: the player move comes last, after the
                  automatic moves that followed it.
``MoveRedone``    ``{"from", "to", "count", "card"}`` the player move played again; its
                  automatic moves follow as ``CardMoved`` events with ``auto`` true.
``GameWon``       ``{}``
``GameAbandoned`` ``{}``
``HintGiven``     ``{"verdict": "winnable", "move": {"from", "to", "count"} | null,
                  "moves_to_win": 87 | null, "line": ["t3-t5", ...]}`` a hint the player
                  asked for; it changes nothing on the board, and makes the game
                  assisted unless it gave nothing away (:func:`hint_assists`: an
                  ``unknown`` verdict with ``move`` null). ``line`` (the player moves of
                  the winning line, kept so that the next hint along it is a lookup) is
                  the service's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from engine.errors import InvalidMove
from engine.moves import Move

GAME_CREATED: Final = "GameCreated"
CARD_MOVED: Final = "CardMoved"
MOVE_UNDONE: Final = "MoveUndone"
MOVE_REDONE: Final = "MoveRedone"
GAME_WON: Final = "GameWon"
GAME_ABANDONED: Final = "GameAbandoned"
HINT_GIVEN: Final = "HintGiven"
EVENT_TYPES: Final = (
    GAME_CREATED,
    CARD_MOVED,
    MOVE_UNDONE,
    MOVE_REDONE,
    GAME_WON,
    GAME_ABANDONED,
    HINT_GIVEN,
)


HINT_VERDICTS: Final = ("winnable", "unwinnable", "unknown")


def check_hint_verdict(verdict: object) -> None:
    """InvalidMove unless ``verdict`` is one of :data:`HINT_VERDICTS`."""
    if verdict not in HINT_VERDICTS:
        raise InvalidMove(f"a hint's verdict is one of {', '.join(HINT_VERDICTS)}")


def hint_assists(verdict: object, move: object) -> bool:
    """Whether a hint (its verdict and move, as in HintGiven's data) makes its game
    assisted: it gave something away, a move or a verdict (``winnable``, ``unwinnable``);
    an ``unknown`` verdict with no move gave nothing, and only counts in ``hints``."""
    return move is not None or verdict != "unknown"


def hint_data(verdict: str, move: Move | None, moves_to_win: int | None) -> dict[str, Any]:
    """A ``HintGiven`` event's data (without the service's ``line``); InvalidMove if the
    verdict is none of :data:`HINT_VERDICTS`."""
    check_hint_verdict(verdict)
    return {
        "verdict": verdict,
        "move": None
        if move is None
        else {"from": move.source, "to": move.target, "count": move.count},
        "moves_to_win": moves_to_win,
    }


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a game's log: ``type`` (see the module docstring) and JSON-able ``data``."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "data": self.data}

    @classmethod
    def from_dict(cls, item: Mapping[str, Any]) -> Event:
        """An event from ``{"type": ..., "data": {...}}`` (other keys, as ``seq``, ignored)."""
        return cls(item["type"], dict(item.get("data") or {}))
