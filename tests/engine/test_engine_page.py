"""What the web page asks of a position (engine/page.py): the move for a card it names,
the move of a pile's card to `auto`, where a card may go."""

from __future__ import annotations

import pytest

from engine import VARIANTS, BakersDozen, BakersGame, FreeCell, IllegalMove, InvalidMove, Move
from tests.engine.engine_helpers import board

# ---------------------------------------------------------------- cards named by the player


def test_move_for_card() -> None:
    pos = board(FreeCell, ["KS 8S 7H 6C", "9D", "AH", *["*"] * 5], cells="QD - - -")
    assert pos.move_for_card("8S", "t2") == Move("t1", "t2", 3)
    assert pos.move_for_card("AH", "auto") == Move("t3", "f")
    assert pos.move_for_card("6C", "auto") == Move("t1", "c2")
    assert pos.move_for_card("6C", "c") == Move("t1", "c2")
    with pytest.raises(IllegalMove, match="only a single free card"):
        pos.move_for_card("8S", "auto")
    # a card in a cell that cannot go up goes to another cell (API.md: "or else to a free
    # cell"; RULES.md: "a card may go from one cell to another, pointless as that is")
    assert pos.move_for_card("QD", "auto") == Move("c1", "c2")
    with pytest.raises(IllegalMove, match="not a run that can move together: they hold 8♠ on"
                                          " K♠, and 8♠ cannot go on K♠"):
        pos.move_for_card("KS", "t2")
    pos.play(Move("t3", "f"))
    with pytest.raises(IllegalMove, match="A♥ is on its foundation"):
        pos.move_for_card("AH", "t1")
    with pytest.raises(InvalidMove):
        pos.move_for_card("8S", "t42")


def test_move_for_card_one_card_games() -> None:
    pos = board(BakersGame, ["8H 7H 6S", "9H", *["*"] * 6], cells="QD - - -")
    with pytest.raises(IllegalMove, match=r"7♥ is not free.*one card at a time in Baker's Game"):
        pos.move_for_card("7H", "t2")
    # a card in a cell never goes to another in Baker's Game, `auto` included
    with pytest.raises(IllegalMove, match="before J♦, and a card in a cell cannot go to"
                                          " another cell in Baker's Game"):
        pos.move_for_card("QD", "auto")
    assert pos.move_for_card("6S", "auto") == Move("t1", "c2")
    bd = board(BakersDozen, ["8H 7H 6S", *["*"] * 12])
    with pytest.raises(IllegalMove, match="has no cells"):
        bd.move_for_card("6S", "auto")
    # (a game without cells names none where `auto` may send a card)
    with pytest.raises(IllegalMove, match=r"only a single free card goes to its foundation$"):
        bd.move_to_auto("t1", 2)
    full = board(FreeCell, ["6S", *["*"] * 7], cells="7H 7S 7D 7C")
    with pytest.raises(IllegalMove, match="every cell is full"):
        full.move_for_card("6S", "auto")


def test_destinations() -> None:
    pos = board(FreeCell, ["KS 8S 7H 6C", "9D", "", "7D", *["*"] * 4], cells="QD - AS -")
    assert pos.destinations("6C") == ["c2", "c4", "t3", "t4"]
    assert pos.destinations("t1") == ["c2", "c4", "t3", "t4"]
    assert pos.destinations("8S") == ["t2", "t3"]
    assert pos.destinations("KS") == []
    assert pos.destinations("c3") == ["f", "c2", "c4", "t3"]
    bd = board(BakersDozen, ["8H 7H", "", "8C", *["*"] * 10])
    assert bd.destinations("7H") == ["t3"]


def test_move_to_auto() -> None:
    """`to: auto` from a pile: its free card to its foundation, else to the first empty
    cell; more than one card, or an empty pile, is against the rules."""
    pos = board(FreeCell, ["KS 8S 7H 6C", "9D", "AH", "", *["*"] * 4], cells="QD - - -")
    assert pos.move_to_auto("t3") == Move("t3", "f")
    assert pos.move_to_auto("t1", 1) == Move("t1", "c2")
    for count in (2, 7):
        with pytest.raises(IllegalMove, match=f"{count} cards from t1 cannot go to 'auto'"):
            pos.move_to_auto("t1", count)
    with pytest.raises(IllegalMove, match="t4 is empty"):
        pos.move_to_auto("t4")
    assert pos.move_to_auto("c1") == Move("c1", "c2")
    full = board(FreeCell, ["6S", *["*"] * 7], cells="7H 7S 7D 7C")
    with pytest.raises(IllegalMove, match="before 6♥, and every other cell is full"):
        full.move_to_auto("c1")


# ---------------------------------------------------------------- the order a list shows


COLUMNS = [f"t{i}" for i in range(1, 14)]
CELLS = [f"c{i}" for i in range(1, 9)]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_listed_moves_are_the_legal_moves_in_pile_order(variant: str) -> None:
    """By source (columns left to right, then cells), count, then destination in the
    order `destinations` names a card's (the foundation, cells, columns left to right)."""
    for deal in range(1, 40):
        pos = VARIANTS[variant].deal(deal)
        listed = pos.listed_moves()
        assert sorted(map(str, listed)) == sorted(map(str, pos.legal_moves))
        sources = [m.source for m in listed]
        assert sources == sorted(sources, key=[*COLUMNS, *CELLS].index), (deal, listed)
        for source in set(sources):
            mine = [m for m in listed if m.source == source]
            assert [m.count for m in mine] == sorted(m.count for m in mine)
            singles = [m.target for m in mine if m.count == 1]
            assert singles == sorted(singles, key=["f", *CELLS, *COLUMNS].index), singles
            named = [t for t in pos.destinations(source) if not t.startswith("c")]
            assert [t for t in singles if not t.startswith("c")] == named, (deal, source)
