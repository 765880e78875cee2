"""One rule book: the position and the solver read the same rule methods, so a game that
overrides one rule changes both, and on random positions they agree."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import VARIANTS, Card, Move, Position
from engine.rules import same_suit
from engine.solver import WINNABLE, solve
from engine.solver.encoding import card_code, state_of
from engine.solver.moves import rules_for, settle
from engine.variants import FreeCell


class SuitedFreeCell(FreeCell):
    """FreeCell with Baker's Game's building (a house rule), one override."""

    name = "suited_freecell_test"

    @classmethod
    def can_build(cls, card: Card, onto: Card) -> str | None:
        return same_suit(card, onto)


class SlowFreeCell(FreeCell):
    """FreeCell where nothing goes up by itself before every suit has reached its rank."""

    name = "slow_freecell_test"

    @classmethod
    def auto_needs(cls, card: Card) -> Mapping[str, int]:
        need = card.rank - 1
        return {} if card.rank == 1 else dict.fromkeys("SHDC", need)


def random_position(cls: type[Position], seed: int, moves: int) -> Position:
    rng = random.Random(seed)
    dealt = next(c for c in cls.__mro__ if getattr(c, "name", "") in VARIANTS)
    opening = dealt.deal(1 + seed % 1000)  # type: ignore[attr-defined]
    pos = cls(opening.tableau, opening.cells, opening.foundations)
    for _ in range(moves):
        legal = list(pos.legal_moves)
        if not legal:
            break
        pos.play(rng.choice(legal))
    return pos


def test_an_overridden_rule_binds_the_position_and_the_solver() -> None:
    pos = SuitedFreeCell(FreeCell.deal(5).tableau)
    for move in pos.legal_moves:
        if move.target.startswith("t") and pos.tableau[int(move.target[1:]) - 1]:
            column = pos.tableau[int(move.source[1:]) - 1] if move.source[0] == "t" else None
            card = column[-move.count] if column else pos.cells[int(move.source[1:]) - 1]
            onto = pos.tableau[int(move.target[1:]) - 1][-1]
            assert card is not None and card.suit == onto.suit
    found = solve(pos, max_seconds=30)
    assert found.verdict == WINNABLE and found.moves is not None
    check = pos.copy()
    for move in found.moves:
        check.play(move)  # the overridden rule checks every move of the solver's line
    assert check.is_won
    assert any(
        m.target[0] == "t" and m.count == 1 for m in found.moves
    )  # it builds on columns, in suit


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from([*sorted(VARIANTS), "slow"]),
    seed=st.integers(0, 100_000),
    moves=st.integers(0, 60),
)
def test_automatic_moves_agree(name: str, seed: int, moves: int) -> None:
    """The solver's forced moves put up exactly the cards the game's autoplay would."""
    cls = SlowFreeCell if name == "slow" else VARIANTS[name]
    pos = random_position(cls, seed, moves)
    cols_t, cells_b, found_b = state_of(pos)
    cols, cells, found = list(cols_t), bytearray(cells_b), bytearray(found_b)
    settle(cols, cells, found, rules_for(cls).auto, None)
    game = pos.copy()
    while (move := game.auto_move()) is not None:
        game.play(move)
    assert state_of(game)[2] == bytes(found)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_solver_builds_what_the_position_allows(name: str) -> None:
    cls = VARIANTS[name]
    rules = rules_for(cls)
    pos = random_position(cls, 7, 30)
    legal = set(pos.legal_moves)
    # every single-card move the position allows onto a non-empty column is one the
    # solver's table allows too, and the other way round
    for si, column in enumerate(pos.tableau):
        if not column:
            continue
        card = column[-1]
        for ti, target in enumerate(pos.tableau):
            if ti == si or not target:
                continue
            allowed = Move(f"t{si + 1}", f"t{ti + 1}") in legal
            assert allowed == (card_code(target[-1]) in rules.parents[card_code(card)])
