"""The service directly on PostgreSQL and behind PgBouncer in transaction mode.

1. Moves a second (wrk, as bench/load/wrk_bench.py drives it: 2 threads, 64 connections,
   prepared legal moves of 512 games per thread) against one service process on its own
   database, in turn: direct; direct with DATABASE_POOLER=transaction (the statements
   unnamed, parsed again each time, as behind a pooler); through a pgbouncer of ours
   (DATABASE_POOLER=transaction, the listener on the direct connection); with the CPU
   per move of the service, of PostgreSQL's backends serving the benchmark's databases
   (not the whole machine's PostgreSQL: it is shared) and of pgbouncer. PostgreSQL's CPU
   per move gives the moves a second one PostgreSQL core can take.

2. Where PostgreSQL's connections run out: how many service instances (POOL_MAX
   connections each, and the listener's) fit under the server's max_connections; then
   INSTANCES instances on a database that admits LIMIT connections (CONNECTION LIMIT of a
   role of the benchmark's own, standing in for max_connections, which on a shared server
   cannot be spent), under load, direct and then through pgbouncer: the answers they give
   (the 503s of the direct run, with their problem) and the most connections PostgreSQL
   held.

Settings (environment): BENCH_SECONDS (10), BENCH_ROUNDS (3), BENCH_CONNECTIONS (64),
BENCH_INSTANCES (4), BENCH_LIMIT (40), BENCH_LOAD_SECONDS (8), DATABASE_URL as for every
benchmark.  PgBouncer is Debian's (`make bench` installs it when missing and it can),
started as tests/pgbouncer.py does for the tests.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import asyncpg
import psutil

from tests.pgbouncer import Pgbouncer, installed

from ..common import (
    PYTHON,
    cpu_total,
    database_url,
    free_port,
    fresh_database,
    start_process,
    stop_process,
    wait_http,
)
from .wrk_bench import (
    CONNECTIONS,
    DEAL,
    GAMES_PER_THREAD,
    LUA,
    MOVES_PER_GAME,
    SECONDS,
    THREADS,
    cpu_of,
    game_requests,
    interleaved,
    median,
    write_lists,
    wrk,
)

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
INSTANCES = int(os.environ.get("BENCH_INSTANCES", "4"))
LIMIT = int(os.environ.get("BENCH_LIMIT", "40"))
LOAD_SECONDS = float(os.environ.get("BENCH_LOAD_SECONDS", "8"))
POOL_MAX = 16  # the service's default
POOLER_SIZE = 20  # pgbouncer's server connections per database (its default_pool_size)
ROLE = "bench_pooler"


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def as_user(url: str, user: str, password: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, f"{user}:{password}@{host}", parts.path, parts.query, ""))


async def backends(server: str, databases: list[str]) -> list[psutil.Process]:
    """PostgreSQL's backends serving these databases now (this machine's server)."""
    conn = await asyncpg.connect(server)
    try:
        pids = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = ANY($1)", databases
        )
    finally:
        await conn.close()
    procs = []
    for (pid,) in pids:
        with contextlib.suppress(psutil.Error):
            procs.append(psutil.Process(pid))
    return procs


class BackendCpu:
    """CPU seconds of the backends of some databases between two looks (backends that
    came since count whole; the service's pools keep theirs)."""

    def __init__(self, server: str, databases: list[str]) -> None:
        self.server, self.databases = server, databases
        self.start: dict[int, float] = {}

    async def begin(self) -> None:
        self.start = {p.pid: cpu_total([p]) for p in await backends(self.server, self.databases)}

    async def seconds(self) -> float:
        procs = await backends(self.server, self.databases)
        return sum(cpu_total([p]) - self.start.get(p.pid, 0.0) for p in procs)


async def drop(server: str, databases: list[str]) -> None:
    conn = await asyncpg.connect(server)
    try:
        for name in databases:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


# ---------------------------------------------------------------- 1. moves a second


async def prepare(base: str, token: str, folder: Path, name: str) -> Path:
    """Fresh games on the service and wrk's request lists for them."""
    auth = {"Authorization": f"Bearer {token}"}
    per_thread = []
    async with aiohttp.ClientSession() as s:
        for _ in range(THREADS):
            games = []
            for _ in range(GAMES_PER_THREAD):
                body = {"variant": "freecell", "deal": DEAL, "autoplay": False}
                for attempt in range(3):  # a kept-alive connection closed under us
                    try:
                        async with s.post(f"{base}/v1/games", json=body, headers=auth) as r:
                            r.raise_for_status()
                            gid = (await r.json())["id"]
                        break
                    except aiohttp.ClientOSError:
                        if attempt == 2:
                            raise
                games.append(game_requests(f"/v1/games/{gid}", MOVES_PER_GAME))
            per_thread.append(interleaved(games))
    return write_lists(folder, name, per_thread)


async def token_of(base: str) -> str:
    async with (
        aiohttp.ClientSession() as s,
        s.post(f"{base}/v1/players", json={"name": "bench"}) as r,
    ):
        token: str = (await r.json())["token"]
        return token


async def throughput(server: str, folder: Path) -> None:
    direct_db = await fresh_database(server, "bench_pooler_direct")
    unnamed_db = await fresh_database(server, "bench_pooler_unnamed")
    pooled_db = await fresh_database(server, "bench_pooler_pooled")
    dbs = [database_name(u) for u in (direct_db, unnamed_db, pooled_db)]
    common = {"RATE_LIMITS": "off", "WORKERS": "1"}
    with Pgbouncer(server, pool_size=POOLER_SIZE) as pooler:
        # direct: asyncpg's named statements; unnamed: direct too, but the statements as
        # behind a pooler (DATABASE_POOLER=transaction: parsed again each time), which
        # tells the parsing from pgbouncer's own cost; pgbouncer: the real thing
        envs = {
            "direct": {"DATABASE_URL": direct_db},
            "unnamed": {"DATABASE_URL": unnamed_db, "DATABASE_POOLER": "transaction",
                        "LISTEN_DATABASE_URL": unnamed_db},
            "pgbouncer": {"DATABASE_URL": pooler.url(dbs[2]), "DATABASE_POOLER": "transaction",
                          "LISTEN_DATABASE_URL": pooled_db},
        }  # fmt: skip
        ports = {how: free_port() for how in envs}
        services = {
            how: start_process([PYTHON, "-m", "service", "run"],
                               {**common, **env, "PORT": str(ports[how])})
            for how, env in envs.items()
        }  # fmt: skip
        script = folder / "moves.lua"
        script.write_text(LUA)
        results: dict[str, list[dict[str, float]]] = {how: [] for how in envs}
        try:
            tokens = {}
            for how, port in ports.items():
                await wait_http(f"http://127.0.0.1:{port}/healthz")
                tokens[how] = await token_of(f"http://127.0.0.1:{port}")
            print(f"1. one service process, wrk -t{THREADS} -c{CONNECTIONS} -d{SECONDS}s, "
                  f"{ROUNDS} alternating rounds (direct, unnamed, pgbouncer); POOL_MAX {POOL_MAX}, "
                  f"pgbouncer's pool {POOLER_SIZE}", flush=True)  # fmt: skip
            for n in range(ROUNDS):
                print(f"round {n + 1}")
                for how, port in ports.items():
                    base = f"http://127.0.0.1:{port}"
                    lists = await prepare(base, tokens[how], folder, f"{how}{n}")
                    cpu = BackendCpu(server, dbs)
                    await cpu.begin()
                    service0 = cpu_of(services[how].pid)
                    bouncer0 = cpu_of(pooler.proc.pid) if pooler.proc else 0.0
                    run = wrk(base, script, lists, tokens[how])
                    done = run["requests"]
                    run["service_us"] = (cpu_of(services[how].pid) - service0) / done * 1e6
                    run["postgres_us"] = await cpu.seconds() / done * 1e6
                    bouncer = (cpu_of(pooler.proc.pid) if pooler.proc else 0.0) - bouncer0
                    run["pgbouncer_us"] = bouncer / done * 1e6
                    results[how].append(run)
                    print(f"  {how:<9} {run['rate']:7.0f} moves/s  p50 {run['p50']:6.2f} ms  "
                          f"p99 {run['p99']:7.2f} ms  non-2xx {run['non2xx']:.0f}  CPU per "
                          f"move: service {run['service_us']:4.0f} us, PostgreSQL "
                          f"{run['postgres_us']:4.0f} us, pgbouncer "
                          f"{run['pgbouncer_us']:4.0f} us", flush=True)  # fmt: skip
        finally:
            for proc in services.values():
                stop_process(proc)
            await drop(server, dbs)
    for how, runs in results.items():
        pg = median([r["postgres_us"] for r in runs])
        print(f"{how}: median {median([r['rate'] for r in runs]):.0f} moves/s, p99 "
              f"{median([r['p99'] for r in runs]):.2f} ms; PostgreSQL {pg:.0f} us per move: "
              f"{1e6 / pg:,.0f} moves a second per PostgreSQL core; pgbouncer "
              f"{median([r['pgbouncer_us'] for r in runs]):.0f} us per move")


# ---------------------------------------------------------------- 2. connections


async def headroom(server: str) -> None:
    conn = await asyncpg.connect(server)
    try:
        most = int(await conn.fetchval("SHOW max_connections"))
        reserved = int(await conn.fetchval("SHOW superuser_reserved_connections"))
        used = int(await conn.fetchval("SELECT count(*) FROM pg_stat_activity"
                                       " WHERE backend_type = 'client backend'"))
    finally:
        await conn.close()
    free = most - reserved - used
    print(f"2. this server: max_connections {most}, {reserved} reserved for superusers, "
          f"{used} in use now: {free} free; an instance holds up to POOL_MAX {POOL_MAX} + 1 "
          f"(the listener): {free // (POOL_MAX + 1)} instances fit directly (WORKERS=2: "
          f"{free // (2 * (POOL_MAX + 1))}); through one pgbouncer ({POOLER_SIZE} server "
          f"connections) the pooler's {POOLER_SIZE} and a listener per instance: "
          f"{max(0, free - POOLER_SIZE)} instances (with EVENTS_BROKER, no listener: as many "
          f"as pgbouncer's max_client_conn admits, 2000 / {POOL_MAX} = {2000 // POOL_MAX})",
          flush=True)  # fmt: skip


async def load(bases: list[str], seconds: float, per_instance: int = 32) -> dict[str, Any]:
    """`per_instance` players at once on each instance, each moving a card from cell to cell
    on a game of its own, as fast as answered."""
    statuses: collections.Counter[str] = collections.Counter()
    problems: collections.Counter[str] = collections.Counter()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as s:

        async def post(url: str, body: str, headers: dict[str, str], ends: float) -> Any:
            """POST until a 2xx (or time is up: None); every answer counted."""
            while time.monotonic() < ends:
                async with s.post(url, data=body, headers={
                        **headers, "Content-Type": "application/json"}) as r:
                    statuses[str(r.status)] += 1
                    answer = await r.json(content_type=None)
                    if r.status < 300:
                        return answer
                    problems[f"{r.status} {answer.get('title')}: "
                             f"{answer.get('detail')}"[:160]] += 1
                await asyncio.sleep(0.05)  # then the same request again
            return None

        async def player(base: str) -> None:
            ends = time.monotonic() + seconds
            me = await post(f"{base}/v1/players", '{"name": "bench"}', {}, ends)
            if me is None:
                return
            auth = {"Authorization": f"Bearer {me['token']}"}
            body = f'{{"variant": "freecell", "deal": {DEAL}, "autoplay": false}}'
            game = await post(f"{base}/v1/games", body, auth, ends)
            if game is None:
                return
            for path, text in game_requests(f"/v1/games/{game['id']}", 10_000):
                if await post(f"{base}{path}", text, auth, ends) is None:
                    return

        await asyncio.gather(*(player(b) for b in bases for _ in range(per_instance)))
    return {"statuses": statuses, "problems": problems}


async def most_connections(
    server: str, db: str, stop: asyncio.Event, probe: str
) -> tuple[int, str]:
    """The most connections the database had while the load ran, and what PostgreSQL
    told one more connection (of the role) when they were all taken."""
    most, refused = 0, ""
    conn = await asyncpg.connect(server)
    try:
        while not stop.is_set():
            n = await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", db)
            most = max(most, n)
            if n >= LIMIT and not refused:
                try:
                    extra = await asyncpg.connect(probe)
                    await extra.close()
                except asyncpg.PostgresError as exc:
                    refused = f"{type(exc).__name__}: {exc}"
            await asyncio.sleep(0.1)
    finally:
        await conn.close()
    return most, refused


async def exhaustion(server: str) -> None:
    password = secrets.token_hex(8)
    conn = await asyncpg.connect(server)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{ROLE}" WITH (FORCE)')
        await conn.execute(f"DROP ROLE IF EXISTS {ROLE}")
        await conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{password}' CONNECTION LIMIT "
                           f"{LIMIT}")  # fmt: skip
        await conn.execute(f'CREATE DATABASE "{ROLE}" OWNER {ROLE}')
    finally:
        await conn.close()
    direct = as_user(urlunsplit(urlsplit(server)._replace(path="/" + ROLE)), ROLE, password)
    from service.database.migrate import upgrade

    await asyncio.to_thread(upgrade, direct)
    print(f"   {INSTANCES} instances (WORKERS=1, POOL_MAX {POOL_MAX}) on a database whose "
          f"role may hold {LIMIT} connections, 32 players moving on each for "
          f"{LOAD_SECONDS:.0f} s:", flush=True)  # fmt: skip
    try:
        with Pgbouncer(direct, pool_size=POOLER_SIZE) as pooler:
            for how in ("direct", "pgbouncer"):
                env = {"RATE_LIMITS": "off", "WORKERS": "1", "LOG_REQUESTS": "false",
                       "DATABASE_URL": direct, "POOL_MAX": str(POOL_MAX)}  # fmt: skip
                if how == "pgbouncer":
                    env.update({"DATABASE_URL": pooler.url(ROLE),
                                "DATABASE_POOLER": "transaction", "LISTEN_DATABASE_URL": direct})
                ports = [free_port() for _ in range(INSTANCES)]
                procs = [start_process([PYTHON, "-m", "service", "run"], {**env, "PORT": str(p)})
                         for p in ports]  # fmt: skip
                try:
                    bases = [f"http://127.0.0.1:{p}" for p in ports]
                    for b in bases:
                        await wait_http(f"{b}/healthz", 60)
                    stop = asyncio.Event()
                    watcher = asyncio.create_task(most_connections(server, ROLE, stop, direct))
                    result = await load(bases, LOAD_SECONDS)
                    stop.set()
                    most, refused = await watcher
                finally:
                    for proc in procs:
                        stop_process(proc)
                answers = dict(sorted(result["statuses"].items()))
                print(f"   {how:<9} answers {answers}; PostgreSQL held at most {most} "
                      f"connections of the database", flush=True)  # fmt: skip
                for problem, count in result["problems"].most_common(3):
                    print(f"             {count} x {problem}")
                if refused:
                    print(f"             one more connection meanwhile: {refused}")
    finally:
        conn = await asyncpg.connect(server)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{ROLE}" WITH (FORCE)')
            await conn.execute(f"DROP ROLE IF EXISTS {ROLE}")
        finally:
            await conn.close()


async def main(argv: list[str]) -> int:
    if installed() is None:
        print("pgbouncer is not installed (Debian: apt-get install pgbouncer); skipped")
        return 1
    server = database_url()
    parts = set(argv) or {"throughput", "connections"}
    if "throughput" in parts:
        if shutil.which("wrk") is None:
            print("wrk is not installed (Debian: apt-get install wrk): moves a second skipped")
        else:
            with tempfile.TemporaryDirectory(prefix="bench-pooler-") as tmp:
                await throughput(server, Path(tmp))
    if "connections" in parts:
        await headroom(server)
        await exhaustion(server)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
