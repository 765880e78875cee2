"""The move endpoint against the floor with a real load generator: wrk.

``wrk`` (Debian's; ``make bench`` installs it when missing and it can) runs 2 threads and
64 connections against each server in turn, three alternating rounds (floor, service,
floor, ...), each on fresh games.  A Lua script reads a prepared list of requests per
thread: legal moves of 512 FreeCell games per thread, autoplay off, a card going from cell
to cell and now and then an undo, interleaved so that one game's next request comes only
after 511 others (so one game has two requests in flight only when one of them waits
that long; a non-2xx count above zero says so).  The floor
(../shared/bench/bare_server.py) gets the same bodies on its own games.

Prints, per round and as the median of the ratios: requests per second, p50 and p99
latency (wrk's), non-2xx answers, and the CPU seconds per move of the server (all its
processes) and of PostgreSQL.  ``WORKERS`` for the service comes from BENCH_WORKERS
(default: "default,1": ``make run``'s own default, one per core, then one worker), and
BENCH_SERVICE_ENV adds settings of the service's own (``RATE_LIMITS`` is off by default).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import aiohttp
import psutil

from engine import Game, Move
from service.workers import default_workers

from ..common import (
    PYTHON,
    SHARED,
    cpu_total,
    database_url,
    free_port,
    fresh_database,
    start_process,
    stop_process,
    wait_http,
)
from .move_bench import postgres_cpu

THREADS = 2
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "64"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
GAMES_PER_THREAD = 512
MOVES_PER_GAME = int(os.environ.get("BENCH_MOVES_PER_GAME", "80"))
# settings of the service's own, as NAME=VALUE,NAME=VALUE (for one: the limits of one
# client switched on, docs/performance.md)
SERVICE_ENV = dict(
    item.split("=", 1) for item in os.environ.get("BENCH_SERVICE_ENV", "").split(",") if item
)
DEAL = 617  # FreeCell: t1's free card goes to a cell, then from cell to cell

LUA = r"""
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args)
  reqs = {}
  local f = assert(io.open(args[1] .. "." .. id, "r"))
  local auth = args[2]
  for line in f:lines() do
    local path, body = line:match("([^\t]*)\t(.*)")
    local headers = {["Content-Type"] = "application/json"}
    if auth ~= "" then headers["Authorization"] = "Bearer " .. auth end
    reqs[#reqs + 1] = wrk.format("POST", path, headers, body)
  end
  f:close()
  -- wrk asks the first thread's script for one request before the run, to check it, and
  -- never sends it: that thread's list starts with a copy of its first request for it
  if id == 0 then table.insert(reqs, 1, reqs[1]) end
  i = 0
end
function request()
  i = i + 1
  if i > #reqs then i = 1 end
  return reqs[i]
end
function done(summary, latency, requests)
  io.write(string.format("P50 %d\nP99 %d\nDONE %d\nNON2XX %d\n", latency:percentile(50),
    latency:percentile(99), summary.requests, summary.errors.status))
end
"""


def game_requests(game_path: str, moves: int) -> list[tuple[str, str]]:
    """(path, body) of ``moves`` legal requests on a new game of DEAL, autoplay off."""
    game, _ = Game.new("freecell", DEAL, False)
    out: list[tuple[str, str]] = []
    for k in range(moves):
        if k % 10 == 9 and game.can_undo:
            game.undo()
            out.append((f"{game_path}/undo", "{}"))
            continue
        where = [i for i, card in enumerate(game.position.cells) if card is not None]
        if not where:
            move = Move("t1", "c1")
        else:
            held = where[0]
            move = Move(f"c{held + 1}", f"c{(held + 1) % 4 + 1}")
        game.play(move)
        out.append((f"{game_path}/moves", f'{{"from":"{move.source}","to":"{move.target}"}}'))
    return out


def interleaved(per_game: list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    return [game[k] for k in range(len(per_game[0])) for game in per_game]


def write_lists(folder: Path, name: str, per_thread: list[list[tuple[str, str]]]) -> Path:
    base = folder / name
    for t, requests in enumerate(per_thread):
        with open(f"{base}.{t}", "w") as out:
            out.writelines(f"{path}\t{body}\n" for path, body in requests)
    return base


def parse(output: str) -> dict[str, float]:
    values = dict(re.findall(r"^(P50|P99|DONE|NON2XX) (\d+)$", output, re.M))
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    if rate is None or len(values) < 4:
        raise RuntimeError(f"unexpected wrk output:\n{output}")
    return {
        "rate": float(rate.group(1)),
        "p50": int(values["P50"]) / 1000,
        "p99": int(values["P99"]) / 1000,
        "requests": float(values["DONE"]),
        "non2xx": float(values["NON2XX"]),
    }


def wrk(url: str, script: Path, lists: Path, token: str) -> dict[str, float]:
    out = subprocess.run(
        ["wrk", f"-t{THREADS}", f"-c{CONNECTIONS}", f"-d{SECONDS}s", "-s", str(script),
         url, "--", str(lists), token],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return parse(out)


def cpu_of(pid: int) -> float:
    """User + system CPU of a process and all its children so far."""
    try:
        root = psutil.Process(pid)
        return cpu_total([root, *root.children(recursive=True)])
    except psutil.Error:
        return 0.0


async def prepare_round(
    base: str, token: str, folder: Path, n: int, games: int = GAMES_PER_THREAD
) -> tuple[Path, Path]:
    """Fresh games on the service (`games` per thread), and the request lists for both
    servers."""
    auth = {"Authorization": f"Bearer {token}"}
    service_threads, floor_threads = [], []
    async with aiohttp.ClientSession() as s:
        for t in range(THREADS):
            service_games, floor_games = [], []
            for g in range(games):
                body = {"variant": "freecell", "deal": DEAL, "autoplay": False}
                async with s.post(f"{base}/v1/games", json=body, headers=auth) as r:
                    r.raise_for_status()
                    gid = (await r.json())["id"]
                service_games.append(game_requests(f"/v1/games/{gid}", MOVES_PER_GAME))
                number = (n * THREADS + t) * games + g + 1
                floor_games.append(
                    [(f"/games/{number}/moves", body) for _, body in service_games[-1]]
                )
            service_threads.append(interleaved(service_games))
            floor_threads.append(interleaved(floor_games))
    return (
        write_lists(folder, f"service{n}", service_threads),
        write_lists(folder, f"floor{n}", floor_threads),
    )


async def solver_settled(base: str, token: str) -> None:
    """Each new game's opening is searched in the background for its first hint: once
    for DEAL, whose games all open alike. Wait for that search (a hint on a game of our
    own) so that it runs before the rounds, not during one of them."""
    auth = {"Authorization": f"Bearer {token}"}
    body = {"variant": "freecell", "deal": DEAL, "autoplay": False}
    async with aiohttp.ClientSession(headers=auth) as s:
        async with s.post(f"{base}/v1/games", json=body) as r:
            gid = (await r.json())["id"]
        for _ in range(30):
            async with s.post(f"{base}/v1/games/{gid}/hint", json={}) as r:
                if (await r.json()).get("verdict") != "unknown":
                    return


async def measure(workers: int | None, folder: Path) -> list[tuple[float, float, float]]:
    server = database_url()
    floor_port, service_port = free_port(), free_port()
    floor_db = await fresh_database(server, "bench_wrk_floor")
    service_db = await fresh_database(server, "bench_wrk_service")
    floor = start_process([PYTHON, str(SHARED / "bench" / "bare_server.py"), str(floor_port),
                           floor_db])  # fmt: skip
    env = {"PORT": str(service_port), "DATABASE_URL": service_db, "RATE_LIMITS": "off"}
    env.update(SERVICE_ENV)
    if workers is not None:
        env["WORKERS"] = str(workers)
    service = start_process([PYTHON, "-m", "service", "run"], env)
    script = folder / "moves.lua"
    script.write_text(LUA)
    ratios = []
    try:
        base = f"http://127.0.0.1:{service_port}"
        await wait_http(f"http://127.0.0.1:{floor_port}/hello")
        await wait_http(f"{base}/healthz")
        async with (
            aiohttp.ClientSession() as s,
            s.post(f"{base}/v1/players", json={"name": "bench"}) as r,
        ):
            token = (await r.json())["token"]
        await solver_settled(base, token)
        print(f"WORKERS={label(workers)}: wrk -t{THREADS} -c{CONNECTIONS} -d{SECONDS}s, {ROUNDS} "
              "alternating rounds (floor, service)", flush=True)  # fmt: skip
        for n in range(ROUNDS):
            service_list, floor_list = await prepare_round(base, token, folder, n)
            cpu0 = cpu_of(floor.pid), postgres_cpu()
            f = wrk(f"http://127.0.0.1:{floor_port}", script, floor_list, "")
            cpu1 = cpu_of(service.pid), postgres_cpu()
            p = wrk(base, script, service_list, token)
            cpu2 = cpu_of(service.pid), postgres_cpu()
            floor_cpu = (cpu_of(floor.pid) - cpu0[0]) / f["requests"], (cpu1[1] - cpu0[1]) / f[
                "requests"]
            service_cpu = (cpu2[0] - cpu1[0]) / p["requests"], (cpu2[1] - cpu1[1]) / p[
                "requests"]
            print(f"round {n + 1}")
            for name, run, cpu in (("floor", f, floor_cpu), ("service", p, service_cpu)):
                print(f"  {name:<8} {run['rate']:8.0f} req/s  p50 {run['p50']:7.2f} ms  "
                      f"p99 {run['p99']:7.2f} ms  non-2xx {run['non2xx']:.0f}  CPU per move: "
                      f"server {cpu[0] * 1e6:5.0f} us, PostgreSQL {cpu[1] * 1e6:5.0f} us")
            ratios.append((p["rate"] / f["rate"], p["p50"] / f["p50"], p["p99"] / f["p99"]))
    finally:
        stop_process(floor)
        stop_process(service)
    return ratios


def label(workers: int | None) -> str:
    if workers is not None:
        return str(workers)
    return f"unset ({default_workers(os.environ.get('DATABASE_URL'))})"


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


async def main() -> int:
    if shutil.which("wrk") is None:
        print("wrk is not installed (Debian: apt-get install wrk); skipped")
        return 1
    workers = [None if w == "default" else int(w)
               for w in os.environ.get("BENCH_WORKERS", "default,1").split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as tmp:
        for w in workers:
            ratios = await measure(w, Path(tmp))
            print(f"WORKERS={label(w)}: median over {ROUNDS} rounds: throughput "
                  f"{median([r[0] for r in ratios]):.2f} of the floor (goal >= 0.6), p50 "
                  f"{median([r[1] for r in ratios]):.2f}x, p99 "
                  f"{median([r[2] for r in ratios]):.2f}x the floor's (goal <= 2)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
