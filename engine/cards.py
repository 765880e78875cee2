"""Cards: 52 interned, immutable singletons.

Text form is rank ``A23456789TJQK`` followed by suit ``SHDC`` (``"TH"`` is the ten of
hearts), the notation of PySolFC and Freecell Solver.  ``Card(rank, suit)`` and
``Card.parse(text)`` both return the one shared instance, so cards compare by identity.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from engine.errors import InvalidMove

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS: Final = frozenset("HD")
RANK_NAMES: Final = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ACE: Final = 1
KING: Final = 13


class Card:
    """A playing card.  There are exactly 52 instances; construction returns them."""

    __slots__ = ("color", "index", "label", "rank", "red", "suit", "text")

    rank: int
    suit: str
    red: bool
    color: str
    text: str
    label: str
    index: int

    _by_key: ClassVar[dict[tuple[int, str], Card]] = {}
    _by_text: ClassVar[dict[str, Card]] = {}

    def __new__(cls, rank: int, suit: str) -> Card:
        try:
            return cls._by_key[(rank, suit)]
        except (KeyError, TypeError):
            raise InvalidMove(f"no such card: rank {rank!r}, suit {suit!r}") from None

    @classmethod
    def _make(cls, rank: int, suit: str) -> Card:
        card = object.__new__(cls)
        red = suit in RED_SUITS
        values = {
            "rank": rank,
            "suit": suit,
            "red": red,
            "color": "red" if red else "black",
            "text": RANKS[rank - 1] + suit,
            "label": RANK_NAMES[rank] + SUIT_SYMBOLS[suit],
            "index": SUITS.index(suit) * 13 + rank - 1,
        }
        for name, value in values.items():
            object.__setattr__(card, name, value)
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        """The card named by ``text`` (``"TH"``; ``"10H"`` and lower case are accepted too)."""
        if not isinstance(text, str):
            raise InvalidMove(f"{text!r} is not a card (write it as TH)")
        card = cls._by_text.get(text)
        if card is not None:
            return card
        norm = text.strip().upper()
        if norm.startswith("10"):
            norm = "T" + norm[2:]
        card = cls._by_text.get(norm)
        if card is not None:
            return card
        raise InvalidMove(f"{text!r} is not a card (rank A23456789TJQK then suit SHDC, as TH)")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("cards are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Card, (self.rank, self.suit))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({self.text!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index


def _build() -> tuple[Card, ...]:
    deck = []
    for suit in SUITS:
        for rank in range(1, 14):
            card = Card._make(rank, suit)
            Card._by_key[(rank, suit)] = card
            Card._by_text[card.text] = card
            deck.append(card)
    return tuple(deck)


DECK: Final[tuple[Card, ...]] = _build()
"""All 52 cards, spades then hearts, diamonds, clubs, each from ace to king."""
