"""The move endpoint against the floor (../shared/bench/bare_server.py), same run, same load.

64 concurrent clients; each plays legal moves of its own game (chosen with a local copy of
the engine, so no extra request is needed), undoing now and then, starting a new game when
one ends. The floor gets the same number of clients posting the same kind of JSON bodies.
Prints moves per second, p50 and p99 for both, and the ratios.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass, field

import aiohttp
import orjson
import psutil

from engine import Event, Game, Move

from ..common import (
    PYTHON,
    ROOT,
    SHARED,
    cpu_total,
    database_url,
    free_port,
    fresh_database,
    percentile,
    start_process,
    stop_process,
    wait_http,
)

CLIENTS = int(os.environ.get("BENCH_CLIENTS", "64"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
WARMUP = 2.0


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    started: float = 0.0
    stopped: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.latencies) / (self.stopped - self.started)


async def _timed(run: Run, coro_factory, deadline: float, warm_until: float) -> None:  # type: ignore[no-untyped-def]
    while True:
        t0 = time.perf_counter()
        if t0 > deadline:
            return
        ok = await coro_factory()
        t1 = time.perf_counter()
        if t0 >= warm_until:
            if ok:
                run.latencies.append(t1 - t0)
            else:
                run.errors += 1


async def bench_floor(base: str) -> Run:
    run = Run()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CLIENTS)) as s:

        async def client(n: int) -> None:
            body = {"from": "t1", "to": "c", "count": 1}

            async def one() -> bool:
                async with s.post(f"{base}/games/{n}/moves", json=body) as r:
                    await r.read()
                    return r.status == 200

            await _timed(run, one, deadline, warm)

        start = time.perf_counter()
        warm, deadline = start + WARMUP, start + WARMUP + SECONDS
        await asyncio.gather(*(client(n) for n in range(CLIENTS)))
        run.started, run.stopped = warm, deadline
    return run


async def bench_service(base: str) -> Run:
    run = Run()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CLIENTS)) as s:
        async with s.post(f"{base}/v1/players", json={"name": "bench"}) as r:
            token = (await r.json())["token"]
        headers = {"Authorization": f"Bearer {token}"}

        async def new_game(rng: random.Random) -> tuple[str, Game]:
            async with s.post(
                f"{base}/v1/games",
                headers=headers,
                json={"variant": "freecell", "deal": rng.randint(1, 32000)},
            ) as r:
                body = await r.json()
            events = [
                Event(
                    "GameCreated", {"variant": "freecell", "deal": body["deal"], "autoplay": True}
                )
            ]
            events += [Event(e["type"], e["data"]) for e in body["events"][1:]]
            return body["id"], Game.replay(events)

        async def client(n: int) -> None:
            rng = random.Random(n)
            gid, game = await new_game(rng)

            async def one() -> bool:
                nonlocal gid, game
                legal = list(game.position.legal_moves)
                if game.status != "playing" or not legal:
                    gid, game = await new_game(rng)
                    legal = list(game.position.legal_moves)
                if game.can_undo and rng.random() < 0.1:
                    url, body = f"{base}/v1/games/{gid}/undo", {}
                else:
                    m: Move = rng.choice(legal)
                    url = f"{base}/v1/games/{gid}/moves"
                    body = {"from": m.source, "to": m.target, "count": m.count}
                async with s.post(url, json=body, headers=headers) as r:
                    answer = orjson.loads(await r.read())
                if r.status != 201:
                    return False
                for e in answer["events"]:
                    game.apply(Event(e["type"], e["data"]))
                return True

            await _timed(run, one, deadline, warm)

        start = time.perf_counter()
        warm, deadline = start + WARMUP, start + WARMUP + SECONDS
        await asyncio.gather(*(client(n) for n in range(CLIENTS)))
        run.started, run.stopped = warm, deadline
    return run


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far."""
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


