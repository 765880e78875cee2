"""Card and move text."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import DECK, Card, InvalidMove, Move

PILES = [f"t{i}" for i in range(1, 14)] + [f"c{i}" for i in range(1, 5)] + ["f"]


def test_card_text_and_attributes() -> None:
    card = Card.parse("TH")
    assert str(card) == "TH"
    assert (card.rank, card.suit, card.color, card.label) == (10, "H", "red", "10♥")
    assert Card.parse("AS").label == "A♠" and Card.parse("AS").color == "black"
    assert Card.parse("KC").rank == 13 and Card.parse("QD").label == "Q♦"
    assert Card.parse("10h") is card and Card(10, "H") is card


def test_cards_are_interned_frozen_hashable() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    card = DECK[0]
    with pytest.raises(AttributeError):
        card.rank = 2  # type: ignore[misc]
    assert copy.deepcopy(card) is card
    assert pickle.loads(pickle.dumps(card)) is card
    assert {card: 1}[Card.parse(card.text)] == 1


@pytest.mark.parametrize("text", ["", "1H", "TX", "HT", "11H", "T", "THH"])
def test_bad_card_text(text: str) -> None:
    with pytest.raises(InvalidMove):
        Card.parse(text)
    with pytest.raises(InvalidMove):
        Card(14, "H")


@given(st.sampled_from(DECK))
def test_card_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert Card(card.rank, card.suit) is card


def test_move_text() -> None:
    assert str(Move("t3", "t5", 2)) == "t3-t5x2"
    assert str(Move("t3", "c2")) == "t3-c2"
    assert Move.parse("t3-t5x2") == Move("t3", "t5", 2)
    assert Move.parse(" T3-F ") == Move("t3", "f")
    assert Move.parse("t3-t5x1") == Move("t3", "t5")
    assert Move.parse("c1-c") == Move("c1", "c")
    assert Move("t1", "t2").to_dict() == {"from": "t1", "to": "t2", "count": 1}
    assert Move.from_dict({"from": "t1", "to": "c"}) == Move("t1", "c")


@pytest.mark.parametrize(
    "text", ["", "t3", "t3-", "t0-t1", "t14-t1", "c5-t1", "t1-t2x0", "t1-t2x-1", "c-t1",
             "t1-t2x", "x-y", "t1-auto"],
)  # fmt: skip
def test_bad_move_text(text: str) -> None:
    with pytest.raises(InvalidMove):
        Move.parse(text)


def test_bad_move_dict() -> None:
    for data in ({"from": "t1"}, {"from": "t1", "to": "t2", "count": "2"}, {"from": 3, "to": "t1"}):
        with pytest.raises(InvalidMove):
            Move.from_dict(data)


@given(
    st.sampled_from(PILES),
    st.sampled_from([*PILES, "c"]),
    st.integers(1, 20),
)
def test_move_round_trip(source: str, target: str, count: int) -> None:
    move = Move(source, target, count)
    assert Move.parse(str(move)) == move
    assert Move.from_dict(move.to_dict()) == move
