"""The engine's solver against Freecell Solver, and the hint endpoint against a move.

1. Deals 1..N (BENCH_SOLVER_DEALS, default 200) of FreeCell, Baker's Game and Beleaguered
   Castle, each solved in the same run by
   * ``fc-solve -l crooked-nose`` (the binary, atomic moves: exact verdicts), wall time per
     deal including the process start, up to BENCH_FCS_ITERATIONS iterations;
   * the same preset through the library in this process (service/solver/fcsolve.py), if installed;
   * the engine's solver (engine/solver/search.py), up to BENCH_SOLVER_SECONDS a deal.
   Prints the verdicts (agreeing, disagreeing, unknown) and the median time per deal of
   each, with the ratios.  A disagreement between two exact verdicts fails the benchmark.
2. The service (a subprocess on a fresh database): median latency of ``POST /hint`` on
   opening positions never asked before, against ``POST /moves`` on the same games: asked
   at once with nothing cached (SOLVER_PREFETCH=false), with the library and with the
   engine's solver only (SOLVER_LIBRARY=false); then as the service runs by default, where
   a new game's opening is searched in the background at creation, asked 0.3 s later.

3. The length of the opening hint's line (``service.solver.pool.search`` with the hint budget,
   autoplay off, as the service answers it) on the first BENCH_LINE_DEALS solvable deals,
   against Freecell Solver's shortest: its default configuration and its short-line
   presets, each with ``-opt``, counted in the game's own moves (a run moved where the game
   moves one card at a time counts as the single-card moves it stands for); the reference
   is the configuration with the shortest median.  Baker's Dozen, which the library does
   not play, against the engine's own search given a minute, shortened for a minute.

BENCH_SOLVER_PARTS=compare, =hint or =lines runs one part only.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time

import aiohttp

from engine import VARIANTS
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE, solve
from service.deals.table import table
from service.solver import fcsolve

from ..common import (
    PYTHON,
    database_url,
    free_port,
    fresh_database,
    start_process,
    stop_process,
    wait_http,
)

DEALS = int(os.environ.get("BENCH_SOLVER_DEALS", "200"))
SECONDS = float(os.environ.get("BENCH_SOLVER_SECONDS", "5"))
ITERATIONS = int(os.environ.get("BENCH_FCS_ITERATIONS", "2000000"))
HINT_GAMES = int(os.environ.get("BENCH_HINT_GAMES", "20"))
PARTS = os.environ.get("BENCH_SOLVER_PARTS", "compare,hint,lines").split(",")
GAMES = ("freecell", "bakers_game", "beleaguered_castle")
FOLLOWED = 5  # hinted moves followed per game
LINE_DEALS = int(os.environ.get("BENCH_LINE_DEALS", "30"))
HINT_BUDGET = 2.0  # the service's default hint budget
# Freecell Solver's configurations the hint lines are measured against: its default and
# the presets that give short lines (each with -opt); the shortest median is the reference
REFERENCES = ("", "looking-glass", "crooked-nose", "toons-for-twenty-somethings",
              "amateur-star", "sand-stone", "qualified-seed", "qualified-seed-improved",
              "video-editing", "micro-finance-improved")  # fmt: skip


def binary(game: str, board: str) -> tuple[str, float]:
    started = time.perf_counter()
    out = subprocess.run(
        ["fc-solve", "-g", game, "-l", "crooked-nose", "-mi", str(ITERATIONS)],
        input=board, capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    elapsed = time.perf_counter() - started
    states = 0
    for line in out.splitlines():
        if line.startswith("Total number of states checked is"):
            states = int(line.rsplit(" ", 1)[1].rstrip("."))
    if "This game is solveable." in out:
        return WINNABLE, elapsed
    if "I could not solve this game." in out and states < ITERATIONS:
        return UNWINNABLE, elapsed  # (the same words at the iteration limit: unknown)
    return UNKNOWN, elapsed


def compare(game: str) -> bool:
    cls = VARIANTS[game]
    have_binary = subprocess.run(["which", "fc-solve"], capture_output=True).returncode == 0
    times: dict[str, list[float]] = {"binary": [], "library": [], "ours": []}
    agree = disagree = 0
    unknown = {"binary": 0, "library": 0, "ours": 0}
    for deal in range(1, DEALS + 1):
        pos = cls.deal(deal)
        verdicts: dict[str, str] = {}
        if have_binary:
            verdicts["binary"], t = binary(game, pos.board_text())
            times["binary"].append(t)
        if fcsolve.available():
            found = fcsolve.solve(pos, max_iterations=ITERATIONS, preset=fcsolve.REFERENCE_PRESET)
            assert found is not None
            verdicts["library"] = found.verdict
            times["library"].append(found.seconds)
        mine = solve(pos, max_seconds=SECONDS)
        verdicts["ours"] = mine.verdict
        times["ours"].append(mine.seconds)
        if mine.moves is not None:
            check = pos.copy()
            for move in mine.moves:
                check.play(move)
            assert check.is_won, (game, deal)
        exact = {v for v in verdicts.values() if v != UNKNOWN}
        for name, v in verdicts.items():
            unknown[name] += v == UNKNOWN
        if len(exact) > 1:
            disagree += 1
            print(f"  DISAGREE {game} {deal}: {verdicts}")
        elif verdicts["ours"] != UNKNOWN and len(verdicts) > 1:
            agree += 1
    med = {k: statistics.median(v) for k, v in times.items() if v}
    line = f"{game:19s} deals 1-{DEALS}: ours exact and agreeing {agree}, disagreeing {disagree}"
    line += ", unknown " + ", ".join(f"{k} {n}" for k, n in unknown.items() if times[k])
    print(line)
    parts = [f"{k} {v * 1000:.1f} ms" for k, v in med.items()]
    ratios = [f"ours/{k} {med['ours'] / v:.1f}x" for k, v in med.items() if k != "ours" and v]
    print(f"{'':19s} median per deal: {', '.join(parts)}; {', '.join(ratios)}", flush=True)
    return disagree == 0


async def hint_latency(library: bool, prefetch: bool, pause: float) -> None:
    server = database_url()
    db = await fresh_database(server, f"bench_solver_{int(library)}{int(prefetch)}")
    port = free_port()
    env = {
        "PORT": str(port), "DATABASE_URL": db, "RATE_LIMITS": "off", "LOG_REQUESTS": "false",
        "SOLVER_LIBRARY": str(library).lower(), "SOLVER_PREFETCH": str(prefetch).lower(),
    }  # fmt: skip
    label = ("library" if library else "engine only") + (
        f", prefetch, asked {pause:g} s after" if prefetch else ", asked at once"
    )
    proc = start_process([PYTHON, "-m", "service", "run"], env)
    base = f"http://127.0.0.1:{port}"
    try:
        await wait_http(f"{base}/healthz")
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{base}/v1/players", json={"name": "bench"}) as r:
                token = (await r.json())["token"]
            auth = {"Authorization": f"Bearer {token}"}
            for variant in (*GAMES, "bakers_dozen"):
                hints: list[float] = []
                moves: list[float] = []
                along: list[float] = []
                verdicts: dict[str, int] = {}
                deal = 500
                warm = True
                while len(hints) < HINT_GAMES:
                    deal += 1
                    if table(variant).solvable(deal) is False:
                        continue  # openings a player is dealt: known to have no solution
                    body = {"variant": variant, "deal": deal, "autoplay": False}
                    async with s.post(f"{base}/v1/games", json=body, headers=auth) as r:
                        r.raise_for_status()
                        gid = (await r.json())["id"]
                    await asyncio.sleep(pause)  # a player looks at the deal first
                    t0 = time.perf_counter()
                    async with s.post(f"{base}/v1/games/{gid}/hint", json={}, headers=auth) as r:
                        h = await r.json()
                    t1 = time.perf_counter()
                    if warm:  # the first search starts the worker process
                        warm = False
                        continue
                    hints.append(t1 - t0)
                    verdicts[h["verdict"]] = verdicts.get(h["verdict"], 0) + 1
                    if h["verdict"] != "winnable":
                        async with s.get(f"{base}/v1/games/{gid}/legal-moves") as r:
                            legal = (await r.json())["moves"]
                        t0 = time.perf_counter()
                        async with s.post(
                            f"{base}/v1/games/{gid}/moves", json=legal[0], headers=auth
                        ) as r:
                            await r.read()
                        moves.append(time.perf_counter() - t0)
                        continue
                    for _ in range(FOLLOWED):  # follow the line: each hint is a lookup
                        t0 = time.perf_counter()
                        async with s.post(
                            f"{base}/v1/games/{gid}/moves", json=h["move"], headers=auth
                        ) as r:
                            state = await r.json()
                        moves.append(time.perf_counter() - t0)
                        if state.get("game", {}).get("status") != "playing":
                            break
                        t0 = time.perf_counter()
                        async with s.post(
                            f"{base}/v1/games/{gid}/hint", json={}, headers=auth
                        ) as r:
                            h = await r.json()
                        along.append(time.perf_counter() - t0)
                mh, mm = statistics.median(hints), statistics.median(moves)
                ma = statistics.median(along) if along else float("nan")
                print(
                    f"  {label:36s} {variant:19s} "
                    f"opening hint p50 {mh * 1000:7.1f} ms, move p50 {mm * 1000:5.1f} ms, "
                    f"ratio {mh / mm:5.1f}x; along the line p50 {ma * 1000:5.1f} ms, "
                    f"ratio {ma / mm:4.2f}x  verdicts {verdicts}",
                    flush=True,
                )
    finally:
        stop_process(proc)


def lines(game: str) -> None:
    from engine.solver.shorten import shorten
    from service.solver.pool import search

    deals = [d for d in range(1, 2000) if table(game).solvable(d)][:LINE_DEALS]
    ours: list[int] = []
    refs: dict[str, list[int]] = {}
    for deal in deals:
        pos = VARIANTS[game].deal(deal)
        _, line, _, _ = search(pos, HINT_BUDGET)
        ours.append(len(line) if line is not None else 10_000)
        if game == "bakers_dozen":
            long = solve(pos, max_seconds=60)
            best = shorten(pos, long.moves, depth=2, seconds=60) if long.moves else None
            refs.setdefault("engine, a minute", []).append(len(best) if best else 10_000)
            continue
        for preset in REFERENCES if fcsolve.available() else ():
            found = fcsolve.solve(pos, max_seconds=30, preset=preset, optimize=True)
            n = len(found.moves) if found is not None and found.moves is not None else 10_000
            refs.setdefault(f"fc-solve {preset or 'default'} -opt", []).append(n)
    if not refs:
        print(f"  {game:19s} no reference (Freecell Solver's library is not installed)")
        return
    medians = {name: statistics.median(v) for name, v in refs.items()}
    name = min(medians, key=medians.__getitem__)
    mine = statistics.median(ours)
    print(
        f"  {game:19s} {len(deals)} deals: opening moves_to_win median {mine:g}, "
        f"reference ({name}) {medians[name]:g}: ratio {mine / medians[name]:.2f}x",
        flush=True,
    )


def main() -> int:
    print(f"solver: {DEALS} deals per game, ours up to {SECONDS:g} s a deal, fc-solve up to "
          f"{ITERATIONS} iterations; library {fcsolve.version() or 'not installed'}")  # fmt: skip
    ok = True
    if "compare" in PARTS:
        ok = all([compare(game) for game in GAMES])
    if "hint" in PARTS:
        print(f"hint latency on {HINT_GAMES} opening positions per game (autoplay off):")
        asyncio.run(hint_latency(True, False, 0.0))  # the search itself, nothing cached
        asyncio.run(hint_latency(False, False, 0.0))
        asyncio.run(hint_latency(True, True, 0.3))  # as a player meets it: searched at creation
    if "lines" in PARTS:
        print("hint line length against Freecell Solver's shortest (goal: at most 1.2x):")
        for game in (*GAMES, "bakers_dozen"):
            lines(game)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