def postgres_cpu() -> float:
    """CPU of the benchmark's PostgreSQL server: its postmaster and all its children
    (the embedded server in .pgdata-bench; with DATABASE_URL, every postgres process)."""
    pidfile = ROOT / ".pgdata-bench" / "postmaster.pid"
    procs: list[psutil.Process]
    if "DATABASE_URL" not in os.environ and pidfile.exists():
        master = psutil.Process(int(pidfile.read_text().split()[0]))
        procs = [master, *master.children(recursive=True)]
    else:
        procs = [p for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres"]
    return cpu_total(procs)


def report(name: str, run: Run) -> str:
    p50 = percentile(run.latencies, 0.5) * 1e3
    p99 = percentile(run.latencies, 0.99) * 1e3
    return (
        f"{name:<10} {run.rate:10.0f} moves/s   p50 {p50:7.2f} ms   p99 {p99:7.2f} ms"
        f"   errors {run.errors}"
    )


async def main() -> None:
    server = database_url()
    floor_port, service_port = free_port(), free_port()
    bare = SHARED / "bench" / "bare_server.py"
    floor_db = await fresh_database(server, "bench_floor")
    service_db = await fresh_database(server, "bench_service")
    floor = start_process([PYTHON, str(bare), str(floor_port), floor_db])
    service = start_process(
        [PYTHON, "-m", "service", "run"],
        {"PORT": str(service_port), "DATABASE_URL": service_db, "RATE_LIMITS": "off",
         "LOG_REQUESTS": "false"},
    )
    try:
        await wait_http(f"http://127.0.0.1:{floor_port}/hello")
        await wait_http(f"http://127.0.0.1:{service_port}/healthz")
        if os.environ.get("BENCH_SHOW_PIDS"):
            print(f"pids: floor {floor.pid} service {service.pid}", flush=True)
        print(f"move endpoint: {CLIENTS} concurrent clients; {ROUNDS} alternating rounds of "
              f"{SECONDS:.0f} s each after {WARMUP:.0f} s warm-up (floor, service, floor, ...)")
        ratios = []
        for n in range(ROUNDS):
            c0 = time.process_time()
            cpu0 = cpu_seconds(floor.pid), postgres_cpu()
            f = await bench_floor(f"http://127.0.0.1:{floor_port}")
            c1 = time.process_time()
            cpu1 = cpu_seconds(service.pid), postgres_cpu()
            cpu_f = cpu_seconds(floor.pid) - cpu0[0], cpu1[1] - cpu0[1]
            p = await bench_service(f"http://127.0.0.1:{service_port}")
            c2 = time.process_time()
            cpu_p = cpu_seconds(service.pid) - cpu1[0], postgres_cpu() - cpu1[1]
            moves_f = len(f.latencies) * (WARMUP + SECONDS) / SECONDS
            moves_p = len(p.latencies) * (WARMUP + SECONDS) / SECONDS
            span = WARMUP + SECONDS
            print(f"round {n + 1}")
            print("  " + report("floor", f))
            print("  " + report("service", p))
            print(f"  load generator CPU: {(c1 - c0) / span:.0%} (floor run), "
                  f"{(c2 - c1) / span:.0%} (service run) of one core")
            print(f"  CPU per move: server {cpu_p[0] / moves_p * 1e6:.0f} us vs floor "
                  f"{cpu_f[0] / moves_f * 1e6:.0f} us; PostgreSQL {cpu_p[1] / moves_p * 1e6:.0f} us"
                  f" vs {cpu_f[1] / moves_f * 1e6:.0f} us")
            ratios.append((
                p.rate / f.rate,
                percentile(p.latencies, 0.5) / percentile(f.latencies, 0.5),
                percentile(p.latencies, 0.99) / percentile(f.latencies, 0.99),
            ))
        tput = sorted(r[0] for r in ratios)[len(ratios) // 2]
        p50 = sorted(r[1] for r in ratios)[len(ratios) // 2]
        p99 = sorted(r[2] for r in ratios)[len(ratios) // 2]
        print(f"median ratio over {ROUNDS} rounds: throughput {tput:.2f} of the floor "
              f"(goal >= 0.6); p50 {p50:.2f}x; p99 {p99:.2f}x the floor's (goal <= 2)")
    finally:
        stop_process(floor)
        stop_process(service)


if __name__ == "__main__":
    asyncio.run(main())
