"""Deals: the opening layouts, which numbers are dealt, random solvable deals."""

from __future__ import annotations

from typing import Any, Final

from engine import VARIANTS, InvalidDeal, find_variant
from engine import deals as engine_deals
from service.base.errors import Unprocessable
from service.deals.table import table as deal_table

# Games whose deals known to have no solution are not dealt even when asked for by number:
# FreeCell's 11982 is set aside outright (seed 004: no deal asks the player to guess).  In
# the other games a deal with no solution is still a deal players share and may play; only
# random and daily deals are drawn from the solvable ones.
REFUSES_UNSOLVABLE: Final = frozenset({"freecell"})


def check_deal_number(deal: int) -> None:
    """The engine's rule (engine.deals.check_deal_number), answered 422 as API.md says."""
    try:
        engine_deals.check_deal_number(deal)
    except InvalidDeal as exc:
        raise Unprocessable(str(exc)) from None


def check_deal(variant: str, deal: int) -> None:
    find_variant(variant)
    check_deal_number(deal)
    if variant in REFUSES_UNSOLVABLE and deal_table(variant).solvable(deal) is False:
        raise Unprocessable(
            f"{VARIANTS[variant].title} deal {deal} has no solution; choose another deal"
        )


def deal_view(variant: str, deal: int) -> dict[str, Any]:
    find_variant(variant)
    check_deal_number(deal)
    cls = VARIANTS[variant]
    position = cls.deal(deal)
    return {
        "variant": variant,
        "deal": deal,
        "title": cls.title,
        "solvable": deal_table(variant).solvable(deal),
        "state": position.to_dict(),
    }


def random_deal(variant: str) -> int:
    """A deal known to be solvable (service/deals/tables)."""
    return deal_table(variant).random_deal()
