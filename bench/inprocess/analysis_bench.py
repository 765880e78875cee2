"""Analysis against the game's length: time and peak memory must grow linearly.

Logs of 1,000, 2,500 and 5,000 events (the longest a game may have: MAX_GAME_EVENTS),
cheap to make (a card from cell to cell and back in FreeCell deal 617, as an attacker
would), abandoned at the end, analysed by ``solver.postmortem.analysis`` as the endpoint does
(the replay of the log, the positions along it, the searches).  Prints the time and the
peak memory (tracemalloc) of each, and both per event: constant per event is linear; the
reference is the first length, in the same run.
"""

from __future__ import annotations

import asyncio
import sys
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engine import Game, Move
from service.solver.postmortem import analysis
from service.solver.verdicts import Solver

LENGTHS = (1000, 2500, 5000)


def log_of(length: int) -> list[tuple[int, str, dict[str, Any]]]:
    game, events = Game.new("freecell", 617, False)
    events += game.play(Move("t1", "c1"))
    while len(events) < length - 1:
        a, b = ("c1", "c2") if game.position.cells[0] is not None else ("c2", "c1")
        events += game.play(Move(a, b))
    events += game.abandon()
    return [(seq, e.type, e.data) for seq, e in enumerate(events, start=1)]


async def measure(length: int, solver: Solver) -> tuple[float, float]:
    events = log_of(length)
    tracemalloc.start()
    started = time.perf_counter()
    body = await analysis(solver, events, 20.0)
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert body["version"] == length, body
    return seconds, peak / 1e6


async def main() -> int:
    solver = Solver(2.0, executor_factory=lambda: ThreadPoolExecutor(1))
    try:
        await measure(200, solver)  # warm: the searches' verdicts are cached from here on
        rows = [(n, *await measure(n, solver)) for n in LENGTHS]
    finally:
        solver.close()
    base = rows[0]
    print("analysis of a log of N events (FreeCell, cell to cell; searches cached):")
    for n, seconds, mb in rows:
        print(
            f"  {n:5d} events: {seconds * 1000:7.1f} ms, peak {mb:6.1f} MB; per event "
            f"{seconds / n * 1e6:6.1f} us ({seconds / n / (base[1] / base[0]):.2f}x of "
            f"{base[0]}), {mb / n * 1000:5.1f} kB ({mb / n / (base[2] / base[0]):.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
