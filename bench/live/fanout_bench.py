"""Fan-out over four instances: 1,000 watchers of one game spread over 4 service processes
on one PostgreSQL, once through LISTEN/NOTIFY and once through NATS (EVENTS_BROKER).

Four service processes (`python -m service run`, WORKERS=1 each, one port each) share a
fresh database. 1,000 WebSocket watchers of one game are spread evenly over them (250 an
instance). A writer posts to the first instance a write every PACE seconds (a card to a
cell, then its undo: one event each; BENCH_FANOUT_PACE, default 0.25). For each write: its
own latency (request sent → 201 read), and for each watcher the delivery (201 read → that
watcher has the event; negative when it came before the 201, which the writer's own
instance can do). Reported per transport: p50 and p99 of the write, of every watcher's
delivery, of the last watcher's delivery per write, split between the writer's instance
and the three others, and the ratio delivery p99 / write p99 (goal: at most 2 through
NATS).

The client is two processes: the writer (aiohttp), and the watchers, each a bare asyncio
protocol (uvloop) that does the handshake and reads frames itself, so that reading 1,000
messages a write costs little and does not delay the writer's reading of its 201. Both
take their times from time.perf_counter (CLOCK_MONOTONIC, one clock for all processes).
Their CPU over the measured writes is printed (as cores), with the servers'. The broker is
EVENTS_BROKER, else nats://127.0.0.1:4222, else a nats-server started here.
BENCH_FANOUT_WRITES (default 200), BENCH_FANOUT_WATCHERS (default 1000).
Usage: python -m bench.live.fanout_bench [listen|nats]
"""

from __future__ import annotations

import asyncio
import base64
import multiprocessing
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urlparse

import aiohttp
import orjson
import psutil

from ..common import (
    PYTHON,
    cpu_total,
    database_url,
    free_port,
    fresh_database,
    percentile,
    start_process,
    stop_process,
    wait_http,
)

INSTANCES = 4
WATCHERS = int(os.environ.get("BENCH_FANOUT_WATCHERS", "1000"))
WRITES = int(os.environ.get("BENCH_FANOUT_WRITES", "200"))
WARMUP = 10  # writes not counted: the caches and the connections settle
CONNECT_AT_ONCE = 100
DELIVERY_TIMEOUT = 10.0
# seconds from one write to the next: every delivery is done well before the next write,
# and at 0.1 s the NATS runs' own writes came out slower than the LISTEN runs' (the
# instance's histogram too), which flattered NATS's ratio; at 0.25 s both runs' writes agree
PACE = float(os.environ.get("BENCH_FANOUT_PACE", "0.25"))
GOAL = 2.0


class Arrivals:
    """When each watcher got each seq (time.perf_counter)."""

    def __init__(self, watchers: int) -> None:
        self.watchers = watchers
        self.at: dict[int, list[tuple[int, float]]] = {}  # seq -> [(instance, when)]
        self.unexpected: list[bytes] = []

    def got(self, seq: int, instance: int, now: float) -> None:
        self.at.setdefault(seq, []).append((instance, now))

    def complete(self, seqs: list[int]) -> bool:
        return all(len(self.at.get(seq, ())) == self.watchers for seq in seqs)


