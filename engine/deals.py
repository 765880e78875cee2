"""Opening layouts, dealt by ``pysol_cards`` from the Microsoft shuffle ("ms" deals).

Deal ``N`` of every game is Microsoft shuffle number ``N`` dealt by that game's own rules
(RULES.md): FreeCell and Baker's Game 8 columns of 7, 7, 7, 7, 6, 6, 6, 6; Baker's Dozen 13
columns of 4 dealt round as pysol_cards deals them, then in each column the kings moved to
the buried end with the other cards and the kings each keeping their order (a stable
partition, kings first, as seed 002 says; PySolFC and pysol_cards instead swap each king
with the lowest non-king, which reorders the others); Beleaguered Castle the aces to the
foundations first, then 48 cards in 8 rows of 6.
Layouts are cached as immutable tuples, so replaying a game does not shuffle again.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from pysol_cards.deal_game import Game as _PysolGame  # type: ignore[import-untyped]
from pysol_cards.random_base import RandomBase  # type: ignore[import-untyped]

from engine.cards import KING, Card
from engine.errors import InvalidDeal

MAX_DEAL: Final = 8589934591  # 2**33 - 1, the range of the Microsoft generator
_PYSOL_SUITS: Final = "CSHD"  # pysol_cards' suit numbering
_BAKERS_DOZEN_COLUMNS: Final = 13

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
    if game_id == "bakers_dozen":
        return _bakers_dozen_layout(game.cards), tuple(dict.fromkeys("SHDC", 0).items())
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


def _bakers_dozen_layout(shuffled: list[object]) -> tuple[tuple[Card, ...], ...]:
    """Baker's Dozen's columns (seed 002): the cards dealt round 13 columns of 4 in the order
    pysol_cards deals them (the reverse of ``shuffled``, its cards after ``Game.deal``), then
    in each column every king moved to the buried end, the other cards and the kings each
    keeping their order (a stable partition, kings first).  pysol_cards' own
    ``bakers_dozen`` swaps each king with the lowest non-king instead, which reorders the
    other cards: deal 1's fourth column, buried card first, is 6S TH AH KC as dealt, KC TH AH
    6S there, and KC 6S TH AH here."""
    cards = [Card(c.rank, _PYSOL_SUITS[c.suit]) for c in reversed(shuffled)]  # type: ignore[attr-defined]
    columns: list[tuple[Card, ...]] = []
    for j in range(_BAKERS_DOZEN_COLUMNS):
        dealt = cards[j::_BAKERS_DOZEN_COLUMNS]
        kings = [c for c in dealt if c.rank == KING]
        others = [c for c in dealt if c.rank != KING]
        columns.append(tuple(kings + others))
    return tuple(columns)
