"""Live-event delivery against the move itself, in the same run.

The service runs as its own process (`python -m service run`, on the embedded PostgreSQL
in .pgdata-bench or on DATABASE_URL). 1, 100 and then 1000 WebSocket subscribers watch one
game; writes (a move, then its undo, and so on: one event each) are posted one at a time.
For each write: its own latency (request sent → 201 read) and its delivery (201 read → the
last subscriber has the event). Reported: p50 and p99 of both and delivery / write as a
ratio. All subscribers live in this one client process, so its CPU (reading N messages
per event) is part of the delivery time at 1000.
Usage: python -m bench.live.stream_bench   (BENCH_STREAM_WRITES scales the number of writes)
"""

from __future__ import annotations

import asyncio
import os
import time

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

SUBSCRIBERS = (1, 100, 1000)
SCALE = float(os.environ.get("BENCH_STREAM_WRITES", "1"))
WRITES = {1: int(300 * SCALE), 100: int(200 * SCALE), 1000: int(100 * SCALE)}
CONNECT_AT_ONCE = 100
DELIVERY_TIMEOUT = 10.0


class Watchers:
    """N subscribers of one game: when did the last of them get each seq."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.seen: dict[int, int] = {}
        self.waiting: dict[int, asyncio.Future[float]] = {}
        self.unexpected: list[str] = []

    def expect(self, seq: int) -> asyncio.Future[float]:
        fut = self.waiting[seq] = asyncio.get_running_loop().create_future()
        return fut

    async def listen(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            now = time.perf_counter()
            if msg.type is not aiohttp.WSMsgType.TEXT:
                break
            seq = orjson.loads(msg.data).get("seq")
            if seq is None:
                self.unexpected.append(msg.data)
                continue
            n = self.seen[seq] = self.seen.get(seq, 0) + 1
            if n == self.count:
                fut = self.waiting.pop(seq, None)
                if fut is not None and not fut.done():
                    fut.set_result(now)


async def run_level(
    session: aiohttp.ClientSession, base: str, headers: dict[str, str], count: int, writes: int
) -> tuple[list[float], list[float], int]:
    async with session.post(
        f"{base}/v1/games", headers=headers,
        json={"variant": "freecell", "deal": 617, "autoplay": False},
    ) as r:
        game = await r.json()
    gid, version = game["id"], game["version"]
    watchers = Watchers(count)
    sockets: list[aiohttp.ClientWebSocketResponse] = []
    for start in range(0, count, CONNECT_AT_ONCE):
        sockets += await asyncio.gather(
            *(
                session.ws_connect(f"{base}/v1/games/{gid}/stream?after={version}")
                for _ in range(start, min(count, start + CONNECT_AT_ONCE))
            )
        )
    readers = [asyncio.create_task(watchers.listen(ws)) for ws in sockets]
    latency: list[float] = []
    delivery: list[float] = []
    lost = 0
    try:
        for i in range(writes):
            if i % 2 == 0:
                url, body = f"{base}/v1/games/{gid}/moves", {"from": "t1", "to": "c"}
            else:
                url, body = f"{base}/v1/games/{gid}/undo", {}
            body["expected_version"] = version
            arrived = watchers.expect(version + 1)
            t0 = time.perf_counter()
            async with session.post(url, json=body, headers=headers) as r:
                answer = orjson.loads(await r.read())
            t1 = time.perf_counter()
            if r.status != 201:
                raise RuntimeError(f"write answered {r.status}: {answer}")
            version = answer["game"]["version"]
            try:
                t2 = await asyncio.wait_for(arrived, DELIVERY_TIMEOUT)
            except TimeoutError:
                lost += 1
                continue
            latency.append(t1 - t0)
            delivery.append(t2 - t1)
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets))
        for t in readers:
            t.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    if watchers.unexpected:
        print(f"  unexpected messages at {count}: {watchers.unexpected[:3]}")
    return latency, delivery, lost


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f}"


async def main() -> None:
    started = time.perf_counter()
    server = database_url()
    port = free_port()
    db = await fresh_database(server, "bench_stream")
    service = start_process(
        [PYTHON, "-m", "service", "run"],
        {"PORT": str(port), "DATABASE_URL": db, "RATE_LIMITS": "off", "LOG_REQUESTS": "false"},
    )
    base = f"http://127.0.0.1:{port}"
    rows = []
    try:
        await wait_http(f"{base}/healthz")
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            async with session.post(f"{base}/v1/players", json={"name": "bench"}) as r:
                token = (await r.json())["token"]
            headers = {"Authorization": f"Bearer {token}"}
            for count in SUBSCRIBERS:
                rows.append((count, *await run_level(session, base, headers, count, WRITES[count])))
    finally:
        stop_process(service)

    print("live events: one game, writes one at a time; times in ms; delivery = from the")
    print("write's 201 until the LAST subscriber has its event (negative: before the 201)")
    print(f"{'subscribers':>11} {'writes':>6} | {'write p50':>9} {'p99':>8} | "
          f"{'deliv p50':>9} {'p99':>8} | {'ratio p50':>9} {'p99':>6} | lost")
    for count, latency, delivery, lost in rows:
        w50, w99 = percentile(latency, 0.5), percentile(latency, 0.99)
        d50, d99 = percentile(delivery, 0.5), percentile(delivery, 0.99)
        print(f"{count:>11} {len(latency):>6} | {ms(w50):>9} {ms(w99)} | {ms(d50):>9} "
              f"{ms(d99)} | {d50 / w50:>9.2f} {d99 / w99:>6.2f} | {lost}")
    print(f"(ratio: delivery percentile / write percentile; run took "
          f"{time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(main())
