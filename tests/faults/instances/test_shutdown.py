"""SIGTERM: stop accepting, finish and commit what is under way, say goodbye to live
streams with a reconnect code, exit 0.

The service runs as a real process. When SIGTERM comes, a move is under way (its commit
waits for a row lock the test holds), a live stream is open, and four players are making
moves on keep-alive connections.

A request counts as under way once the service has read it whole: aiohttp stops reading
from every connection when shutdown begins, so a request whose body is still arriving
then (a slow upload) is never completed; its client sees the connection close and retries
with its Idempotency-Key (docs/faults.md).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest

from service.live.subscriptions import GOING_AWAY

from ..driver import Driver, at
from ..helpers import ServiceProcess, until

PLAYERS = 4


@pytest.fixture
def service(db_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    # the held move below waits for a lock as long as the test takes: no statement timeout
    svc = ServiceProcess(db_url, tmp_path / "service.log", DB_TIMEOUT="30")
    yield svc
    svc.stop()


async def refused(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except ConnectionRefusedError:
        return True
    writer.close()
    return False


async def events_in_log(db_url: str, game_id: str) -> list[tuple[Any, ...]]:
    """A game's events, read from the database itself (the service is gone by then)."""
    conn = await asyncpg.connect(db_url)
    try:
        rows = await conn.fetch(
            "SELECT seq, type, data::text AS data, at FROM game_events WHERE game_id = $1"
            " ORDER BY seq", uuid.UUID(game_id),
        )
    finally:
        await conn.close()
    return [(r["seq"], r["type"], json.loads(r["data"]), r["at"]) for r in rows]


def entry(event: dict[str, Any]) -> tuple[Any, ...]:
    """An event of an answer, as events_in_log gives it."""
    return event["seq"], event["type"], event["data"], at(event["at"])


@pytest.mark.slow
async def test_sigterm_finishes_requests_under_way_and_closes_streams_with_1001(
    service: ServiceProcess, db_url: str
) -> None:
    service.start()
    await service.ready()
    timeout = aiohttp.ClientTimeout(total=10)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        slow = Driver(session, service.base, seed=100)
        await slow.create(variant="freecell", deal=617)
        drivers = [Driver(session, service.base, seed) for seed in range(PLAYERS)]
        for d in drivers:
            await d.create()
            d.give_up_on_errors = True  # no retries: the service is going away for good

        ws = await session.ws_connect(f"{service.base}/v1/games/{slow.game_id}/stream")
        assert slow.game is not None
        for _ in range(slow.game.version):  # the stored events first
            assert json.loads((await ws.receive(timeout=5)).data)["type"]

        # a move under way: sent whole, its commit held up by a lock this test holds on
        # the game's row (as a slow database would)
        req = slow.next_request()
        assert req is not None and req.path.endswith("/moves")
        locker = await asyncpg.connect(db_url)
        lock = locker.transaction()
        await lock.start()
        await locker.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE",
                             uuid.UUID(slow.game_id))
        held = asyncio.create_task(slow.send(req))

        stop = asyncio.Event()
        tasks = [asyncio.create_task(d.run(stop)) for d in drivers]
        deadline = time.monotonic() + 20  # (each player's outcomes said if they are not)
        while not all(d.acknowledged >= 5 or d.gave_up for d in drivers):
            assert time.monotonic() < deadline, [(d.acknowledged, d.statuses) for d in drivers]
            await asyncio.sleep(0.02)
        assert all(d.acknowledged >= 5 for d in drivers), [  # (none gave up before SIGTERM)
            (d.acknowledged, d.statuses, d.gave_up and d.gave_up.attempts) for d in drivers]
        deadline = time.monotonic() + 5
        while not await locker.fetchval(  # the held move's statement waits for the lock
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        ):
            assert time.monotonic() < deadline and not held.done(), held
            await asyncio.sleep(0.02)

        term_at = time.monotonic()
        service.signal(signal.SIGTERM)

        # live streams are told to reconnect elsewhere, and closed with 1001 going away
        goodbye = await ws.receive(timeout=5)
        assert goodbye.type == aiohttp.WSMsgType.TEXT, goodbye
        message = json.loads(goodbye.data)
        assert message["type"] == "reconnect" and message["after"] == slow.game.version
        closing = await ws.receive(timeout=5)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), closing
        assert ws.close_code == GOING_AWAY
        said_goodbye = time.monotonic() - term_at

        # no new connection is accepted
        deadline = time.monotonic() + 5
        while not await refused(service.port):
            assert time.monotonic() < deadline, "still accepting connections after SIGTERM"
            await asyncio.sleep(0.05)

        # the move under way gets its commit, and its answer
        assert not held.done()
        await lock.rollback()
        await locker.close()
        outcome = await held
        assert outcome is not None and outcome[0] == 201, outcome
        answer = outcome[1]

        code = await service.exited(15)
        stopped_after = time.monotonic() - term_at
        stop.set()
        await asyncio.gather(*tasks)
    assert code == 0, service.output()[-3000:]

    # the held move was committed before the process exited
    log = await events_in_log(db_url, slow.game_id)
    assert log[-len(answer["events"]):] == [entry(e) for e in answer["events"]]
    # the players' moves: every one acknowledged is in the log once, and nothing else (a
    # request the service took was answered; one it did not take left no trace)
    for d in drivers:
        assert await events_in_log(db_url, d.game_id) == [entry(e) for e in d.expected_log()]
    refused_requests = [d.gave_up for d in drivers if d.gave_up is not None]
    acknowledged = sum(d.acknowledged for d in drivers)
    print(
        f"\nshutdown: the stream got its goodbye (reconnect, 1001) {said_goodbye * 1000:.0f} ms"
        f" after SIGTERM; the held move was answered 201 and committed; {acknowledged}"
        f" moves of {PLAYERS} players acknowledged, each in the logs once, nothing else;"
        f" {len(refused_requests)} requests not taken (connection closed or refused);"
        f" exit code 0 {stopped_after:.2f} s after SIGTERM"
    )


