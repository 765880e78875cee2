"""Beleaguered Castle's exhaustive prover, bc_prove.c (beside this file), from Python.

    .venv/bin/python -m tools.deal_tables.bc_prove 363 409 --mb 4096 --seconds 600

:func:`build` compiles the C file with gcc into the repository's build/ (gitignored), once
per version of the source; :func:`prove` feeds it a position and reads its verdict:
``winnable`` with a line the engine has replayed to a win (never trusted otherwise),
``unwinnable`` when the search went through every reachable position without a win,
``unknown`` when its budget (memory, positions or seconds) ran out first.  With
``suitless=R`` it plays a relaxed game instead (the cards above rank R without suits): a
relaxed game without a win proves the deal ``unwinnable``, one with a win proves nothing
(``unknown``, reason ``relaxed-won``).  The C file's comment says how it searches, what it
prunes and why the relaxed game is one.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine import VARIANTS, Move, Position
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE

SOURCE = Path(__file__).resolve().with_name("bc_prove.c")
BUILD_DIR = Path(__file__).resolve().parents[2] / "build"  # gitignored
VARIANT = "beleaguered_castle"
_VERDICTS = {
    "solvable": WINNABLE,
    "unsolvable": UNWINNABLE,
    "unknown": UNKNOWN,
    "relaxed-solvable": UNKNOWN,  # the relaxed game can be won: no verdict for the deal
}


@dataclass(frozen=True)
class Proof:
    """The prover's answer for one position."""

    verdict: str  # engine.solver's WINNABLE, UNWINNABLE or UNKNOWN
    states: int  # distinct positions stored
    comparisons: int  # fingerprint comparisons with stored entries
    max_depth: int
    seconds: float
    moves: tuple[Move, ...] | None = None  # the winning line, replayed
    reason: str | None = None  # why the search stopped when unknown
    bits: int = 64  # fingerprint bits: 60 with --evict
    evicted: int = 0  # entries replaced with --evict (their positions may be searched again)
    pages: str = ""  # "1G" when the table lay in reserved 1 GB pages
    seed: int = 0  # the move order's shuffle (0: the program's own order)
    mix: bool = False  # with seed: moves into an empty row shuffled among the others too
    threads: int = 1  # searches sharing the table, one a core
    per_thread: str = ""  # with threads: the positions each stored, comma-separated
    suitless: int = 0  # the relaxed game's R (cards above rank R without suits); 0: the game

    @property
    def false_seen_bound(self) -> float:
        """An upper bound on the chance that any position was wrongly taken for one already
        seen (one chance in 2**bits a comparison): what could make ``unwinnable`` wrong."""
        return self.comparisons / 2.0**self.bits

    def summary(self) -> str:
        text = (
            f"states={self.states} comparisons={self.comparisons} maxdepth={self.max_depth} "
            f"seconds={self.seconds:.1f}"
        )
        if self.evicted:
            text += f" evicted={self.evicted}"
        if self.pages:
            text += f" pages={self.pages}"
        if self.seed:
            text += f" seed={self.seed}" + (" mix=1" if self.mix else "")
        if self.threads > 1:
            text += f" threads={self.threads}"
        if self.suitless:
            text += f" suitless={self.suitless}"
        if self.moves is not None:
            text += f" moves={len(self.moves)}"
        if self.reason:
            text += f" reason={self.reason}"
        return text


