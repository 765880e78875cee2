"""Board text in Freecell Solver's format."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import VARIANTS, BeleagueredCastle, Card, FreeCell, InvalidMove, Move

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize("name", list(VARIANTS))
def test_round_trip(name: str) -> None:
    cls = VARIANTS[name]
    pos = cls.deal(617)
    rng = random.Random(617)
    for _ in range(20):
        if not pos.legal_moves:
            break
        pos.play(rng.choice(list(pos.legal_moves)))
        text = pos.board_text()
        assert cls.from_board_text(text) == pos


def test_format_of_our_text() -> None:
    pos = FreeCell.deal(1)
    pos.play(Move("t2", "c"))
    lines = pos.board_text().splitlines()
    assert lines[0] == "Foundations: H-0 C-0 D-0 S-0"
    assert lines[1] == "Freecells: 9C - - -"
    assert lines[2] == ": JD KD 2S 4C 3S 6D 6S"
    assert BeleagueredCastle.deal(1).board_text().splitlines()[0] == "Foundations: H-A C-A D-A S-A"


def test_reads_fc_solve_printed_state() -> None:
    # fc-solve -p prints cells as fixed 4-character fields and columns after ": "
    text = (DATA / "fcsolve_state.txt").read_text()
    pos = FreeCell.from_board_text(text)
    assert pos.cells == [None, Card.parse("9C"), None, Card.parse("8S")]
    assert pos.tableau[2] == []
    assert pos.foundations == {"S": 0, "H": 0, "D": 0, "C": 0}


def test_reads_foundations_and_plain_columns() -> None:
    text = "Foundations: H-2 C-A D-0 S-T\nFreecells: - 3D\n" + "\n".join(
        ["KS QS JS", "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H", "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
         "KD QD JD TD 9D 8D 7D 6D 5D 4D 2D AD"]
    )  # fmt: skip
    pos = FreeCell.from_board_text(text)
    assert pos.foundations == {"S": 10, "H": 2, "C": 1, "D": 0}
    assert pos.cells[1] == Card.parse("3D")
    assert pos.tableau[4:] == [[], [], [], []]


@pytest.mark.parametrize(
    "text",
    [
        "Foundations: H-0 C-0 D-0 S-0\n: AH\n",  # cards missing
        FreeCell.deal(1).board_text() + ": AH\n",  # 9 columns
        FreeCell.deal(1).board_text().replace("JD", "JS", 1),  # a card twice
        "Foundations: X-3\n",
        FreeCell.deal(1).board_text().replace("Freecells: - - - -", "Freecells: - - - - AH"),
        FreeCell.deal(1).board_text().replace("JD", "ZZ", 1),
    ],
)
def test_bad_board_text(text: str) -> None:
    with pytest.raises(InvalidMove):
        FreeCell.from_board_text(text)
