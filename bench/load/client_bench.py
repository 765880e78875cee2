"""What a phone app saves: a batch of 100 moves against the same 100 moves one request at a
time, and a conditional GET answered 304 against a full GET of the same game (and of its
legal moves), in the service's CPU.

The service runs as a subprocess on a fresh database (rate limits off); one client sends
the requests one after another (what an app on one phone does), so the figures are
latencies, each a ratio to its reference in the same run.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

import aiohttp
import psutil

from service.live.beats import ALONE_AFTER

from ..common import cpu_total, lone_service

MOVES = 100
ROUNDS = 5
GETS = 2000


def cell_moves(count: int) -> list[dict[str, str]]:
    """FreeCell deal 617, autoplay off: t1's card to a cell, then from cell to cell."""
    moves = [{"from": "t1", "to": "c1"}]
    while len(moves) < count:
        held = int(moves[-1]["to"][1])
        moves.append({"from": f"c{held}", "to": f"c{held % 4 + 1}"})
    return moves


async def main() -> int:
    async with lone_service("bench_client") as (base, token, proc), aiohttp.ClientSession() as s:
        auth = {"Authorization": f"Bearer {token}"}

        async def new_game() -> str:
            body = {"variant": "freecell", "deal": 617, "autoplay": False}
            async with s.post(f"{base}/v1/games", json=body, headers=auth) as r:
                return str((await r.json())["id"])

        singles, batches = [], []
        for _ in range(ROUNDS):
            gid = await new_game()
            started = time.perf_counter()
            for move in cell_moves(MOVES):
                async with s.post(f"{base}/v1/games/{gid}/moves", json=move,
                                  headers=auth) as r:  # fmt: skip
                    assert r.status == 201, await r.text()
            singles.append(time.perf_counter() - started)
            gid = await new_game()
            started = time.perf_counter()
            async with s.post(f"{base}/v1/games/{gid}/moves",
                              json={"moves": cell_moves(MOVES)}, headers=auth) as r:
                assert r.status == 201, await r.text()  # fmt: skip
            batches.append(time.perf_counter() - started)

        # a full GET against a 304 of the same thing, in the service's CPU (all its
        # processes) over GETS requests each, one after another, once the instance knows
        # it is alone (before, each 304 waits for a beat of its own through PostgreSQL:
        # docs/architecture.md) and the new games' openings are searched
        await asyncio.sleep(ALONE_AFTER + 1)
        server = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(True)]
        cpu: dict[str, tuple[float, float]] = {}
        for what, path in (("game", f"/v1/games/{gid}"),
                           ("legal moves", f"/v1/games/{gid}/legal-moves")):  # fmt: skip
            async with s.get(f"{base}{path}") as r:
                tag = r.headers["ETag"]
            spent = []
            for headers in ({}, {"If-None-Match": tag}):
                before = cpu_total(server)
                for _ in range(GETS):
                    async with s.get(f"{base}{path}", headers=headers) as r:
                        assert r.status == (304 if headers else 200)
                        await r.read()
                spent.append((cpu_total(server) - before) / GETS)
            cpu[what] = (spent[0], spent[1])
    one, batch = statistics.median(singles), statistics.median(batches)
    print(f"{MOVES} moves: one request each {one * 1000:7.1f} ms, one batch {batch * 1000:6.1f} ms:"
          f" the batch {one / batch:5.1f}x faster (goal >= 10x; median of {ROUNDS})")
    for what, (full, cached) in cpu.items():
        print(f"GET of a {what} (a game of {MOVES} events): the service's CPU per request, full"
              f" {full * 1e6:5.0f} us, 304 {cached * 1e6:5.0f} us: {cached / full:.2f}x the full"
              f" GET's (goal <= 0.3x; {GETS} each)")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
