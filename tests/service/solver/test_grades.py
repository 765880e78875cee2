"""The grades of the deals (service/deals/grades, made by tools/deal_tables/grade_deals.py):
every solvable deal 1-32000 of every game graded, a quarter of them each grade."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest

from engine import VARIANTS
from service.deals.grades import GRADES, DealGrades, grades
from service.deals.table import DealTable


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_solvable_deal_has_a_grade_and_each_grade_a_quarter(variant: str) -> None:
    graded = grades(variant)
    solvable = DealTable.load(variant)  # (as shipped: not what this process learned since)
    assert len(graded.letters) == solvable.checked == 32000
    counts: Counter[str | None] = Counter()
    for deal in range(1, 32001):
        grade = graded.grade(deal)
        assert (grade is not None) == (solvable.solvable(deal) is True), deal
        counts[grade] += 1
    assert counts[None] == 32000 - solvable.solvable_count
    sizes = [counts[g] for g in GRADES]
    assert max(sizes) - min(sizes) <= 1, sizes
    assert graded.grade(0) is None and graded.grade(32001) is None


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_and_daily_deals_of_a_grade(variant: str) -> None:
    graded = grades(variant)
    for grade in GRADES:
        for _ in range(20):
            assert graded.grade(graded.random_deal(grade)) == grade
        day = date(2026, 12, 3)
        daily = graded.daily_deal(grade, day)
        assert graded.grade(daily) == grade and graded.daily_deal(grade, day) == daily
    week = {graded.daily_deal("hard", date(2026, 12, 1) + timedelta(days=i)) for i in range(7)}
    assert len(week) > 1  # another deal another day


def test_a_grades_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "freecell.txt").write_text("# a test\ngraded 1-6\nem.h\nx.\n")
    loaded = DealGrades.load("freecell", tmp_path)
    assert [loaded.grade(d) for d in range(0, 8)] == [
        None, "easy", "medium", None, "hard", "expert", None, None,
    ]  # fmt: skip
    assert loaded.deals == {"easy": [1], "medium": [2], "hard": [4], "expert": [5]}
    assert DealGrades.load("bakers_game", tmp_path).grade(1) is None  # no file: no grades
    with pytest.raises(LookupError):
        DealGrades.load("bakers_game", tmp_path).random_deal("easy")
    (tmp_path / "freecell.txt").write_text("graded 1-7\nem.h\nx.\n")
    with pytest.raises(ValueError):
        DealGrades.load("freecell", tmp_path)
    (tmp_path / "freecell.txt").write_text("graded 1-2\nez\n")
    with pytest.raises(ValueError):
        DealGrades.load("freecell", tmp_path)


def test_a_grade_the_game_has_no_deal_of_is_a_422(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.base.errors import Unprocessable
    from service.deals import numbers

    monkeypatch.setattr(numbers, "grades", lambda variant: DealGrades(variant))
    with pytest.raises(Unprocessable, match="no freecell deal is graded hard"):
        numbers.random_deal("freecell", "hard")
