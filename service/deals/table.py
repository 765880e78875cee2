"""Which deals can be won: the tables in service/deals/tables (tools/deal_tables makes them).

A table (``<variant>.txt``) says ``checked 1-N``: every deal from 1 to N was looked at, and
is solvable unless an ``unsolvable`` line lists it (no winning line exists: the solver's
search was exhaustive) or an ``unknown`` line does (the solver's budget ran out).  Deals
above N are not known.  Verdicts the service computes later (a deal's opening solved for a
hint) are remembered beside the table, in memory.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections import OrderedDict
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Final

TABLE_DIR: Final = Path(__file__).resolve().parent / "tables"
# verdicts learned at run time (deals past the table, asked for by number) kept at most
LEARNED_MAX: Final = 100_000


class DealTable:
    """The verdicts known for one game's deals."""

    def __init__(
        self,
        variant: str,
        checked: int = 0,
        unsolvable: Iterable[int] = (),
        unknown: Iterable[int] = (),
    ) -> None:
        self.variant = variant
        self.checked = checked
        self.unsolvable = frozenset(unsolvable)
        self.unknown = frozenset(unknown)
        # verdicts the service computed for deals the table does not know, the most
        # recently learned LEARNED_MAX of them
        self.learned: OrderedDict[int, bool] = OrderedDict()
        self._solvable_count = checked - len(self.unsolvable) - len(self.unknown)

    @classmethod
    def load(cls, variant: str, directory: Path = TABLE_DIR) -> DealTable:
        path = directory / f"{variant}.txt"
        if not path.exists():
            return cls(variant)
        checked = 0
        unsolvable: list[int] = []
        unknown: list[int] = []
        for raw in path.read_text().splitlines():
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            word, values = line[0], line[1:]
            if word == "checked":
                first, _, last = values[0].partition("-")
                if int(first) != 1:
                    raise ValueError(f"{path}: the checked range starts at 1")
                checked = int(last)
            elif word == "unsolvable":
                unsolvable.extend(map(int, values))
            elif word == "unknown":
                unknown.extend(map(int, values))
        return cls(variant, checked, unsolvable, unknown)

    @property
    def solvable_count(self) -> int:
        """How many deals of the checked range are known to be solvable."""
        return self._solvable_count

    def solvable(self, deal: int) -> bool | None:
        """True/False when known, None when not."""
        if 1 <= deal <= self.checked:
            if deal in self.unsolvable:
                return False
            if deal not in self.unknown:
                return True
        return self.learned.get(deal)

    def learn(self, deal: int, solvable: bool) -> None:
        """Remember a verdict the service computed (for a deal the table does not know)."""
        if self.solvable(deal) is None:
            self.learned[deal] = solvable
            while len(self.learned) > LEARNED_MAX:
                self.learned.popitem(last=False)

    def random_deal(self, rng: random.Random | None = None) -> int:
        """A deal known to be solvable, uniformly from the checked range."""
        if self._solvable_count <= 0:
            raise LookupError(f"no {self.variant} deal is known to be solvable")
        pick = (rng or random).randint
        while True:
            deal = pick(1, self.checked)
            if self.solvable(deal):
                return deal

    def daily_deal(self, day: date) -> int:
        """The day's deal: known to be solvable, the same for everyone (a hash of the game
        and the date picks it from the checked range)."""
        if self._solvable_count <= 0:
            raise LookupError(f"no {self.variant} deal is known to be solvable")
        seed = hashlib.sha256(f"{self.variant}:{day.isoformat()}".encode()).digest()
        deal = int.from_bytes(seed[:8], "big") % self.checked + 1
        while not self.solvable(deal):
            deal = deal % self.checked + 1
        return deal


@functools.cache
def table(variant: str) -> DealTable:
    """The table of a game (loaded once per process)."""
    return DealTable.load(variant)
