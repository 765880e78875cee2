"""Make the table of solvable deals, service/deals/tables/<variant>.txt (run from the
repository's root).

    .venv/bin/python -m tools.deal_tables.solve_deals bakers_game --last 32000 --minutes 15
    .venv/bin/python -m tools.deal_tables.solve_deals bakers_dozen --last 32000 --minutes 30 \
        --states 30000
    .venv/bin/python -m tools.deal_tables.solve_deals beleaguered_castle \
        --finders sand-stone,video-editing --finder-seconds 2 --seconds 25 \
        --iterations 20000000 --minutes 120
    .venv/bin/python -m tools.deal_tables.solve_deals beleaguered_castle --prover --prover-mb 512 \
        --prover-states 40000000 --minutes 600 --progress /tmp/solve_deals/bc-prover.tsv

Deals are solved in order from ``--first`` (default: where the table stops) and each verdict
is appended to a progress file (``--progress``, default /tmp/solve_deals/<variant>.tsv), so
a run that is stopped, or runs out of ``--minutes``, is continued by running it again; the
table is rewritten from the progress file at the end of every run.  Runs over disjoint
ranges (``--first``/``--last``) may share the progress file, one per core.

Solvers: FreeCell, Baker's Game and Beleaguered Castle use Freecell Solver's library with
the atomic-moves preset ``crooked-nose`` (exact verdicts: its search covers every legal
single-card move) up to ``--iterations``; Baker's Dozen (13 columns, more than the library is
usually built for) uses the engine's solver up to ``--states``, or, with ``--library``, a
build of the library that takes 13 stacks (its ``bakers_dozen`` game is our rule book's):

    .venv/bin/python -m tools.deal_tables.solve_deals bakers_dozen \
        --library /path/to/libfreecell-solver.so --finders foss-nessy \
        --finder-iterations 100000 --finder-seconds 0 --preset '' --minutes 60

(Freecell Solver's source builds one with cmake, whose MAX_NUM_STACKS is 13 in its recent
versions; a library that is not installed finds its presets through ``--presetrc``.)
``--ours`` uses the engine's solver for any game.  ``--prover`` (Beleaguered Castle) uses
bc_prove.c instead, an exhaustive depth-first search that keeps about 9 bytes a
position (bc_prove.py compiles it with gcc), within ``--prover-mb`` megabytes,
``--prover-states`` positions and ``--prover-seconds``: it says unsolvable only when it went
through every reachable position (``--prover-evict`` lets it go on past a full table,
forgetting positions it is done with, until its time or positions run out); the progress
file's fourth column holds its figures (positions, fingerprint comparisons, seconds).
Every winning line is replayed through the rules before it counts.  Deals left unknown are
tried again by the next run over the same range (``--heuristics`` gives that run another
portfolio, ``--prover-mb`` more memory, which settles some of them).  ``--prover-restarts N``
first runs N short prover searches (``--prover-restart-states`` positions each) with their
move orders shuffled by seeds 1..N: how soon a depth-first search meets a win depends much
on its order, so a few short searches find wins a long one takes billions of positions to
reach (``--prover-restarts-only``: nothing else; ``--prover-first-seed`` and ``--prover-mix``
give another round other orders).  ``--prover-threads N`` runs the long search as N searches
sharing one table (one a core: a deal gets every core and all the memory).  A table of 1 GB or
more lies in 1 GB pages where the machine has them reserved (docs/deal-tables.md: much faster).
``--prover-suitless 6,8`` first searches relaxed games, in that order, with the same
budget: the cards above rank 6 (then 8) without suits, a high card going up onto
any foundation one rank below it.  Every real move is a relaxed one, so a relaxed game
without a win proves the deal has none, in far fewer positions than the real game (the
positions that differ only in which high card of a rank lies where are one); a relaxed win
proves nothing and the next R is tried, then the rest:

    .venv/bin/python -m tools.deal_tables.solve_deals beleaguered_castle --prover \
        --prover-mb 16384 --prover-suitless 6,8 --prover-threads 2 --prover-restarts-only \
        --first 2072 --last 2072 --progress /tmp/solve_deals/bc-prover.tsv

The table: ``checked A-B`` (the deals looked at), then ``unsolvable`` and ``unknown`` lines
listing deal numbers; every other deal in the checked range is solvable, and a deal outside
it is not known.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from engine import VARIANTS
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE
from service.deals.table import TABLE_DIR, DealTable
from service.solver import fcsolve
from tools.deal_tables import bc_prove
from tools.deal_tables.verdicts import PROVER_TAG, RELAXED_TAG, prover_verdict, verdict_of

DEBIAN_PRESETRC = "/usr/share/freecell-solver/presetrc"
_WRAP = 96  # the unsolvable and unknown lists' width


def solver_name(by: str) -> str:
    """The table header's name of the solver a progress line names."""
    if by == "ours":
        return "engine.solver"
    if by == PROVER_TAG:
        return "tools/deal_tables/bc_prove.c (exhaustive search)"
    if by == RELAXED_TAG:
        return "tools/deal_tables/bc_prove.c (exhaustive search of a relaxed game)"
    if by.startswith("fc-solve"):
        tag, _, preset = by.partition("/")
        built = tag.partition("-")[2].partition("-")[2]  # fc-solve-<version>: another build
        library = f"Freecell Solver {built}'s library" if built else "Freecell Solver 5's library"
        if preset == "finders":  # a deal they left unknown
            return f"{library} (finders, no line)"
        return f"{library} ({preset or fcsolve.REFERENCE_PRESET})"
    return "an earlier table"


