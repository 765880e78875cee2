"""The four games, by id."""

from __future__ import annotations

from typing import Final

from engine.errors import UnknownVariant
from engine.position import Position
from engine.variants.bakers_dozen import BakersDozen
from engine.variants.bakers_game import BakersGame
from engine.variants.beleaguered_castle import BeleagueredCastle
from engine.variants.freecell import FreeCell

VARIANTS: Final[dict[str, type[Position]]] = {
    cls.name: cls for cls in (FreeCell, BakersGame, BakersDozen, BeleagueredCastle)
}


def find_variant(name: str) -> type[Position]:
    """The game class called ``name`` (``"freecell"``...); UnknownVariant (an InvalidMove)."""
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise UnknownVariant(
            f"no game called {name!r}: choose one of {', '.join(VARIANTS)}"
        ) from None


__all__ = [
    "VARIANTS",
    "BakersDozen",
    "BakersGame",
    "BeleagueredCastle",
    "FreeCell",
    "find_variant",
]
