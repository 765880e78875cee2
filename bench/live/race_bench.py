"""A race of 100 players, every one also watching the race: how long a racer's move takes to
reach every watcher as the race's Progress event, against how long a move takes.

The service runs as a subprocess on a fresh database.  100 players join one race (FreeCell
deal 617, autoplay off); each opens the race's stream; after the start each racer plays
moves (a card to a cell, then from cell to cell), a few racers at a time.  For every move,
the delivery time of its Progress event to each of the 100 watchers is measured from the
moment the move was sent; the reference is the move request's own latency in the same run.
Prints p50 and p99 of both and the ratio of the p99s (goal: at most 2).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from datetime import UTC, datetime
from typing import Any

import aiohttp
import orjson

from ..common import (
    PYTHON,
    database_url,
    free_port,
    fresh_database,
    percentile,
    start_process,
    stop_process,
    wait_http,
)

RACERS = 100
MOVES_PER_RACER = 5
AT_ONCE = 5  # racers moving at the same time


async def main() -> int:
    db = await fresh_database(database_url(), "bench_race")
    port = free_port()
    proc = start_process([PYTHON, "-m", "service", "run"],
                         {"PORT": str(port), "DATABASE_URL": db, "RATE_LIMITS": "off",
                          "WORKERS": "1", "LOG_REQUESTS": "false"})  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    sent: dict[tuple[str, int], float] = {}  # (player, moves) -> when that move was sent
    delivered: list[float] = []
    moves: list[float] = []
    try:
        await wait_http(f"{base}/healthz")
        conn = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=conn) as s:
            tokens: list[tuple[str, str]] = []
            for n in range(RACERS):
                async with s.post(f"{base}/v1/players", json={"name": f"racer {n}"}) as r:
                    body = await r.json()
                    tokens.append((body["id"], body["token"]))

            def auth(i: int) -> dict[str, str]:
                return {"Authorization": f"Bearer {tokens[i][1]}"}

            spec = {"variant": "freecell", "deal": 617, "starts_in_s": 20,
                    "max_players": RACERS, "max_minutes": 10, "autoplay": False}  # fmt: skip
            async with s.post(f"{base}/v1/races", json=spec, headers=auth(0)) as r:
                assert r.status == 201, await r.text()
                race = await r.json()
            rid = race["id"]
            for i in range(1, RACERS):
                async with s.post(f"{base}/v1/races/{rid}/join", json={}, headers=auth(i)) as r:
                    assert r.status == 200, await r.text()
            sockets = [await s.ws_connect(f"{base}/v1/races/{rid}/stream?after=0")
                       for _ in range(RACERS)]  # fmt: skip

            async def watch(ws: aiohttp.ClientWebSocketResponse) -> None:
                async for msg in ws:
                    event = orjson.loads(msg.data)
                    if event.get("type") == "Progress":
                        data = event["data"]
                        at = sent.get((data["player"], data["moves"]))
                        if at is not None:
                            delivered.append(time.perf_counter() - at)

            watchers = [asyncio.create_task(watch(ws)) for ws in sockets]
            start = datetime.fromisoformat(race["starts_at"])
            await asyncio.sleep(max(0.0, (start - datetime.now(UTC)).total_seconds()) + 0.5)
            async with s.get(f"{base}/v1/races/{rid}") as r:
                race = await r.json()
            games = {p["player"]["id"]: p["game_id"] for p in race["players"]}
            assert all(games.values()), race

            async def play(i: int) -> None:
                pid = tokens[i][0]
                gid = games[pid]
                held = 0
                for k in range(1, MOVES_PER_RACER + 1):
                    move: dict[str, Any] = (
                        {"from": "t1", "to": "c1"} if held == 0
                        else {"from": f"c{held}", "to": f"c{held % 4 + 1}"}
                    )  # fmt: skip
                    sent[(pid, k)] = t0 = time.perf_counter()
                    async with s.post(f"{base}/v1/games/{gid}/moves", json=move,
                                      headers=auth(i)) as r:  # fmt: skip
                        assert r.status == 201, await r.text()
                    moves.append(time.perf_counter() - t0)
                    held = 1 if held == 0 else held % 4 + 1
                    await asyncio.sleep(0.05)

            for first in range(0, RACERS, AT_ONCE):
                await asyncio.gather(*(play(i) for i in range(first, first + AT_ONCE)))
            expected = RACERS * MOVES_PER_RACER * RACERS
            deadline = time.monotonic() + 30
            while len(delivered) < expected and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            for ws in sockets:
                await ws.close()
            for w in watchers:
                w.cancel()
    finally:
        stop_process(proc)
    d50, d99 = statistics.median(delivered), percentile(delivered, 0.99)
    m50, m99 = statistics.median(moves), percentile(moves, 0.99)
    print(f"race of {RACERS} racers, each watching: {len(delivered)} of "
          f"{RACERS * MOVES_PER_RACER * RACERS} Progress deliveries")
    print(f"  delivery p50 {d50 * 1000:6.1f} ms, p99 {d99 * 1000:6.1f} ms; move p50 "
          f"{m50 * 1000:5.1f} ms, p99 {m99 * 1000:5.1f} ms; delivery p99 {d99 / m99:.1f}x the "
          "move's (goal <= 2)")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
