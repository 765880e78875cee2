"""The rules engine of the four open patience games: pure Python, no I/O.

Imports only the standard library and ``pysol_cards`` (for the deals).  See RULES.md for the
rules and :mod:`engine.game` for the event vocabulary.
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
    "EVENT_TYPES",
    "MAX_DEAL",
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
    "find_variant",
]
