"""The rules of the four games, on positions built from board text."""

from __future__ import annotations

import pytest

from engine import (
    BakersDozen,
    BakersGame,
    BeleagueredCastle,
    Card,
    EngineError,
    FreeCell,
    IllegalMove,
    InvalidMove,
    Move,
)
from tests.engine.engine_helpers import board

# ---------------------------------------------------------------- building in each game


def test_bakers_game_builds_in_suit() -> None:
    pos = board(BakersGame, ["8H", "7H", "8C", "*", "*", "*", "*", "*"])
    assert pos.check(Move("t2", "t1")) == Move("t2", "t1")
    with pytest.raises(IllegalMove, match="7♥ cannot go on 8♣: columns build down in suit"):
        pos.check(Move("t2", "t3"))



def test_a_refusal_names_every_rule_the_move_breaks() -> None:
    """A card wrong in rank and in colour (or suit) is told the whole rule, so that mending
    one is not refused again for the other; one wrong only in colour is told that."""

    def refusal(pos: object, move: Move) -> str:
        with pytest.raises(IllegalMove) as refused:
            pos.check(move)  # type: ignore[attr-defined]
        return str(refused.value)

    rows = ["KC", "KS", "8S", "7S", "*", "*", "*", "*"]
    assert refusal(board(FreeCell, rows), Move("t2", "t1")) == (
        "K♠ cannot go on K♣: columns build down one rank at a time, in alternating colours")
    assert refusal(board(FreeCell, rows), Move("t4", "t3")) == (
        "7♠ cannot go on 8♠: columns build down in alternating colours")
    rows = ["JD", "6C", "*", "*", "*", "*", "*", "*"]
    assert refusal(board(BakersGame, rows), Move("t2", "t1")) == (
        "6♣ cannot go on J♦: columns build down in suit, one rank at a time")
    castle = board(BeleagueredCastle, ["4D", "8D", "*", "*", "*", "*", "*", "*"],
                   foundations=dict.fromkeys("SHDC", 1))
    assert refusal(castle, Move("t2", "t1")) == (
        "8♦ cannot go on 4♦: a card goes only on a card one rank higher (any suit)")
    dozen = board(BakersDozen, ["AH", "2C", *["*"] * 11])
    assert refusal(dozen, Move("t2", "t1")) == "2♣ cannot go on A♥: nothing goes on an ace"


def test_bakers_dozen_builds_regardless_of_suit() -> None:
    pos = board(BakersDozen, ["8H", "7C", "KS 8D", *["*"] * 10])
    assert Move("t2", "t1") in pos.legal_moves
    assert Move("t2", "t3") in pos.legal_moves


def test_beleaguered_castle_builds_regardless_of_colour() -> None:
    pos = board(BeleagueredCastle, ["8C", "7H", *["*"] * 6], foundations=dict.fromkeys("SHDC", 1))
    assert pos.play(Move("t2", "t1")) == Move("t2", "t1")
    assert [c.text for c in pos.tableau[0]] == ["8C", "7H"]
    assert pos.tableau[1] == []


def test_freecell_builds_in_alternating_colours() -> None:
    pos = board(FreeCell, ["8S", "7H", "8H", "8D", "*", "*", "*", "*"])
    assert Move("t2", "t1") in pos.legal_moves
    with pytest.raises(IllegalMove, match="7♥ cannot go on 8♥: columns build down in alternating"):
        pos.check(Move("t2", "t3"))
    with pytest.raises(IllegalMove, match="8♦ cannot go on 8♥: columns build down one rank at a"):
        pos.check(Move("t4", "t3"))


def test_wrong_rank_is_refused_with_reason() -> None:
    pos = board(FreeCell, ["9S", "7H", "*", "*", "*", "*", "*", "*"])
    with pytest.raises(IllegalMove, match="7♥ cannot go on 9♠: columns build down one rank"):
        pos.check(Move("t2", "t1"))
    bd = board(BakersDozen, ["AH", "KC", *["*"] * 11])
    with pytest.raises(IllegalMove, match="K♣ cannot go on A♥"):
        bd.check(Move("t2", "t1"))


# ---------------------------------------------------------------- FreeCell supermoves