async def test_sigterm_does_not_wait_for_the_searches_of_new_games(
    db_url: str, tmp_path: Path
) -> None:
    """Two workers, whose solver processes search the openings of games made just before
    SIGTERM: they are ended with their workers (an opening may take many hint budgets),
    which exit at once, and all is stopped within seconds, exit 0 (the supervisor kills a
    worker that takes 15 s)."""
    from .test_connections import workers

    svc = ServiceProcess(db_url, tmp_path / "service.log", WORKERS="2")
    try:
        svc.start()
        await svc.ready()
        await until(lambda: len(workers(svc)) == 2, 30, "two workers")
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{svc.base}/v1/players", json={"name": "ada"}) as r:
                token = (await r.json())["token"]
            for deal in (617, 5, 6, 7, 8, 9):  # (each connection to either worker)
                async with aiohttp.ClientSession() as one, one.post(
                    f"{svc.base}/v1/games", json={"variant": "freecell", "deal": deal},
                    headers={"Authorization": f"Bearer {token}"},
                ) as r:
                    assert r.status == 201
        started = time.monotonic()
        svc.signal(signal.SIGTERM)
        assert await svc.exited(14) == 0, svc.output()[-3000:]
        assert time.monotonic() - started < 8, svc.output()[-3000:]
    finally:
        svc.stop()


async def test_sighup_stops_the_service_as_sigterm_does(db_url: str, tmp_path: Path) -> None:
    """The hang-up of the terminal a `make run` runs in: a graceful stop, exit 0."""
    svc = ServiceProcess(db_url, tmp_path / "service.log", SOLVER_PREFETCH="false")
    try:
        svc.start()
        await svc.ready()
        svc.signal(signal.SIGHUP)
        assert await svc.exited(10) == 0, svc.output()[-3000:]
    finally:
        svc.stop()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM])
async def test_a_signal_to_the_whole_group_lets_the_hints_under_way_finish(
    db_url: str, tmp_path: Path, sig: signal.Signals
) -> None:
    """Ctrl-C or a hang-up in a terminal, or a service manager's stop, reach every process
    of the group, the solver's helpers too: they leave it to the service, so the hints
    under way are answered (no 500), and nothing prints a traceback."""
    svc = ServiceProcess(db_url, tmp_path / "service.log", WORKERS="2", RATE_LIMITS="off")
    try:
        svc.start()
        await svc.ready()
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{svc.base}/v1/players", json={"name": "ada"}) as r:
                auth = {"Authorization": f"Bearer {(await r.json())['token']}"}
            games = []
            for deal in (1001, 2002, 3003, 4004):
                async with s.post(f"{svc.base}/v1/games", headers=auth,
                                  json={"variant": "freecell", "deal": deal}) as r:  # fmt: skip
                    games.append((await r.json())["id"])

            async def hint(gid: str) -> int:
                async with aiohttp.ClientSession() as one, one.post(
                    f"{svc.base}/v1/games/{gid}/hint", json={}, headers=auth) as r:  # fmt: skip
                    return r.status

            hints = [asyncio.create_task(hint(gid)) for gid in games]
            await asyncio.sleep(0.05)
            assert svc.proc is not None
            os.killpg(svc.proc.pid, sig)
            assert await asyncio.gather(*hints) == [201] * 4
        assert await svc.exited(15) == 0, svc.output()[-3000:]
        assert "Traceback" not in svc.output(), svc.output()[-3000:]
    finally:
        svc.stop()


@pytest.mark.parametrize("delay", [0.0, 0.1, 0.3])
async def test_ctrl_c_while_the_workers_start_stops_the_service_quietly(
    db_url: str, tmp_path: Path, delay: float
) -> None:
    """Ctrl-C reaches the whole group while the workers are still loading the service's
    modules: the supervisor stops them, and none prints a KeyboardInterrupt's traceback."""
    svc = ServiceProcess(db_url, tmp_path / "service.log", WORKERS="2")
    try:
        svc.start()
        await until(lambda: "serving on" in svc.output(), 30, "the supervisor's start")
        await asyncio.sleep(delay)
        assert svc.proc is not None
        os.killpg(svc.proc.pid, signal.SIGINT)
        assert await svc.exited(15) == 0, svc.output()[-3000:]
        assert "Traceback" not in svc.output(), svc.output()[-3000:]
    finally:
        svc.stop()