def read_progress(path: Path) -> tuple[dict[int, str], dict[int, str]]:
    """deal -> verdict and deal -> which solver gave it (the last line of a deal wins)."""
    done: dict[int, str] = {}
    how: dict[int, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split("\t")
            if len(parts) >= 2 and parts[0].isdigit():
                done[int(parts[0])] = parts[1]
                how[int(parts[0])] = parts[2] if len(parts) > 2 else "?"
    return done, how


def _wrapped(word: str, numbers: list[int]) -> list[str]:
    lines: list[str] = []
    current = word
    for n in numbers:
        if len(current) + 1 + len(str(n)) > _WRAP:
            lines.append(current)
            current = word
        current += f" {n}"
    if current != word or not lines:
        lines.append(current)
    return lines


def write_table(
    variant: str, verdicts: Mapping[int, str], how: str, directory: Path = TABLE_DIR
) -> Path:
    """Write ``<variant>.txt`` (the format service.deals.table reads) from deal ->
    "winnable" | "unwinnable" | "unknown" (deals 1..N with no gap)."""
    checked = len(verdicts)
    if sorted(verdicts) != list(range(1, checked + 1)):
        raise ValueError("the verdicts must cover deals 1..N without a gap")
    unsolvable = sorted(d for d, v in verdicts.items() if v == UNWINNABLE)
    unknown = sorted(d for d, v in verdicts.items() if v == UNKNOWN)
    solved = checked - len(unsolvable) - len(unknown)
    lines = [
        f"# {variant}: which deals can be won "
        "(tools/deal_tables/solve_deals.py; see service/deals/table.py)",
        f"# solver: {how}",
        f"# {solved} solvable, {len(unsolvable)} unsolvable, {len(unknown)} unknown",
        f"checked 1-{checked}",
    ]
    if unsolvable:
        lines += _wrapped("unsolvable", unsolvable)
    if unknown:
        lines += _wrapped("unknown", unknown)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{variant}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant", choices=sorted(VARIANTS))
    parser.add_argument("--first", type=int, default=None)
    parser.add_argument("--last", type=int, default=32000)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--states", type=int, default=30_000, help="budget of our solver")
    parser.add_argument("--iterations", type=int, default=2_000_000, help="fc-solve's budget")
    parser.add_argument("--seconds", type=float, default=20.0, help="per deal, at most")
    parser.add_argument("--ours", action="store_true", help="use the engine's solver only")
    parser.add_argument(
        "--preset",
        default=fcsolve.REFERENCE_PRESET,
        choices=[fcsolve.REFERENCE_PRESET, fcsolve.DEFAULT_PRESET, ""],
        help="fc-solve's preset (atomic-moves ones only, whose verdicts are exact); a second "
        "run with the other one over the same range settles some unknown deals",
    )
    parser.add_argument(
        "--finders",
        default="",
        help="comma-separated presets of the library tried first, each up to --finder-seconds, for "
        "a winning line (their 'not solvable' proves nothing); --preset '' then skips the "
        "exact search",
    )
    parser.add_argument("--finder-seconds", type=float, default=3.0, help="0: no time limit")
    parser.add_argument(
        "--finder-iterations",
        type=int,
        default=None,
        help="each finder's budget in the library's iterations (the same on a busy machine)",
    )
    parser.add_argument("--progress", type=Path, default=None)
    parser.add_argument(
        "--heuristics",
        default=None,
        help="our solver's portfolio as JSON, e.g. [[2,4,2,0,0,0,2,-1]] (see engine.solver); "
        "a second run over the same range with another one settles some unknown deals",
    )
    parser.add_argument(
        "--library",
        default=None,
        help="another build of Freecell Solver's library (a file), e.g. one that takes the 13 "
        "columns of Baker's Dozen",
    )
    parser.add_argument(
        "--presetrc",
        default=DEBIAN_PRESETRC,
        help="the presets' list for --library's -l presets (FREECELL_SOLVER_PRESETRC)",
    )
    parser.add_argument(
        "--prover",
        action="store_true",
        help="Beleaguered Castle: settle deals with bc_prove.c's exhaustive search",
    )
    parser.add_argument("--prover-mb", type=float, default=1024, help="its memory, megabytes")
    parser.add_argument("--prover-seconds", type=float, default=0, help="per deal; 0: no limit")
    parser.add_argument(
        "--prover-states",
        type=int,
        default=0,
        help="positions per deal; 0: as many as --prover-mb holds (a budget that does not "
        "depend on how busy the machine is, unlike --prover-seconds)",
    )
    parser.add_argument(
        "--prover-evict",
        action="store_true",
        help="when its table is full the prover forgets positions it is done with and goes "
        "on (searching them again if met again) until --prover-seconds or --prover-states",
    )
    parser.add_argument(
        "--prover-stack-mb",
        type=float,
        default=0,
        help="room for the prover's path, megabytes, on top of --prover-mb's table; "
        "0: a quarter of --prover-mb",
    )
    parser.add_argument(
        "--prover-restarts",
        type=int,
        default=0,
        help="before the long search, this many short ones with shuffled move orders (seeds "
        "1, 2, ...) for a win: a depth-first search's time to a win depends much on its order",
    )
    parser.add_argument(
        "--prover-restart-states",
        type=int,
        default=2_000_000,
        help="positions per short search",
    )
    parser.add_argument(
        "--prover-first-seed", type=int, default=1, help="the first short search's seed"
    )
    parser.add_argument(
        "--prover-mix",
        action="store_true",
        help="short searches whose orders are shuffled further (moves into an empty row among "
        "the others): another family of orders",
    )
    parser.add_argument(
        "--prover-threads",
        type=int,
        default=1,
        help="the long search as this many searches sharing one table, one a core",
    )
    parser.add_argument(
        "--prover-restarts-only",
        action="store_true",
        help="no long search: deals the short ones do not settle stay unknown",
    )
    parser.add_argument(
        "--prover-suitless",
        default="",
        help="before the rest, relaxed games without suits above these ranks (comma-separated, "
        "1 to 12, tried in order): one without a win proves the deal unsolvable",
    )
    parser.add_argument("--table-dir", type=Path, default=TABLE_DIR)
    args = parser.parse_args(argv)
    prover = None
    if args.prover:
        if args.variant != bc_prove.VARIANT:
            parser.error("--prover plays Beleaguered Castle only")
        prover = bc_prove.build()  # once: the run uses one version of the program
    tag = "fc-solve"
    if args.library:
        if args.presetrc:
            os.environ.setdefault("FREECELL_SOLVER_PRESETRC", args.presetrc)
        fcsolve.use_library(args.library)
        tag = f"fc-solve-{fcsolve.version()}"

    variant = args.variant
    cls = VARIANTS[variant]
    progress = args.progress or Path("/tmp/solve_deals") / f"{variant}.tsv"
    progress.parent.mkdir(parents=True, exist_ok=True)
    done, solved_by = read_progress(progress)
    if not done:
        # start from what the table already holds
        table = DealTable.load(variant, args.table_dir)
        for deal in range(1, table.checked + 1):
            solvable = table.solvable(deal)
            done[deal] = WINNABLE if solvable else UNWINNABLE if solvable is False else UNKNOWN
        with progress.open("w") as out:
            for deal in sorted(done):
                out.write(f"{deal}\t{done[deal]}\ttable\n")
    first = args.first or 1
    deadline = time.monotonic() + args.minutes * 60
    ours = args.ours or not fcsolve.plays(variant)
    heuristics = None
    if args.heuristics:
        heuristics = tuple(tuple(w) for w in json.loads(args.heuristics))
    started = time.monotonic()
    count = 0
    with progress.open("a") as out:
        for deal in range(first, args.last + 1):
            if deal in done and done[deal] != UNKNOWN:
                continue
            if time.monotonic() >= deadline:
                break
            figures = ""
            if prover is not None:
                verdict, how, figures = prover_verdict(
                    cls.deal(deal), args.prover_mb, args.prover_seconds or None, prover,
                    args.prover_states or None, args.prover_evict, args.prover_stack_mb or None,
                    args.prover_restarts, args.prover_restart_states,
                    not args.prover_restarts_only, args.prover_first_seed, args.prover_mix,
                    args.prover_threads,
                    tuple(int(r) for r in args.prover_suitless.split(",") if r),
                )  # fmt: skip
            else:
                verdict, how = verdict_of(
                    cls.deal(deal), ours=ours, states=args.states, iterations=args.iterations,
                    seconds=args.seconds, heuristics=heuristics, preset=args.preset,
                    finders=tuple(f for f in args.finders.split(",") if f),
                    finder_seconds=args.finder_seconds or None,
                    finder_iterations=args.finder_iterations, tag=tag,
                )  # fmt: skip
            done[deal] = verdict
            out.write(f"{deal}\t{verdict}\t{how}" + (f"\t{figures}" if figures else "") + "\n")
            solved_by[deal] = how
            out.flush()
            count += 1
    # read back what every run wrote (runs over other ranges may share the progress file)
    done, solved_by = read_progress(progress)
    checked = 0
    while checked + 1 in done:
        checked += 1
    verdicts = {d: v for d, v in done.items() if d <= checked}
    counts: dict[str, int] = {}
    for deal in verdicts:
        name = solver_name(solved_by.get(deal, "?"))
        counts[name] = counts.get(name, 0) + 1
    how = "; ".join(f"{name} for {n} deals" for name, n in sorted(counts.items()))
    path = write_table(variant, verdicts, how, args.table_dir)
    elapsed = time.monotonic() - started
    unknown = sum(1 for v in verdicts.values() if v == UNKNOWN)
    unsolvable = sum(1 for v in verdicts.values() if v == UNWINNABLE)
    print(
        f"{variant}: {count} deals solved in {elapsed:.0f} s; table {path}: 1-{checked}, "
        f"{unsolvable} unsolvable, {unknown} unknown",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