def test_freecell_run_onto_nine_with_two_empty_cells() -> None:
    columns = ["8S 7H 6C", "9D", "*", "*", "*", "*", "*", "*"]
    pos = board(FreeCell, columns, cells="AS AH - -")
    assert pos.run_capacity("t2") == 3
    assert pos.play(Move("t1", "t2", 3)) == Move("t1", "t2", 3)
    assert [c.text for c in pos.tableau[1]] == ["9D", "8S", "7H", "6C"]
    one_cell = board(FreeCell, columns, cells="AS AH AD -")
    with pytest.raises(IllegalMove, match="at most 2 cards can move onto a column, not 3"):
        one_cell.check(Move("t1", "t2", 3))


def test_freecell_one_cell_one_empty_column() -> None:
    columns = ["KS QH JC TD 9S 8H", "QD", "", "KC", "*", "*", "*", "*"]
    pos = board(FreeCell, columns, cells="AS AH AD -")
    assert pos.run_capacity("t2") == 4
    assert pos.run_capacity("t3") == 2
    assert Move("t1", "t2", 4) in pos.legal_moves
    with pytest.raises(IllegalMove, match="at most 4 cards can move onto a column, not 5"):
        pos.check(Move("t1", "t4", 5))
    assert Move("t1", "t3", 2) in pos.legal_moves
    with pytest.raises(IllegalMove, match=r"at most 2 cards can move into an empty column"):
        pos.check(Move("t1", "t3", 3))


def test_freecell_capacity_four_onto_a_card() -> None:
    columns = ["KS 8H 7C 6H 5S", "9C", "", "*", "*", "*", "*", "*"]
    pos = board(FreeCell, columns, cells="AS AH AD -")
    assert Move("t1", "t2", 4) in pos.legal_moves
    assert Move("t1", "t3", 4) not in pos.legal_moves
    assert Move("t1", "t3", 2) in pos.legal_moves


def test_freecell_two_cells_one_empty_column_move_six() -> None:
    columns = ["KH 8S 7H 6S 5H 4S 3H", "9D", "", "*", "*", "*", "*", "*"]
    pos = board(FreeCell, columns, cells="AS AC - -")
    assert pos.run_capacity("t2") == 6
    assert pos.play(Move("t1", "t2", 6)) == Move("t1", "t2", 6)
    seven = board(
        FreeCell, ["9C 8H 7S 6H 5S 4H 3S", "TD", "", "*", "*", "*", "*", "*"], "AS AC - -"
    )
    with pytest.raises(IllegalMove, match="at most 6 cards"):
        seven.check(Move("t1", "t2", 7))


def test_freecell_run_must_be_a_proper_run() -> None:
    pos = board(FreeCell, ["8S 7H 6H", "9D", *["*"] * 6])
    with pytest.raises(IllegalMove, match="not a run"):
        pos.check(Move("t1", "t2", 3))
    with pytest.raises(IllegalMove, match="holds only"):
        board(FreeCell, ["8S", "9D", *["*"] * 6]).check(Move("t1", "t2", 2))


def test_whole_column_moves_to_an_empty_column_within_capacity() -> None:
    pos = board(FreeCell, ["5H 4S", "", *["*"] * 6])
    assert Move("t1", "t2", 2) in pos.legal_moves
    assert Move("t1", "t2", 2) in pos.legal_moves


# ---------------------------------------------------------------- one card per move


@pytest.mark.parametrize(
    ("cls", "columns", "reason"),
    [
        (BakersGame, ["8H 7H", "9H", *["*"] * 6], "one card at a time in Baker's Game"),
        (BakersDozen, ["8H 7H", "9H", *["*"] * 11], "one card at a time in Baker's Dozen"),
        (BeleagueredCastle, ["8H 7H", "9H", *["*"] * 6], "one card at a time in Beleaguered"),
    ],
)
def test_one_card_per_move(cls: type, columns: list[str], reason: str) -> None:
    found = dict.fromkeys("SHDC", 1) if cls is BeleagueredCastle else None
    pos = board(cls, columns, foundations=found)
    with pytest.raises(IllegalMove, match=reason):
        pos.check(Move("t1", "t2", 2))


# ---------------------------------------------------------------- empty columns


def test_nothing_enters_an_empty_bakers_dozen_column() -> None:
    pos = board(BakersDozen, ["KH", "", *["*"] * 11])
    with pytest.raises(IllegalMove, match="an empty column stays empty in Baker's Dozen"):
        pos.check(Move("t1", "t2"))
    assert not any(m.target == "t2" for m in pos.legal_moves)


