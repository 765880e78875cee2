"""Grade the solvable deals of one game, service/deals/grades/<variant>.txt (run from the
repository's root).

    .venv/bin/python -m tools.deal_tables.grade_deals freecell --minutes 30
    .venv/bin/python -m tools.deal_tables.grade_deals bakers_dozen --first 16001 --minutes 60

The measure blends two figures of one search by a reference solver: its effort (how many
positions it looks at before it finds a win) and the length of the line it finds; a deal
ranks by the sum of its two ranks.  Neither depends on who plays.  The reference solver is Freecell
Solver's library with the atomic-moves preset ``crooked-nose`` (FreeCell, Baker's Game,
Beleaguered Castle: its iteration count) and the engine's own solver with its default
portfolio (Baker's Dozen, which the Debian library cannot deal: its count of positions).
Both searches are deterministic, so the figures of a deal are facts about the deal.  A deal
the reference solver does not win within ``--cap`` positions (a few, which other solvers
settled for the tables) counts as needing more than the cap, with the longest line.

Only the deals the table (service/deals/tables) knows to be solvable are graded.  Sorted by
the sum of their ranks (then by effort, then by number), they are cut into four equal
parts: ``easy``, ``medium``, ``hard``, ``expert``.  docs/deal-tables.md says why this
measure and shows what it means for a player (``tools.deal_tables.grade_check``).

Each deal's effort is appended to a progress file (``--progress``, default
/tmp/grade_deals/<variant>.tsv: deal, effort, line length), so a run that is stopped is
continued by running it again, and runs over disjoint ranges (``--first``/``--last``) may
share it, one per core.  The grades file covers the table's checked range: it is written
from the progress file by the run that finds every solvable deal there measured
(``--write`` only writes).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from engine import VARIANTS
from engine.solver import WINNABLE, Solution, solve
from service.deals.grades import GRADE_DIR, GRADES, LETTERS
from service.deals.table import DealTable
from service.solver import fcsolve

DEFAULT_CAP = {
    "freecell": 2_000_000,
    "bakers_game": 2_000_000,
    "beleaguered_castle": 100_000,
    "bakers_dozen": 5_000,
}
_WIDTH = 100  # grade letters a line


def effort(variant: str, deal: int, cap: int) -> tuple[int, int]:
    """(positions the reference solver looked at, the length of its line); cap + 1 and 0
    when it found no win within ``cap`` positions."""
    pos = VARIANTS[variant].deal(deal)
    found: Solution | None = None
    if variant in fcsolve.GAMES:
        found = fcsolve.solve(pos, max_iterations=cap, preset=fcsolve.REFERENCE_PRESET)
        if found is None:
            raise SystemExit("Freecell Solver's library is needed (make solver-lib)")
    else:
        found = solve(pos, max_states=cap)
    if found.verdict != WINNABLE:
        return cap + 1, 0
    return found.states, len(found.moves or ())


def read_progress(path: Path) -> dict[int, tuple[int, int]]:
    efforts: dict[int, tuple[int, int]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            deal, spent, length = line.split("\t")[:3]
            efforts[int(deal)] = (int(spent), int(length))
    return efforts


MEASURES = ("blend", "effort", "length")


def grade_letters(
    solvable: list[int], efforts: dict[int, tuple[int, int]], last: int, by: str = "blend"
) -> str:
    """One letter a deal 1..last: e/m/h/x for the four grades by the sum of the deal's ranks
    of effort and of line length (no line, beyond the cap: the longest), '.' for a deal not
    known to be solvable. ``by`` "effort" or "length" ranks by that figure alone (to
    compare the measures: grade_check.py --by)."""

    def rank(key: Callable[[int], tuple[int, int]]) -> dict[int, int]:
        return {deal: i for i, deal in enumerate(sorted(solvable, key=key))}

    by_effort = rank(lambda d: (efforts[d][0], d))
    by_length = rank(lambda d: (efforts[d][1] or sys.maxsize, d))
    weights = {"blend": (1, 1), "effort": (1, 0), "length": (0, 1)}[by]
    ranked = sorted(
        solvable,
        key=lambda d: (weights[0] * by_effort[d] + weights[1] * by_length[d], efforts[d][0], d),
    )
    letters = ["."] * last
    for index, deal in enumerate(ranked):
        letters[deal - 1] = LETTERS[index * len(GRADES) // len(ranked)]
    return "".join(letters)


def write_grades(variant: str, letters: str, efforts: dict[int, tuple[int, int]], cap: int) -> Path:
    by_grade: dict[str, list[tuple[int, int]]] = {g: [] for g in GRADES}
    for deal, letter in enumerate(letters, start=1):
        if letter != ".":
            by_grade[GRADES[LETTERS.index(letter)]].append(efforts[deal])
    solver = "Freecell Solver (crooked-nose)" if variant in fcsolve.GAMES else "engine.solver"
    lines = [
        f"# {variant}: the grades of the solvable deals (tools/deal_tables/grade_deals.py)",
        f"# measure: rank of the positions {solver} looks at before it wins (capped at"
        f" {cap}) plus rank of the length of its line",
    ]
    for grade, figures in by_grade.items():
        spent = sorted(e for e, _ in figures)
        lengths = sorted(n for _, n in figures if n)
        lines.append(
            f"# {grade}: {len(figures)} deals, median effort {spent[len(spent) // 2]},"
            f" median line {lengths[len(lengths) // 2]} moves"
        )
    lines.append(f"graded 1-{len(letters)}")
    lines += [letters[i : i + _WIDTH] for i in range(0, len(letters), _WIDTH)]
    path = GRADE_DIR / f"{variant}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant", choices=sorted(VARIANTS))
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("--last", type=int, default=32000)
    parser.add_argument("--cap", type=int, help="positions before a deal counts as beyond it")
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--progress", type=Path)
    parser.add_argument("--write", action="store_true", help="only write the grades file")
    args = parser.parse_args(argv)
    cap = args.cap or DEFAULT_CAP[args.variant]
    progress = args.progress or Path("/tmp/grade_deals") / f"{args.variant}.tsv"
    progress.parent.mkdir(parents=True, exist_ok=True)
    table = DealTable.load(args.variant)
    efforts = read_progress(progress)
    if not args.write:
        deadline = time.monotonic() + args.minutes * 60
        with progress.open("a") as out:
            for deal in range(args.first, args.last + 1):
                if deal in efforts or not table.solvable(deal):
                    continue
                if time.monotonic() > deadline:
                    print(f"out of time at deal {deal}; run again to go on", file=sys.stderr)
                    return 1
                efforts[deal] = effort(args.variant, deal, cap)
                out.write(f"{deal}\t{efforts[deal][0]}\t{efforts[deal][1]}\n")
                out.flush()
    # the grades cover the table's whole range, whatever range this run measured: the run
    # that measures the last deal writes them
    solvable = [d for d in range(1, table.checked + 1) if table.solvable(d)]
    missing = [d for d in solvable if d not in efforts]
    if missing:
        print(f"{len(missing)} solvable deals not measured yet (first {missing[0]})")
        return 1
    letters = grade_letters(solvable, efforts, table.checked)
    path = write_grades(args.variant, letters, efforts, cap)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
