"""The rules engine of the four open patience games: pure Python, no I/O.

Imports only the standard library and ``pysol_cards`` (for the deals).  See RULES.md for the
rules, :mod:`engine.events` for the event vocabulary and :mod:`engine.status` for a game's
statuses (:func:`clock_stopped`: won, blocked or abandoned, the game's clock stops).
"""

from __future__ import annotations

from engine.cards import DECK, Card
from engine.deals import MAX_DEAL
from engine.errors import (
    EngineError,
    GameOver,
    IllegalMove,
    InvalidDeal,
    InvalidMove,
    NothingToRedo,
    NothingToUndo,
    UnknownVariant,
)
from engine.game import EVENT_TYPES, Event, Game
from engine.moves import Move
from engine.position import LegalMoves, Position
from engine.status import END_STATUSES, STATUSES, clock_stopped
from engine.variants import (
    VARIANTS,
    BakersDozen,
    BakersGame,
    BeleagueredCastle,
    FreeCell,
    find_variant,
)

__all__ = [
    "DECK",
    "END_STATUSES",
    "EVENT_TYPES",
    "MAX_DEAL",
    "STATUSES",
    "VARIANTS",
    "BakersDozen",
    "BakersGame",
    "BeleagueredCastle",
    "Card",
    "EngineError",
    "Event",
    "FreeCell",
    "Game",
    "GameOver",
    "IllegalMove",
    "InvalidDeal",
    "InvalidMove",
    "LegalMoves",
    "Move",
    "NothingToRedo",
    "NothingToUndo",
    "Position",
    "UnknownVariant",
    "clock_stopped",
    "find_variant",
]