@pytest.mark.parametrize("cls", [FreeCell, BakersGame, BeleagueredCastle])
def test_empty_column_takes_any_card(cls: type) -> None:
    found = dict.fromkeys("SHDC", 1) if cls is BeleagueredCastle else None
    pos = board(cls, ["5D", "", *["*"] * 6], foundations=found)
    assert Move("t1", "t2") in pos.legal_moves


def test_empty_row_word_in_beleaguered_castle() -> None:
    pos = board(BeleagueredCastle, ["", "5D", *["*"] * 6], foundations=dict.fromkeys("SHDC", 1))
    with pytest.raises(IllegalMove, match="row 1 is empty"):
        pos.check(Move("t1", "t2"))


# ---------------------------------------------------------------- cells


def test_a_cell_holds_one_card() -> None:
    pos = board(FreeCell, ["5D", *["*"] * 7], cells="7H - - -")
    with pytest.raises(IllegalMove, match="a cell holds one card: cell 1 holds 7♥"):
        pos.check(Move("t1", "c1"))
    with pytest.raises(IllegalMove, match="a cell holds one card"):
        board(FreeCell, ["5D 4C", *["*"] * 7]).check(Move("t1", "c1", 2))
    full = board(FreeCell, ["5D", *["*"] * 7], cells="7H 7S 7D 7C")
    with pytest.raises(IllegalMove, match="every cell is full"):
        full.check(Move("t1", "c"))


def test_target_c_is_the_first_empty_cell() -> None:
    pos = board(FreeCell, ["5D", *["*"] * 7], cells="7H - 7S -")
    assert pos.check(Move("t1", "c")) == Move("t1", "c2")
    assert pos.play(Move("t1", "c")) == Move("t1", "c2")
    assert pos.move_stack == [Move("t1", "c2")]
    assert Move("t1", "c4") in board(FreeCell, ["5D", *["*"] * 7], "7H - 7S -").legal_moves


def test_cell_to_cell_allowed_in_freecell_not_in_bakers_game() -> None:
    fc = board(FreeCell, ["*"] * 8, cells="7H - - -")
    assert fc.play(Move("c1", "c3")) == Move("c1", "c3")
    assert fc.cells[2] is not None and fc.cells[0] is None
    bg = board(BakersGame, ["*"] * 8, cells="7H - - -")
    with pytest.raises(IllegalMove, match="cannot go to another cell in Baker's Game"):
        bg.check(Move("c1", "c2"))


def test_cell_card_goes_back_to_a_column() -> None:
    pos = board(BakersGame, ["8H", *["*"] * 7], cells="7H - - -")
    assert pos.play(Move("c1", "t1")) == Move("c1", "t1")
    assert pos.cells == [None] * 4


def test_empty_cell_and_no_cells() -> None:
    pos = board(FreeCell, ["*"] * 8)
    with pytest.raises(IllegalMove, match="cell 2 is empty"):
        pos.check(Move("c2", "t1"))
    bd = board(BakersDozen, ["*"] * 13)
    with pytest.raises(InvalidMove, match="has no cells"):
        bd.check(Move("t1", "c1"))
    with pytest.raises(InvalidMove, match="has no cells"):
        bd.check(Move("t1", "c"))


# ---------------------------------------------------------------- foundations


def test_no_card_leaves_a_foundation() -> None:
    for cls in (FreeCell, BakersGame, BeleagueredCastle):
        pos = board(cls, ["*"] * 8, foundations={"H": 3, "S": 1, "D": 1, "C": 1})
        with pytest.raises(IllegalMove, match="a card on a foundation never leaves it"):
            pos.check(Move("f", "t1"))
    bd = board(BakersDozen, ["*"] * 13, foundations={"H": 3})
    with pytest.raises(IllegalMove, match="never leaves"):
        bd.check(Move("f", "t1"))


def test_foundation_takes_the_next_card_of_its_suit() -> None:
    pos = board(FreeCell, ["3H", "5H", "2C 4C", *["*"] * 5], foundations={"H": 2})
    assert pos.play(Move("t1", "f")) == Move("t1", "f")
    assert pos.foundations["H"] == 3
    with pytest.raises(IllegalMove, match="5♥ cannot go to its foundation before 4♥"):
        pos.check(Move("t2", "f"))
    with pytest.raises(IllegalMove, match="one at a time"):
        board(FreeCell, ["3S 2H", *["*"] * 7], foundations={"H": 1}).check(Move("t1", "f", 2))


