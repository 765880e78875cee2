"""Regenerate the engine's test data in tests/data.

    .venv/bin/python tests/data/make_solutions.py
    .venv/bin/python tests/data/make_solutions.py bakers_dozen   # only that game's solutions

Writes
* ``freecell_deal_<N>.txt``: ``make-microsoft-freecell-board -t N`` for a few deals, the
  reference the FreeCell deals are tested against;
* ``solutions.json``: won games, as lists of moves in the engine's move text, for
  FreeCell, Baker's Game and Beleaguered Castle from Freecell Solver (``fc-solve`` with the
  atomic-moves preset ``toons-for-twenty-somethings``: single-card moves, including its own
  moves to the foundations), and for Baker's Dozen from the small best-first search below
  (fc-solve cannot take 13 columns here).

Needs ``fc-solve`` and ``make-microsoft-freecell-board`` only when run (not for
``bakers_dozen`` alone, which rewrites just that game's solutions in ``solutions.json``); the
tests just read the files.  Every solution is played through the engine before it is stored.
"""

from __future__ import annotations

import heapq
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from engine import VARIANTS, Move, Position  # noqa: E402

BOARD_DEALS = (1, 617, 11982, 1000000, 8589934591)
PER_GAME = 20
FC_SOLVE_GAMES = ("freecell", "bakers_game", "beleaguered_castle")
BAKERS_DOZEN_WANTED = 12
SEARCH_NODE_LIMIT = 50_000

_MOVE_PATTERNS = (
    (re.compile(r"Move a card from stack (\d+) to the foundations"), "t{0}-f"),
    (re.compile(r"Move a card from freecell (\d+) to the foundations"), "c{0}-f"),
    (re.compile(r"Move a card from freecell (\d+) to stack (\d+)"), "c{0}-t{1}"),
    (re.compile(r"Move a card from stack (\d+) to freecell (\d+)"), "t{0}-c{1}"),
    (re.compile(r"Move a card from freecell (\d+) to freecell (\d+)"), "c{0}-c{1}"),
    (re.compile(r"Move (\d+) cards from stack (\d+) to stack (\d+)"), None),
)


def convert(line: str) -> Move | None:
    """The engine move for one line of fc-solve's ``-m`` output (indexes are 0-based)."""
    for pattern, template in _MOVE_PATTERNS:
        match = pattern.fullmatch(line.strip())
        if match is None:
            continue
        numbers = [int(g) for g in match.groups()]
        if template is None:
            count, source, target = numbers
            return Move(f"t{source + 1}", f"t{target + 1}", count)
        return Move.parse(template.format(*(n + 1 for n in numbers)))
    if line.startswith("Move"):
        raise ValueError(f"unknown fc-solve move: {line!r}")
    return None


def fc_solve(game: str, board: str) -> list[Move] | None:
    command = [
        "fc-solve", "-g", game, "-l", "toons-for-twenty-somethings", "-m", "-p", "-t",
        "-mi", "2000000",
    ]  # fmt: skip
    try:
        result = subprocess.run(
            command, input=board, capture_output=True, text=True, timeout=60, check=False
        )
    except subprocess.TimeoutExpired:
        return None
    if "This game is solveable." not in result.stdout:
        return None
    moves = [convert(line) for line in result.stdout.splitlines()]
    return [m for m in moves if m is not None]


def verify(cls: type[Position], deal: int, moves: list[Move]) -> bool:
    pos = cls.deal(deal)
    for move in moves:
        pos.play(move)
    return pos.outcome == "won"


def _blockers(pos: Position) -> int:
    """Cards lying above a lower card of their column: each must move before that card."""
    n = 0
    for column in pos.tableau:
        low = 99
        for card in column:
            if card.rank > low:
                n += 1
            else:
                low = card.rank
    return n


