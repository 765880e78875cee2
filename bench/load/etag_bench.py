"""A 304 against the full GET of the same thing, under wrk.

The service runs as a process of its own (`make run`'s defaults, one worker, rate limits
off, request logging on) on a fresh database. For a game of FreeCell deal 617, its legal
moves, its log and the deal's board (empty: the bench wins no game), `wrk` (2 threads, 32
connections, 5 s) sends the same GET without and with `If-None-Match` set to its tag,
three alternating rounds. Prints the service's CPU per
request and the throughput of each, and the medians of the 304's ratios to the full GET's.
Each round also runs wrk against bench/load/bare_304.py, a bare aiohttp handler's 304 (no
database, middleware or log): the least an aiohttp 304 costs, as a ratio to the same full
GET.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys

import aiohttp
import psutil

from ..common import (
    PYTHON,
    cpu_total,
    free_port,
    lone_service,
    start_process,
    stop_process,
    wait_http,
)

ROUNDS = 3


def wrk(url: str, *headers: str) -> tuple[int, float]:
    """(requests, requests a second) of one wrk run."""
    args = ["wrk", "-t2", "-c32", "-d5s", *(h for header in headers for h in ("-H", header))]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    requests = re.search(r"(\d+) requests in", out)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    assert requests and rate, out
    return int(requests.group(1)), float(rate.group(1))


async def main() -> int:
    bare_port = free_port()
    bare = start_process([PYTHON, "-m", "bench.load.bare_304", str(bare_port)])
    try:
        await wait_http(f"http://127.0.0.1:{bare_port}/games/1")
        return await measure(f"http://127.0.0.1:{bare_port}/games/1", psutil.Process(bare.pid))
    finally:
        stop_process(bare)


async def measure(bare_url: str, bare: psutil.Process) -> int:
    async with lone_service("bench_etag") as (base, token, proc), aiohttp.ClientSession() as s:
        body = {"variant": "freecell", "deal": 617, "autoplay": False}
        async with s.post(f"{base}/v1/games", json=body,
                          headers={"Authorization": f"Bearer {token}"}) as r:  # fmt: skip
            gid = (await r.json())["id"]
        await asyncio.sleep(3)  # (the opening's search in the background ends)
        server = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(True)]
        for what, path in (("game", f"/v1/games/{gid}"),
                           ("legal moves", f"/v1/games/{gid}/legal-moves"),
                           ("events", f"/v1/games/{gid}/events"),
                           ("board", "/v1/leaderboards/freecell/617")):  # fmt: skip
            async with s.get(base + path) as r:
                tag = r.headers["ETag"]
            cpu_ratios, rate_ratios, bare_ratios = [], [], []
            for n in range(ROUNDS):
                figures = []
                for url, processes, headers in (
                    (base + path, server, ()),
                    (base + path, server, (f"If-None-Match: {tag}",)),
                    (bare_url, [bare], ('If-None-Match: "bare.1"',)),
                ):
                    before = cpu_total(processes)
                    requests, rate = wrk(url, *headers)
                    figures.append(((cpu_total(processes) - before) / requests, rate))
                (full_cpu, full_rate), (cond_cpu, cond_rate), (bare_cpu, _) = figures
                print(f"{what}, round {n + 1}: full {full_cpu * 1e6:4.0f} us {full_rate:7.0f}"
                      f" req/s; 304 {cond_cpu * 1e6:4.0f} us {cond_rate:7.0f} req/s;"
                      f" bare aiohttp 304 {bare_cpu * 1e6:4.0f} us")
                cpu_ratios.append(cond_cpu / full_cpu)
                rate_ratios.append(cond_rate / full_rate)
                bare_ratios.append(bare_cpu / full_cpu)
            print(f"{what}: a 304's CPU {sorted(cpu_ratios)[ROUNDS // 2]:.2f}x the full"
                  f" GET's (goal <= 0.3x), throughput {sorted(rate_ratios)[ROUNDS // 2]:.2f}x;"
                  f" a bare aiohttp 304 {sorted(bare_ratios)[ROUNDS // 2]:.2f}x"
                  f" (medians of {ROUNDS} rounds)")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