# ---------------------------------------------------------------- malformed moves


@pytest.mark.parametrize(
    ("cls", "move", "match"),
    [
        (FreeCell, Move("t9", "t1"), "no t9"),
        (FreeCell, Move("t1", "t9"), "no t9"),
        (BakersDozen, Move("t13", "t14"), "not a pile"),
        (BeleagueredCastle, Move("t1", "c1"), "no cells"),
        (FreeCell, Move("t1", "t2", 0), "at least one card"),
        (FreeCell, Move("t1", "t2", -2), "at least one card"),
        (FreeCell, Move("c", "t1"), "not a pile to take cards from"),
        (FreeCell, Move("t1", "x5"), "not a pile"),
    ],
)
def test_malformed_moves_are_invalid(cls: type, move: Move, match: str) -> None:
    found = dict.fromkeys("SHDC", 1) if cls is BeleagueredCastle else None
    pos = board(cls, ["*"] * cls.column_count, foundations=found)
    with pytest.raises(InvalidMove, match=match):
        pos.check(move)


@pytest.mark.parametrize(("pile", "word"), [("t1", "column 1"), ("c2", "cell 2")])
def test_a_pile_moved_onto_itself_is_illegal(pile: str, word: str) -> None:
    pos = board(FreeCell, ["*"] * 8, cells="- AS - -")
    move = Move.parse(f"{pile}-{pile}")
    with pytest.raises(IllegalMove, match=f"{word} cannot take its own card"):
        pos.check(move)
    assert move not in pos.legal_moves


def test_empty_source_column_is_illegal() -> None:
    pos = board(FreeCell, ["", "", "", *["*"] * 5])
    with pytest.raises(IllegalMove, match="column 3 is empty"):
        pos.check(Move("t3", "t4"))


def test_error_hierarchy() -> None:
    assert issubclass(InvalidMove, EngineError)
    assert issubclass(IllegalMove, EngineError)
    assert issubclass(EngineError, ValueError)
    assert not issubclass(IllegalMove, InvalidMove)


# ---------------------------------------------------------------- automatic moves


def test_freecell_auto_needs_both_other_colour_foundations() -> None:
    pos = board(FreeCell, ["2H", *["*"] * 7], foundations={"H": 1, "S": 1})
    assert not pos.is_auto_safe(Card.parse("2H"))
    assert pos.auto_move() != Move("t1", "f")
    pos = board(FreeCell, ["2H", *["*"] * 7], foundations={"H": 1, "S": 1, "C": 1})
    assert pos.auto_move() == Move("t1", "f")


def test_bakers_game_auto_always() -> None:
    pos = board(BakersGame, ["5H", *["*"] * 7], foundations={"H": 4})
    assert pos.auto_move() == Move("t1", "f")


@pytest.mark.parametrize("cls", [BakersDozen, BeleagueredCastle])
def test_auto_needs_all_four_foundations(cls: type) -> None:
    n = cls.column_count
    found = {"H": 2, "S": 2, "D": 2, "C": 1}
    pos = board(cls, ["3H", *["*"] * (n - 1)], foundations=found)
    assert not pos.is_auto_safe(Card.parse("3H"))
    assert pos.auto_move() != Move("t1", "f")
    pos = board(cls, ["3H", *["*"] * (n - 1)], foundations={**found, "C": 2})
    assert pos.auto_move() == Move("t1", "f")


def test_auto_ace_and_from_cells() -> None:
    pos = board(FreeCell, ["*"] * 8, cells="- AD - -")
    assert pos.auto_move() == Move("c2", "f")


# ---------------------------------------------------------------- outcome


def test_outcome_won_and_blocked() -> None:
    won = board(FreeCell, [""] * 8, foundations=dict.fromkeys("SHDC", 13))
    assert won.outcome == "won"
    assert won.foundation_cards == 52
    tops = ["3S", "3H", "3D", "3C", "5S", "5H", "5D", "5C", "7S", "7H", "7D", "7C", "9S"]
    others = [c for c in (f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK") if c not in tops]
    columns = [" ".join([*others[3 * i : 3 * i + 3], tops[i]]) for i in range(13)]
    blocked = board(BakersDozen, columns)
    assert len(blocked.legal_moves) == 0
    assert blocked.outcome == "blocked"
    assert FreeCell.deal(1).outcome == "playing"
