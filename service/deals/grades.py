"""How hard a deal is: the grades in service/deals/grades (tools/deal_tables makes them).

A grades file says ``graded 1-N`` and then one letter a deal, ``e`` (easy), ``m`` (medium),
``h`` (hard), ``x`` (expert) or ``.`` (not known to be solvable), a hundred a line.  The
solvable deals are cut into four equal parts by a measure of one reference solver's
search: its effort and the length of its line (docs/deal-tables.md#grades).
"""

from __future__ import annotations

import functools
import hashlib
import random
from datetime import date
from pathlib import Path
from typing import Final

GRADE_DIR: Final = Path(__file__).resolve().parent / "grades"
GRADES: Final = ("easy", "medium", "hard", "expert")
LETTERS: Final = "emhx"


class DealGrades:
    """The grades of one game's deals."""

    def __init__(self, variant: str, letters: str = "") -> None:
        self.variant = variant
        self.letters = letters
        # the deals of each grade, in order
        self.deals: dict[str, list[int]] = {g: [] for g in GRADES}
        for deal, letter in enumerate(letters, start=1):
            if letter != ".":
                self.deals[GRADES[LETTERS.index(letter)]].append(deal)

    @classmethod
    def load(cls, variant: str, directory: Path = GRADE_DIR) -> DealGrades:
        path = directory / f"{variant}.txt"
        if not path.exists():
            return cls(variant)
        letters: list[str] = []
        graded = 0
        for raw in path.read_text().splitlines():
            line = raw.split("#", 1)[0].strip()
            if line.startswith("graded"):
                graded = int(line.split()[1].partition("-")[2])
            elif line:
                letters.append(line)
        found = "".join(letters)
        if len(found) != graded or set(found) - set(LETTERS + "."):
            raise ValueError(f"{path}: {len(found)} grades for deals 1-{graded}")
        return cls(variant, found)

    def grade(self, deal: int) -> str | None:
        """The deal's grade; None when the deal is not graded (not known to be solvable)."""
        if 1 <= deal <= len(self.letters):
            letter = self.letters[deal - 1]
            if letter != ".":
                return GRADES[LETTERS.index(letter)]
        return None

    def _of(self, grade: str) -> list[int]:
        deals = self.deals[grade]
        if not deals:
            raise LookupError(f"no {self.variant} deal is graded {grade}")
        return deals

    def random_deal(self, grade: str, rng: random.Random | None = None) -> int:
        """A deal of that grade, uniformly."""
        return (rng or random).choice(self._of(grade))

    def daily_deal(self, grade: str, day: date) -> int:
        """The day's deal of that grade, the same for everyone."""
        deals = self._of(grade)
        seed = hashlib.sha256(f"{self.variant}:{grade}:{day.isoformat()}".encode()).digest()
        return deals[int.from_bytes(seed[:8], "big") % len(deals)]


@functools.cache
def grades(variant: str) -> DealGrades:
    """The grades of a game (loaded once per process)."""
    return DealGrades.load(variant)
