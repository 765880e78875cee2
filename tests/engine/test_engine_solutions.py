"""Won games: Freecell Solver's solutions (FreeCell, Baker's Game, Beleaguered Castle) and
our own search's (Baker's Dozen), played through the engine with autoplay off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import VARIANTS, Game, Move

DATA = Path(__file__).resolve().parent.parent / "data"
SOLUTIONS: dict[str, dict[str, str]] = json.loads((DATA / "solutions.json").read_text())[
    "solutions"
]
CASES = [(game, deal) for game, deals in SOLUTIONS.items() for deal in deals]


def test_every_game_has_solutions() -> None:
    assert set(SOLUTIONS) == set(VARIANTS)
    assert all(len(SOLUTIONS[g]) >= 20 for g in ("freecell", "bakers_game", "beleaguered_castle"))
    assert len(SOLUTIONS["bakers_dozen"]) >= 8


@pytest.mark.parametrize(("game", "deal"), CASES)
def test_solution_wins(game: str, deal: str) -> None:
    moves = [Move.parse(text) for text in SOLUTIONS[game][deal].split()]
    pos = VARIANTS[game].deal(int(deal))
    for move in moves:
        assert move in pos.legal_moves
        assert pos.play(move) == move
    assert pos.outcome == "won"
    assert list(pos.legal_moves) == []
    g, log = Game.new(game, int(deal), autoplay=False)
    for move in moves:
        log += g.play(move)
    assert g.status == "won" and log[-1].type == "GameWon"
    assert Game.replay(log).status == "won"
