"""What the grades mean for a player: a sample of each grade's deals, played by two model
players and timed with the engine's own solver (docs/deal-tables.md prints the table).

    .venv/bin/python -m tools.deal_tables.grade_check freecell --sample 50

For each game and grade, on ``--sample`` deals of that grade drawn at random (seeded):

- **greedy**: the share of deals a greedy player wins.  It plays the automatic moves, then
  the move whose outcome scores best (cards on the foundations; the cards lying on top of
  the next card each foundation needs; free cells and empty columns), never going back to a
  position it has seen, and never takes a move back: a player who looks one move ahead.
- **shallow**: the share of deals a player who thinks ahead wins: the engine's best-first
  search, limited to ``--shallow`` positions (1,000 by default).
- **solver**: the engine's own solver's median time to a win, within ``--seconds``, and
  the share of deals it wins in that time.

The grades come from another solver's search (grade_deals.py), so the columns are an
independent look at the same deals.  ``--by effort`` or ``--by length`` grades the deals
afresh from grade_deals.py's progress file (``--progress``) by that figure alone, to
compare the measures on the same samples' sizes:

    .venv/bin/python -m tools.deal_tables.grade_check freecell --sample 400 --by effort
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from engine import VARIANTS, Position
from engine.solver import WINNABLE, solve
from service.deals.grades import GRADES, DealGrades
from service.deals.table import DealTable
from tools.deal_tables.grade_deals import MEASURES, grade_letters, read_progress


def score(pos: Position) -> int:
    """The greedy player's view of a position: higher is better."""
    foundations = pos.foundations
    buried = 0
    for column in pos.tableau:
        for depth, card in enumerate(reversed(column)):
            if card.rank == foundations[card.suit] + 1:
                buried += depth  # the cards on top of a card a foundation needs next
    free_cells = sum(cell is None for cell in pos.cells)
    empty_columns = sum(not column for column in pos.tableau)
    return 10 * pos.foundation_cards - 3 * buried + 2 * free_cells + 4 * empty_columns


def _settle(pos: Position) -> int:
    """Play the automatic moves; how many were played."""
    played = 0
    while (move := pos.auto_move()) is not None:
        pos.push(move)
        played += 1
    return played


def greedy_wins(variant: str, deal: int, max_moves: int = 500) -> bool:
    """Whether the greedy player wins the deal."""
    pos = VARIANTS[variant].deal(deal).copy()
    _settle(pos)
    seen = {pos.key()}
    for _ in range(max_moves):
        if pos.is_won:
            return True
        best: tuple[int, int] | None = None
        choices = list(pos.legal_moves)
        for index, move in enumerate(choices):
            pos.push(move)
            autos = _settle(pos)
            if pos.key() not in seen:
                value = (score(pos), -index)
                if best is None or value > best:
                    best = value
            for _ in range(autos + 1):
                pos.undo()
        if best is None:
            return False
        pos.push(choices[-best[1]])
        _settle(pos)
        seen.add(pos.key())
    return pos.is_won


def sample(grades: DealGrades, grade: str, size: int) -> list[int]:
    deals = grades.deals[grade]
    return sorted(random.Random(f"{grades.variant}:{grade}").sample(deals, min(size, len(deals))))


def graded(variant: str, by: str, progress: Path | None) -> DealGrades:
    """The game's grades: its file's, or by one figure from a progress file."""
    if by == "blend" and progress is None:
        return DealGrades.load(variant)
    efforts = read_progress(progress or Path("/tmp/grade_deals") / f"{variant}.tsv")
    table = DealTable.load(variant)
    solvable = [d for d in range(1, table.checked + 1) if table.solvable(d)]
    return DealGrades(variant, grade_letters(solvable, efforts, table.checked, by))


def check(
    grades: DealGrades, size: int, shallow: int, seconds: float
) -> list[tuple[str, int, float, float, float, float]]:
    """(grade, deals, greedy win share, shallow win share, solver's median seconds, solver's
    win share) for each grade."""
    variant = grades.variant
    rows = []
    for grade in GRADES:
        deals = sample(grades, grade, size)
        greedy = shallow_won = solved = 0
        times: list[float] = []
        for deal in deals:
            greedy += greedy_wins(variant, deal)
            pos = VARIANTS[variant].deal(deal)
            shallow_won += solve(pos, max_states=shallow).verdict == WINNABLE
            started = time.perf_counter()
            found = solve(pos, max_seconds=seconds)
            spent = time.perf_counter() - started
            solved += found.verdict == WINNABLE
            times.append(spent if found.verdict == WINNABLE else float("inf"))
        n = len(deals)
        rows.append(
            (grade, n, greedy / n, shallow_won / n, statistics.median(times), solved / n)
        )
    return rows


def table(variant: str, rows: Sequence[tuple[str, int, float, float, float, float]]) -> str:
    lines = [
        f"{VARIANTS[variant].title}",
        "",
        "| grade | deals | greedy wins | shallow wins | solver's median time | solver wins |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for grade, n, greedy, shallow, median, solved in rows:
        shown = f"{median * 1000:.0f} ms" if median != float("inf") else "beyond the budget"
        lines.append(
            f"| {grade} | {n} | {greedy:.0%} | {shallow:.0%} | {shown} | {solved:.0%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", default=sorted(VARIANTS))
    parser.add_argument("--sample", type=int, default=50, help="deals of each grade")
    parser.add_argument("--shallow", type=int, default=1000, help="the shallow player's positions")
    parser.add_argument("--seconds", type=float, default=2.0, help="the solver's time a deal")
    parser.add_argument("--by", choices=MEASURES, default="blend", help="the measure")
    parser.add_argument("--progress", type=Path, help="grade_deals.py's progress file")
    args = parser.parse_args(argv)
    for variant in args.variants:
        grades = graded(variant, args.by, args.progress)
        print(table(variant, check(grades, args.sample, args.shallow, args.seconds)))
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