def best_first(pos: Position, limit: int = SEARCH_NODE_LIMIT) -> list[Move] | None:
    """A won line from ``pos`` by greedy best-first search over layouts.

    Safe moves to the foundations are played at once; the layout with the fewest cards off
    the foundations and fewest blocking cards is expanded first.
    """
    start = len(pos.move_stack)
    seen: set[tuple[object, ...]] = set()
    heap: list[tuple[int, int, Position]] = []
    tie = 0

    def settle(p: Position) -> None:
        while (move := p.auto_move()) is not None:
            p.push(move)

    def score(p: Position) -> int:
        return 3 * (52 - p.foundation_cards) + 2 * _blockers(p)

    pos = pos.copy()
    settle(pos)
    heapq.heappush(heap, (score(pos), tie, pos))
    seen.add(pos.key())
    while heap and len(seen) < limit:
        _, _, current = heapq.heappop(heap)
        if current.foundation_cards == 52:
            return current.move_stack[start:]
        for move in current.legal_moves:
            nxt = current.copy()
            nxt.push(move)
            settle(nxt)
            key = nxt.key()
            if key in seen:
                continue
            seen.add(key)
            if nxt.foundation_cards == 52:
                return nxt.move_stack[start:]
            tie += 1
            heapq.heappush(heap, (score(nxt), tie, nxt))
    return None


FCSOLVE_STATE_INPUT = """Foundations: H-0 C-0 D-0 S-0
Freecells: - 9C - 8S
: JD KD 2S 4C 3S 6D 6S
: 2D KC KS 5C TD
:
: JC 5S QD QH TH QS 6H 9H 9S 9D TS 4S 8D 2H
: 5D AD JS 4H 8H 6C
: 7H QC AS AC 2C 3D
: 7C KH AH 4D JH 8C
: 5H 3H 3C 7S 7D TC
"""


def write_fcsolve_state() -> None:
    """fcsolve_state.txt: a state as ``fc-solve -p -t`` prints it (fixed-width cells)."""
    out = subprocess.run(
        ["fc-solve", "-p", "-t", "-sam", "-l", "toons-for-twenty-somethings"],
        input=FCSOLVE_STATE_INPUT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    first = out.split("====================")[0]
    lines = [line for line in first.splitlines() if line and not line.startswith("-=-")]
    (HERE / "fcsolve_state.txt").write_text("\n".join(lines) + "\n")


def bakers_dozen_solutions() -> dict[str, str]:
    """Won lines of the first Baker's Dozen deals the search above wins."""
    cls = VARIANTS["bakers_dozen"]
    found: dict[str, str] = {}
    deal = 0
    while len(found) < BAKERS_DOZEN_WANTED and deal < 200:
        deal += 1
        moves = best_first(cls.deal(deal))
        if moves is not None and verify(cls, deal, moves):
            found[str(deal)] = " ".join(map(str, moves))
            print("bakers_dozen", deal, len(moves), file=sys.stderr)
    return found


def write_solutions(solutions: dict[str, dict[str, str]]) -> None:
    data = {
        "about": "won games: deal number -> moves in engine text; see make_solutions.py",
        "solutions": solutions,
    }
    (HERE / "solutions.json").write_text(json.dumps(data, indent=1) + "\n")


def main(argv: list[str]) -> None:
    if argv == ["bakers_dozen"]:
        solutions = json.loads((HERE / "solutions.json").read_text())["solutions"]
        solutions["bakers_dozen"] = bakers_dozen_solutions()
        write_solutions(solutions)
        return
    if argv:
        raise SystemExit("usage: make_solutions.py [bakers_dozen]")
    write_fcsolve_state()
    for deal in BOARD_DEALS:
        board = subprocess.run(
            ["make-microsoft-freecell-board", "-t", str(deal)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (HERE / f"freecell_deal_{deal}.txt").write_text(board)

    solutions: dict[str, dict[str, str]] = {}
    for game in FC_SOLVE_GAMES:
        cls = VARIANTS[game]
        found: dict[str, str] = {}
        deal = 0
        while len(found) < PER_GAME:
            deal += 1
            moves = fc_solve(game, cls.deal(deal).board_text())
            if moves is not None and len(moves) <= 700 and verify(cls, deal, moves):
                found[str(deal)] = " ".join(map(str, moves))
                print(game, deal, len(moves), file=sys.stderr)
        solutions[game] = found

    solutions["bakers_dozen"] = bakers_dozen_solutions()
    write_solutions(solutions)


if __name__ == "__main__":
    main(sys.argv[1:])
