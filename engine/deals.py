"""Opening layouts, dealt by ``pysol_cards`` from the Microsoft shuffle ("ms" deals).

Deal ``N`` of every game is Microsoft shuffle number ``N`` dealt by that game's own rules
(RULES.md): FreeCell and Baker's Game 8 columns of 7, 7, 7, 7, 6, 6, 6, 6; Baker's Dozen 13
columns of 4 with the kings then put at the buried end of their column as PySolFC does it;
Beleaguered Castle the aces to the foundations first, then 48 cards in 8 rows of 6.
Layouts are cached as immutable tuples, so replaying a game does not shuffle again.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from pysol_cards.deal_game import Game as _PysolGame  # type: ignore[import-untyped]
from pysol_cards.random_base import RandomBase  # type: ignore[import-untyped]

from engine.cards import Card
from engine.errors import InvalidDeal

MAX_DEAL: Final = 8589934591  # 2**33 - 1, the range of the Microsoft generator
_PYSOL_SUITS: Final = "CSHD"  # pysol_cards' suit numbering

Layout = tuple[tuple[tuple[Card, ...], ...], tuple[tuple[str, int], ...]]
"""(columns, each buried card first; foundations as (suit, top rank) pairs)."""


def check_deal_number(number: object) -> int:
    """``number`` if it is a deal number 1..MAX_DEAL, else InvalidDeal."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise InvalidDeal(f"a deal number is a whole number from 1 to {MAX_DEAL}, not {number!r}")
    if not 1 <= number <= MAX_DEAL:
        raise InvalidDeal(f"deal numbers run from 1 to {MAX_DEAL}; there is no deal {number}")
    return number


def deal_layout(game_id: str, number: int) -> Layout:
    """The opening layout of deal ``number`` of pysol_cards' game ``game_id``."""
    return _deal_layout(game_id, check_deal_number(number))


@lru_cache(maxsize=4096)
def _deal_layout(game_id: str, number: int) -> Layout:
    game = _PysolGame(game_id, number, RandomBase.DEALS_MS)
    game.deal()
    getattr(game, game.game_class)()
    board = game.board
    columns = tuple(
        tuple(Card(c.rank, _PYSOL_SUITS[c.suit]) for c in column) for column in board.columns.cols
    )
    foundations: dict[str, int] = dict.fromkeys("SHDC", 0)
    if board.with_foundations:
        for top in board.foundations:
            if not top.empty:
                foundations[_PYSOL_SUITS[top.suit]] = top.rank
    return columns, tuple(foundations.items())
