"""Regenerate tests/data/fcsolve_verdicts.json: Freecell Solver's verdicts on positions of
FreeCell, Baker's Game and Beleaguered Castle, which the engine's solver must agree with.

    .venv/bin/python tests/data/make_verdicts.py

Positions: the openings of deals 1-40 of each game, and 40 positions reached from the
openings of deals 41-80 by a few random legal moves (seeded, autoplay on).  Verdicts come
from the ``fc-solve`` binary with the atomic-moves preset ``crooked-nose`` (its search covers
every single-card move, so "I could not solve this game" is a proof); a position it could not
settle within its iteration limit is left out.  Needs ``fc-solve`` only when run.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from engine import Game  # noqa: E402

GAMES = ("freecell", "bakers_game", "beleaguered_castle")
OPENINGS = range(1, 41)
PLAYED = range(41, 81)
ITERATIONS = 3_000_000


def fc_solve(game: str, board: str) -> tuple[str, int] | None:
    out = subprocess.run(
        ["fc-solve", "-g", game, "-l", "crooked-nose", "-mi", str(ITERATIONS)],
        input=board, capture_output=True, text=True, timeout=300, check=False,
    ).stdout  # fmt: skip
    states = 0
    for line in out.splitlines():
        if line.startswith("Total number of states checked is"):
            states = int(line.rsplit(" ", 1)[1].rstrip("."))
    if "This game is solveable." in out:
        return "winnable", states
    if "I could not solve this game." in out and states < ITERATIONS:
        # fc-solve prints the same words when it stops at its iteration limit
        return "unwinnable", states
    return None


def positions(game: str) -> list[tuple[str, int, int, str]]:
    """(how, deal, moves played, board) for one game."""
    found = []
    for deal in OPENINGS:
        found.append(("opening", deal, 0, Game(game, deal).position.board_text()))
    for deal in PLAYED:
        rng = random.Random(deal)
        g, _ = Game.new(game, deal, autoplay=True)
        for _ in range(rng.randint(2, 8)):
            legal = list(g.position.legal_moves)
            if not legal or g.is_over:
                break
            g.play(rng.choice(legal))
        found.append(("played", deal, g.moves, g.position.board_text()))
    return found


def main() -> None:
    cases = []
    for game in GAMES:
        for how, deal, moves, board in positions(game):
            verdict = fc_solve(game, board)
            if verdict is None:
                print(game, how, deal, "unknown: left out", file=sys.stderr)
                continue
            cases.append(
                {"game": game, "how": how, "deal": deal, "moves": moves, "board": board,
                 "verdict": verdict[0], "fc_solve_states": verdict[1]}
            )  # fmt: skip
            print(game, how, deal, verdict, file=sys.stderr)
    data = {
        "about": "fc-solve -l crooked-nose verdicts; see make_verdicts.py",
        "cases": cases,
    }
    (HERE / "fcsolve_verdicts.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
