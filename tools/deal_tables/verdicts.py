"""One deal's verdict for solve_deals.py: winnable, unwinnable or unknown, and which solver
gave it.  Freecell Solver's library (its finder presets first, then an exact atomic-moves
preset) or the engine's solver; for Beleaguered Castle, bc_prove.c (relaxed games without
suits, short searches in shuffled move orders, then the long exhaustive search, with its
figures).  Every winning line is replayed through the rules before it counts.  The options
that set these solvers' budgets are in solve_deals.py's docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine import Position
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE, Solution, Weights, solve
from service.solver import fcsolve
from tools.deal_tables import bc_prove

PROVER_TAG = "bc-prove"
RELAXED_TAG = "bc-prove-relaxed"


def verdict_of(
    pos: Position,
    *,
    ours: bool,
    states: int,
    iterations: int,
    seconds: float,
    heuristics: tuple[Weights, ...] | None = None,
    preset: str = fcsolve.REFERENCE_PRESET,
    finders: tuple[str, ...] = (),
    finder_seconds: float | None = 3.0,
    finder_iterations: int | None = None,
    tag: str = "fc-solve",
) -> tuple[str, str]:
    """(verdict, which solver gave it); ``tag`` names the library in the latter."""
    solution: Solution | None = None
    how = "ours"
    if not ours and fcsolve.available():
        for finder in finders:  # presets that find wins fast but prove nothing
            found = fcsolve.solve(
                pos, max_seconds=finder_seconds, max_iterations=finder_iterations, preset=finder
            )
            if found is not None and found.verdict == WINNABLE:
                check_line(pos, found)
                return WINNABLE, f"{tag}/{finder}"
        if not preset:
            return UNKNOWN, f"{tag}/finders"
    if not ours and fcsolve.available() and preset:
        solution = fcsolve.solve(pos, max_iterations=iterations, max_seconds=seconds, preset=preset)
        how = tag if preset == fcsolve.REFERENCE_PRESET else f"{tag}/{preset}"
    if solution is None:
        solution = solve(pos, max_states=states, max_seconds=seconds, heuristics=heuristics)
        how = "ours"
    if solution.verdict == WINNABLE:
        check_line(pos, solution)
    return solution.verdict, how


def check_line(pos: Position, solution: Solution) -> None:
    """Replay a winning line through the rules (raises if it does not win)."""
    check = pos.copy()
    for move in solution.moves or ():
        check.play(move)
    if not check.is_won:
        raise AssertionError(f"a line that does not win: {pos!r}")

def prover_verdict(
    pos: Position,
    mb: float,
    seconds: float | None,
    exe: Path | None = None,
    states: int | None = None,
    evict: bool = False,
    stack_mb: float | None = None,
    restarts: int = 0,
    restart_states: int = 2_000_000,
    exhaustive: bool = True,
    first_seed: int = 1,
    mix: bool = False,
    threads: int = 1,
    suitless: Sequence[int] = (),
) -> tuple[str, str, str]:
    """(verdict, which solver gave it, the prover's figures) from bc_prove.c (its
    winning line replayed through the rules): first ``restarts`` searches with shuffled move
    orders (seeds ``first_seed``, ``first_seed`` + 1, ...; ``mix``: shuffled further),
    ``restart_states`` positions each, then, unless one settled the deal or ``exhaustive``
    is false, one search within ``mb``, ``seconds`` and ``states`` (``threads`` searches
    sharing its table).  Before all that, for each R of ``suitless`` in turn, a search of
    the relaxed game without suits above rank R, within the same budget: one without a
    win settles the deal, unsolvable."""

    def long_search(rank: int = 0) -> bc_prove.Proof:
        budget = {"mb": mb, "seconds": seconds, "states": states, "stack_mb": stack_mb}
        return bc_prove.prove(pos, **budget, evict=evict, threads=threads, suitless=rank, exe=exe)

    tried = []
    for rank in suitless:
        found = long_search(rank)
        if found.verdict == UNWINNABLE:
            return found.verdict, RELAXED_TAG, found.summary()
        tried.append(f"suitless={rank}:{found.reason}")
    for seed in range(first_seed, first_seed + restarts):
        found = bc_prove.prove(
            pos, mb=restart_mb(restart_states), states=restart_states, seed=seed, mix=mix, exe=exe
        )
        if found.verdict != UNKNOWN:  # a win, or every position within the budget
            return found.verdict, PROVER_TAG, found.summary()
    if not exhaustive:
        figures = " ".join([*tried, f"restarts={restarts} states={restart_states}"])
        return UNKNOWN, PROVER_TAG, figures
    found = long_search()
    return found.verdict, PROVER_TAG, found.summary()


def restart_mb(states: int) -> float:
    """Memory for a search of ``states`` positions: its table holds them at 90 % full in
    seven eighths of it, 8 bytes a position."""
    return max(64.0, states * 8 / 0.9 * 8 / 7 / 1048576 + 1)
