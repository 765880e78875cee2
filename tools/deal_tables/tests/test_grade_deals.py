"""The grades' measure (grade_deals.py) and the model players (grade_check.py)."""

from __future__ import annotations

from tools.deal_tables.grade_check import greedy_wins
from tools.deal_tables.grade_deals import effort, grade_letters


def test_deals_rank_by_the_sum_of_their_ranks_and_are_cut_in_quarters() -> None:
    # deal: (effort, line length); deal 7 is beyond the cap: no line
    figures = {1: (10, 50), 2: (20, 40), 3: (30, 30), 4: (40, 60), 5: (5, 100),
               6: (200, 200), 7: (1001, 0), 8: (15, 45)}  # fmt: skip
    letters = grade_letters(sorted(figures), figures, 9)
    # ranks, effort + length (no line ranks last): 1: 1+3, 2: 3+1, 3: 4+0, 4: 5+4, 5: 0+5,
    # 6: 6+6, 7: 7+7, 8: 2+2; the ties on 4 by effort: 1, 8, 2, 3, then 5, 4, 6, 7
    assert letters == "emmhhxxe."
    # one figure alone, to compare the measures (grade_check.py --by)
    assert grade_letters(sorted(figures), figures, 9, by="effort") == "emhhexxm."
    assert grade_letters(sorted(figures), figures, 9, by="length") == "meehhxxm."
    assert grade_letters([1, 2, 3], {1: (1, 1), 2: (2, 2), 3: (3, 3)}, 4) == "emh."


def test_the_reference_solvers_figures() -> None:
    spent, length = effort("bakers_dozen", 5, 5000)  # the engine's solver: it wins
    assert 0 < spent <= 5000 and length > 0
    assert effort("bakers_dozen", 5, 10) == (11, 0)  # beyond the cap


def test_the_greedy_player() -> None:
    won = [deal for deal in range(1, 41) if greedy_wins("freecell", deal)]
    assert 0 < len(won) < 40  # it wins some easy deals, not every deal
