"""The day's deal: one deal a day for each game, its opening searched ahead of the first hint."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engine import Game
from service.deals.grades import grades
from service.deals.numbers import of_grade
from service.deals.table import table
from service.solver.verdicts import Solver


def today() -> datetime:
    return datetime.now(UTC)


def daily_view(
    variant: str, solver: Solver | None = None, grade: str | None = None
) -> dict[str, Any]:
    """The day's deal, of a grade when one is named: the day's deal itself when it is of
    that grade (one deal of the day, whichever way it is asked for), else one of that
    grade picked for the day. Its opening is searched in the background (hints come at
    once)."""
    day = today().date()
    deal = table(variant).daily_deal(day)
    if grade is not None and grades(variant).grade(deal) != grade:
        deal = of_grade(variant, grade, lambda graded: graded.daily_deal(grade, day))
    if solver is not None:
        solver.prefetch(Game.new(variant, deal)[0].position)
    return {
        "variant": variant, "deal": deal, "date": day.isoformat(),
        "grade": grades(variant).grade(deal),
    }  # fmt: skip
