"""Deals by number: the one check of a deal number, which deals are dealt, the opening
layouts, random solvable deals, of a grade or not."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final

from engine import MAX_DEAL, VARIANTS, InvalidDeal, find_variant
from engine import deals as engine_deals
from service.base.errors import BadRequest, Unprocessable
from service.base.requests import whole_number
from service.deals.grades import GRADES, DealGrades, grades
from service.deals.table import table as deal_table

# random deals are drawn from the system's source: Python's own generator can be told
# from enough of its outputs, and a race's random deal is hidden until its start
_DRAW: Final = random.SystemRandom()


_DIGITS = len(str(MAX_DEAL))


def deal_in_path(raw: str) -> int:
    """The deal number a URL's path names: a whole number written plainly, else a 400.
    Whether it is a deal is checked_deal's."""
    if raw.isascii() and raw.isdigit() and len(raw) <= _DIGITS:  # (the usual: 617)
        return int(raw)
    number = whole_number(raw)
    if number is None:
        raise BadRequest(f"a deal is a whole number, not {raw!r}")
    if len(digits := raw.lstrip("-")) > _DIGITS:  # (not the number read: ±10**30)
        raise InvalidDeal(
            f"deal numbers run from 1 to {MAX_DEAL}; there is no deal of {len(digits)} digits"
        )
    return number


def checked_deal(variant: str, deal: int) -> str:
    """A deal named by a request (a board, a deal's layout, a new game or race), checked:
    the variant's id; UnknownVariant (400) for no such game, InvalidDeal (422,
    `invalid-deal`) for a number out of the engine's range (engine.deals.check_deal_number,
    the one place that range is written), as API.md says. A deal with no solution (FreeCell's
    11982) is a deal like any other: players share it and may play it by its number; only
    random and daily deals are drawn from the solvable ones."""
    name = find_variant(variant).name
    engine_deals.check_deal_number(deal)
    return name


def deal_view(variant: str, deal: int) -> dict[str, Any]:
    cls = VARIANTS[checked_deal(variant, deal)]
    position = cls.deal(deal)
    return {
        "variant": variant,
        "deal": deal,
        "title": cls.title,
        "solvable": deal_table(variant).solvable(deal),
        "grade": grades(variant).grade(deal),
        "state": position.to_dict(),
    }


def variants_view() -> dict[str, Any]:
    """The games this service knows, as their rule books (engine.VARIANTS) describe them:
    what a client lays out and tells a player, from the one place the rules are."""
    return {
        "variants": [
            {
                "id": name,
                "title": cls.title,
                "columns": cls.columns,
                "cells": cls.cell_count,
                "column_word": cls.column_word,
                "moves_runs": cls.moves_runs,
                "deals": {"first": 1, "last": MAX_DEAL},
            }
            for name, cls in VARIANTS.items()
        ]
    }


def check_grade(raw: str) -> str:
    """A grade a client names (a query's): one of GRADES, else a 400."""
    if raw not in GRADES:
        raise BadRequest(f"a grade is {', '.join(GRADES[:-1])} or {GRADES[-1]}, not {raw!r}")
    return raw


def random_deal(variant: str, grade: str | None = None) -> int:
    """A deal known to be solvable (service/deals/tables), of that grade when one is named
    (service/deals/grades)."""
    if grade is not None:
        return of_grade(variant, grade, lambda graded: graded.random_deal(grade, _DRAW))
    return deal_table(variant).random_deal(_DRAW)


def of_grade(variant: str, grade: str, pick: Callable[[DealGrades], int]) -> int:
    """A deal `pick` chooses among the game's graded deals; 422 when the game has none of
    that grade (its grades file is missing)."""
    try:
        return pick(grades(variant))
    except LookupError as exc:
        raise Unprocessable(str(exc)) from None