class Watcher(asyncio.Protocol):
    """One WebSocket subscriber, read frame by frame (the server's frames are unmasked)."""

    def __init__(self, request: bytes, instance: int, arrivals: Arrivals) -> None:
        self.request = request
        self.instance = instance
        self.arrivals = arrivals
        self.buf = bytearray()
        self.upgraded = asyncio.get_running_loop().create_future()
        self.closed = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        assert self.transport is not None
        self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError("closed before the upgrade"))

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        buf = self.buf
        buf += data
        if not self.upgraded.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end])
            del buf[: end + 4]
            if not head.startswith(b"HTTP/1.1 101"):
                self.upgraded.set_exception(ConnectionError(head.decode(errors="replace")))
                return
            self.upgraded.set_result(None)
        while len(buf) >= 2:
            opcode, length, start = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if length == 126:
                if len(buf) < 4:
                    return
                length, start = int.from_bytes(buf[2:4], "big"), 4
            elif length == 127:
                if len(buf) < 10:
                    return
                length, start = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < start + length:
                return
            payload = bytes(buf[start : start + length])
            del buf[: start + length]
            if opcode == 1:
                seq = orjson.loads(payload).get("seq")
                if seq is None:
                    self.arrivals.unexpected.append(payload)
                else:
                    self.arrivals.got(seq, self.instance, now)
            elif opcode == 9 and self.transport is not None:  # ping: a masked pong
                self.transport.write(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
            elif opcode == 8 and self.transport is not None:
                self.transport.close()

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.write(b"\x88\x80\0\0\0\0")  # close, masked, no payload
            self.transport.close()


async def watch(port: int, path: str, instance: int, arrivals: Arrivals) -> Watcher:
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    _, w = await loop.create_connection(
        lambda: Watcher(request, instance, arrivals), "127.0.0.1", port
    )
    await w.upgraded
    return w


@dataclass
class Run:
    transport: str
    writes: list[float] = field(default_factory=list)
    # (instance of the watcher, delivery) for every watcher and write
    deliveries: list[tuple[int, float]] = field(default_factory=list)
    last: list[float] = field(default_factory=list)  # the last watcher's, per write
    lost: int = 0
    client_cpu: float = 0.0  # the watchers' process
    writer_cpu: float = 0.0  # the writer's process
    served: dict[str, float] = field(default_factory=dict)  # the server's side of the writes
    server_cpu: float = 0.0
    wall: float = 0.0


def broker_url() -> tuple[str, subprocess.Popen[bytes] | None]:
    """EVENTS_BROKER, else the local NATS on 4222, else a nats-server started here."""
    url = os.environ.get("EVENTS_BROKER") or "nats://127.0.0.1:4222"
    where = urlparse(url)
    with socket.socket() as s:
        s.settimeout(1)
        if s.connect_ex((where.hostname or "127.0.0.1", where.port or 4222)) == 0:
            return url, None
    if shutil.which("nats-server") is None:
        raise RuntimeError(f"no broker at {url} and no nats-server to start")
    port = free_port()
    proc = subprocess.Popen(["nats-server", "-a", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return f"nats://127.0.0.1:{port}", proc
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("nats-server did not start")


async def run_transport(server: str, transport: str, broker: str | None) -> Run:
    db = await fresh_database(server, f"bench_fanout_{transport}")
    ports = [free_port() for _ in range(INSTANCES)]
    env = {
        "DATABASE_URL": db, "RATE_LIMITS": "off", "LOG_REQUESTS": "false", "WORKERS": "1",
        "POOL_MIN": "2", "POOL_MAX": "4", "SOLVER_PREFETCH": "false",
    }  # fmt: skip
    # empty: LISTEN/NOTIFY, whatever the caller's environment says
    env["EVENTS_BROKER"] = broker or ""
    services = []
    for port in ports:
        proc = start_process([PYTHON, "-m", "service", "run"], {**env, "PORT": str(port)})
        services.append(proc)
    run = Run(transport)
    watchers: list[Watcher] = []
    try:
        for port in ports:
            await wait_http(f"http://127.0.0.1:{port}/healthz")
        procs = [psutil.Process(p.pid) for p in services]
        procs += [c for p in procs for c in p.children(recursive=True)]
        base = f"http://127.0.0.1:{ports[0]}"
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{base}/v1/players", json={"name": "bench"}) as r:
                token = (await r.json())["token"]
            async with session.post(
                f"{base}/v1/games", headers={"Authorization": f"Bearer {token}"},
                json={"variant": "freecell", "deal": 617, "autoplay": False},
            ) as r:
                game = await r.json()
        gid, version = game["id"], game["version"]
        arrivals = Arrivals(WATCHERS)
        path = f"/v1/games/{gid}/stream?after={version}"
        for first in range(0, WATCHERS, CONNECT_AT_ONCE):
            watchers += await asyncio.gather(*(
                watch(ports[i % INSTANCES], path, i % INSTANCES, arrivals)
                for i in range(first, min(WATCHERS, first + CONNECT_AT_ONCE))
            ))  # fmt: skip
        await asyncio.sleep(1.0)  # every instance has its feed and has read once
        usage0 = resource.getrusage(resource.RUSAGE_SELF)
        servers0, wall0 = cpu_total(procs), time.perf_counter()
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            writes, writer_cpu = await asyncio.get_running_loop().run_in_executor(
                pool, writer, base, gid, token, version, WARMUP + WRITES
            )
        async with aiohttp.ClientSession() as session, session.get(f"{base}/metrics") as r:
            run.served = served_within(await r.text())
        deadline = time.monotonic() + DELIVERY_TIMEOUT
        while not arrivals.complete([w[0] for w in writes]) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        usage1 = resource.getrusage(resource.RUSAGE_SELF)
        run.wall = time.perf_counter() - wall0
        run.server_cpu = cpu_total(procs) - servers0
        run.client_cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
        run.writer_cpu = writer_cpu
        for seq, t0, t1 in writes[WARMUP:]:
            arrived = arrivals.at.get(seq, [])
            run.writes.append(t1 - t0)
            run.deliveries += [(inst, at - t1) for inst, at in arrived]
            run.lost += WATCHERS - len(arrived)
            if len(arrived) == WATCHERS:
                run.last.append(max(at for _, at in arrived) - t1)
        if arrivals.unexpected:
            print(f"  unexpected messages: {arrivals.unexpected[:3]!r}")
    finally:
        for w in watchers:
            w.close()
        for proc in services:
            stop_process(proc)
    return run


SERVED_WITHIN = ("0.005", "0.01", "0.025", "0.05")


def served_within(metrics: str) -> dict[str, float]:
    """From the writer's instance's latency histogram (its handlers' time, before the
    answer goes out): the share of its moves and undos served within each bound (s)."""
    counts: dict[str, float] = {}
    for line in metrics.splitlines():
        if not line.startswith("solitaire_http_request_seconds_bucket{") or 'method="POST"' \
                not in line or not ('/moves"' in line or '/undo"' in line):  # fmt: skip
            continue
        labels, _, value = line.rpartition(" ")
        le = labels.split('le="', 1)[1].split('"', 1)[0]
        counts[le] = counts.get(le, 0.0) + float(value)
    total = counts.get("+Inf", 0.0)
    return {le: counts.get(le, 0.0) / total for le in SERVED_WITHIN} if total else {}


def writer(base: str, gid: str, token: str, version: int, count: int) -> tuple[
    list[tuple[int, float, float]], float
]:
    """The writer, in a process of its own (so that the watchers' reading does not delay
    its reading of the 201): one write every PACE seconds, each its (seq, sent, 201 read)
    on time.perf_counter (CLOCK_MONOTONIC: one clock for every process); and its CPU."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass

    async def run() -> list[tuple[int, float, float]]:
        done: list[tuple[int, float, float]] = []
        headers = {"Authorization": f"Bearer {token}"}
        v = version
        async with aiohttp.ClientSession() as session:
            next_at = time.perf_counter()
            for i in range(count):
                if i % 2 == 0:
                    url, body = f"{base}/v1/games/{gid}/moves", {"from": "t1", "to": "c"}
                else:
                    url, body = f"{base}/v1/games/{gid}/undo", {}
                body["expected_version"] = v
                t0 = time.perf_counter()
                async with session.post(url, json=body, headers=headers) as r:
                    answer = orjson.loads(await r.read())
                t1 = time.perf_counter()
                if r.status != 201:
                    raise RuntimeError(f"write answered {r.status}: {answer}")
                v = answer["game"]["version"]
                done.append((v, t0, t1))
                next_at += PACE
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        return done

    usage0 = resource.getrusage(resource.RUSAGE_SELF)
    done = asyncio.run(run())
    usage1 = resource.getrusage(resource.RUSAGE_SELF)
    return done, (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:7.1f}"


def report(run: Run) -> None:
    w50, w99 = percentile(run.writes, 0.5), percentile(run.writes, 0.99)
    every = [d for _, d in run.deliveries]
    local = [d for inst, d in run.deliveries if inst == 0]
    others = [d for inst, d in run.deliveries if inst != 0]
    print(f"{run.transport}: {len(run.writes)} writes, {len(every)} deliveries, "
          f"{run.lost} lost; write p50 {ms(w50)} ms, p99 {ms(w99)} ms")
    for name, values in (("every watcher", every), ("writer's instance", local),
                         ("other instances", others), ("last watcher", run.last)):  # fmt: skip
        d50, d99 = percentile(values, 0.5), percentile(values, 0.99)
        print(f"  {name:<18} p50 {ms(d50)} ms  p99 {ms(d99)} ms   p99 / write p99 "
              f"{d99 / w99:5.2f}")
    if run.served:
        shares = ", ".join(f"{float(le) * 1e3:g} ms {x:.1%}" for le, x in run.served.items())
        print(f"  writes served by the instance's handler within {shares}")
    print(f"  CPU over {run.wall:.1f} s: watchers' client {run.client_cpu / run.wall:.2f} cores, "
          f"writer {run.writer_cpu / run.wall:.2f}, the four instances "
          f"{run.server_cpu / run.wall:.2f} (PostgreSQL and the broker not counted)")


async def main(which: list[str]) -> int:
    started = time.perf_counter()
    server = database_url()
    runs: list[Run] = []
    nats_proc = None
    try:
        if "listen" in which:
            runs.append(await run_transport(server, "listen", None))
        if "nats" in which:
            broker, nats_proc = broker_url()
            runs.append(await run_transport(server, "nats", broker))
    finally:
        if nats_proc is not None:
            nats_proc.kill()
            nats_proc.wait()
    print(f"fan-out: one game, {WATCHERS} watchers over {INSTANCES} instances (one port "
          "each), writes one at a time to the first; delivery from the write's 201 to each "
          "watcher; times in ms")
    for run in runs:
        report(run)
    nats = [r for r in runs if r.transport == "nats"]
    if nats:
        every = [d for _, d in nats[0].deliveries]
        ratio = percentile(every, 0.99) / percentile(nats[0].writes, 0.99)
        verdict = "met" if ratio <= GOAL else "MISSED"
        print(f"goal (NATS: every watcher's delivery p99 at most {GOAL:.0f}x the write's p99): "
              f"{ratio:.2f}x, {verdict}")
    print(f"(run took {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    chosen = [a for a in sys.argv[1:] if a in ("listen", "nats")] or ["listen", "nats"]
    sys.exit(asyncio.run(main(chosen)))