def build(directory: Path = BUILD_DIR) -> Path:
    """The compiled prover (gcc -O2), built on first use; RuntimeError without gcc."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    exe = directory / f"bc_prove-{digest}"
    if exe.exists():
        return exe
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise RuntimeError("bc_prove.c needs a C compiler (gcc) on the PATH")
    directory.mkdir(parents=True, exist_ok=True)
    partial = directory / f"bc_prove-{digest}.{os.getpid()}.tmp"
    done = subprocess.run(
        [compiler, "-O2", "-std=gnu99", "-pthread", "-o", str(partial), str(SOURCE)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"compiling {SOURCE} failed:\n{done.stderr}")
    partial.replace(exe)  # atomic: concurrent builds each write their own file
    return exe


def _run(pos: Position, args: Sequence[str], exe: Path | None) -> str:
    if pos.name != VARIANT:
        raise ValueError(f"the prover plays Beleaguered Castle, not {pos.name}")
    done = subprocess.run(
        [str(exe or build()), *args],
        input=pos.board_text(),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bc_prove failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def replay(pos: Position, moves: Sequence[Move]) -> None:
    """Play a line through the rules from ``pos`` (autoplay off); AssertionError unless it
    wins (an illegal move raises the engine's error)."""
    check = pos.copy(stack=False)
    for move in moves:
        check.play(move)
    if not check.is_won:
        raise AssertionError(f"bc_prove's line does not win: {pos!r}")


def prove(
    pos: Position,
    *,
    mb: float = 1024,
    states: int | None = None,
    seconds: float | None = None,
    evict: bool = False,
    stack_mb: float | None = None,
    seed: int = 0,
    mix: bool = False,
    threads: int = 1,
    suitless: int = 0,
    exe: Path | None = None,
) -> Proof:
    """Search ``pos`` exhaustively within ``mb`` megabytes (and ``states`` positions and
    ``seconds``, if given); a winning line is replayed through the engine before it is
    returned.  With ``evict`` a full table makes room by forgetting positions the search is
    done with (searching them again if it meets them again), so memory does not end the
    search: ``seconds`` or ``states`` should.  The path's stacks take up to a quarter of
    ``mb`` on top of the table (seven eighths), or up to ``stack_mb``.  A ``seed`` other
    than 0 shuffles the order in which the search tries moves (the same for the same seed):
    still exhaustive, it meets a win sooner or later than the program's own order, which is
    what restarts with a small ``states`` budget are for; ``mix`` shuffles it further (moves
    into an empty row among the others).  ``threads`` searches (one a core) share one
    table, the first from ``pos``, the others from the ends of random walks, each in its own
    order (seed, seed + 1, ...): as exact, faster, and a table of all the memory forgets
    fewer positions than one of a share of it.  ``suitless`` (1 to 12) searches the relaxed
    game where the cards above that rank have no suit (a high card goes up onto any
    foundation one rank below it): far fewer positions, and a relaxed game without a win
    means the deal has none; a relaxed win is no verdict (``unknown``, reason
    ``relaxed-won``)."""
    args = ["--quiet", "--mb", str(mb)]
    if stack_mb:
        args += ["--stack-mb", str(stack_mb)]
    if evict:
        args.append("--evict")
    if states:
        args += ["--states", str(states)]
    if seconds:
        args += ["--seconds", str(seconds)]
    if seed:
        args += ["--seed", str(seed)] + (["--mix"] if mix else [])
    if threads > 1:
        args += ["--threads", str(threads)]
    if suitless:
        args += ["--suitless", str(suitless)]
    lines = _run(pos, args, exe).splitlines()
    head = lines[0].split()
    fields = dict(item.split("=", 1) for item in head[2:])
    verdict = _VERDICTS[head[0]]
    moves = None
    if verdict == WINNABLE:
        line = lines[1]
        if not line.startswith("line:"):
            raise RuntimeError(f"bc_prove printed no line: {line[:80]!r}")
        moves = tuple(Move.parse(text) for text in line[5:].split())
        replay(pos, moves)
    return Proof(
        verdict=verdict,
        states=int(head[1]),
        comparisons=int(fields["comparisons"]),
        max_depth=int(fields["maxdepth"]),
        seconds=float(fields["seconds"]),
        moves=moves,
        reason="relaxed-won" if head[0] == "relaxed-solvable" else fields.get("reason"),
        bits=int(fields.get("bits", 64)),
        evicted=int(fields.get("evicted", 0)),
        pages=fields.get("pages", ""),
        seed=seed,
        mix=bool(seed) and mix,
        threads=threads,
        per_thread=fields.get("per_thread", ""),
        suitless=suitless,
    )


def legal_moves(pos: Position, exe: Path | None = None) -> tuple[list[str], str, str]:
    """The prover's list of every legal move of ``pos`` (engine notation), the foundations
    once RULES.md's automatic moves are played ("H-5 C-4 D-5 S-6"), and the foundations once
    the search's (which go further, see bc_prove.c) are."""
    moves, rule, search = _run(pos, ["--moves"], exe).splitlines()[:3]
    return moves.split(), rule.strip(), search.strip()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("deals", type=int, nargs="+")
    parser.add_argument("--mb", type=float, default=1024, help="memory budget, megabytes")
    parser.add_argument("--states", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--evict", action="store_true", help="forget positions when full")
    parser.add_argument("--seed", type=int, default=0, help="shuffle the move order (0: none)")
    parser.add_argument("--mix", action="store_true", help="with --seed, shuffle it further")
    parser.add_argument("--threads", type=int, default=1, help="searches sharing the table")
    parser.add_argument(
        "--suitless", type=int, default=0, help="the relaxed game: no suits above this rank"
    )
    args = parser.parse_args(argv)
    exe = build()
    for deal in args.deals:
        found = prove(
            VARIANTS[VARIANT].deal(deal),
            mb=args.mb,
            states=args.states,
            seconds=args.seconds,
            evict=args.evict,
            seed=args.seed,
            mix=args.mix,
            threads=args.threads,
            suitless=args.suitless,
            exe=exe,
        )
        print(f"{deal}\t{found.verdict}\t{found.summary()}", flush=True)


if __name__ == "__main__":
    main()
