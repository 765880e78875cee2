"""SIGKILL mid-load: every acknowledged move survives, each once; retries are safe.

The service runs as a real process (`python -m service run`). Eight players keep making
moves at it; after enough moves were acknowledged it is killed with SIGKILL (no shutdown,
no cleanup, requests cut off mid-flight), started again, and the players carry on, sending
every request whose answer they never got again with its Idempotency-Key.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import aiohttp
import pytest

from ..driver import Driver, at, check_log, player_moves
from ..helpers import ROOT, ServiceProcess, until

PLAYERS = 8
BEFORE_KILL = 160  # acknowledged requests, all players together
AFTER_RESTART = 6  # acknowledged requests per player after the restart


@pytest.fixture
def service(db_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    svc = ServiceProcess(db_url, tmp_path / "service.log")
    yield svc
    svc.stop()


@pytest.mark.slow
async def test_sigkill_mid_load_loses_no_acknowledged_move(
    service: ServiceProcess, db_url: str
) -> None:
    service.start()
    await service.ready()
    timeout = aiohttp.ClientTimeout(total=10)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        drivers = [Driver(session, service.base, seed) for seed in range(PLAYERS)]
        for d in drivers:
            await d.create()
        stop = asyncio.Event()
        tasks = [asyncio.create_task(d.run(stop)) for d in drivers]
        try:
            await until(lambda: sum(d.acknowledged for d in drivers) >= BEFORE_KILL, 30,
                        f"{BEFORE_KILL} acknowledged requests")
            acked_before = {d.game_id: d.acknowledged for d in drivers}
            killed_at = time.time()
            service.kill()
            in_flight = [d.pending for d in drivers if d.pending is not None]
            await asyncio.sleep(0.3)  # the players see the service gone and keep retrying
            service.start()
            restart_s = await service.ready()
            await until(
                lambda: all(d.acknowledged >= acked_before[d.game_id] + AFTER_RESTART
                            for d in drivers),
                30, f"{AFTER_RESTART} more acknowledged requests per player",
            )
        finally:
            stop.set()
            await asyncio.gather(*tasks)

        # every request cut off by the kill was answered in the end, and its answer is
        # either the first one (committed before the kill: its events are older than it)
        # or a fresh append (not committed: the retry made it)
        cut_off = [r for r in in_flight if r.retried]
        assert cut_off, "the kill cut off no request; nothing was in flight"
        assert all(r.answer is not None for r in cut_off)
        committed_before = [
            r for r in cut_off if at(r.answer["events"][0]["at"]).timestamp() < killed_at  # type: ignore[index]
        ]

        # the logs hold each acknowledged request once, in order, and nothing else
        logs = {d.game_id: await d.log() for d in drivers}
        for d in drivers:
            check_log(d, logs[d.game_id])

        # a retry of an acknowledged request (from before the kill, with its key) gets the
        # original answer and appends nothing
        replays = 0
        for d in drivers:
            for req in d.done[: acked_before[d.game_id]][-3:]:
                outcome = await d.send(req)
                assert outcome == (201, req.answer)
                replays += 1
        for d in drivers:
            assert await d.log() == logs[d.game_id]

    # and the projection agrees with the log (python -m service verify)
    verify = subprocess.run(
        [sys.executable, "-m", "service", "verify"], cwd=ROOT, capture_output=True, text=True,
        env={**service.env}, timeout=60,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr

    attempts: Counter[str] = sum((d.statuses for d in drivers), Counter())
    acknowledged = sum(d.acknowledged for d in drivers)
    in_log = sum(player_moves(log) for log in logs.values())
    print(
        f"\ncrash: {PLAYERS} players, {acknowledged} requests acknowledged"
        f" ({attempts.total()} attempts: {dict(attempts)}),"
        f" {in_log} player moves/undos/redos in the logs = acknowledged;"
        f" {len(cut_off)} cut off by SIGKILL ({len(committed_before)} had committed, answered"
        f" from the idempotency record; {len(cut_off) - len(committed_before)} appended on"
        f" retry); restart took {restart_s:.1f} s; {replays} acknowledged requests resent:"
        f" same answers, nothing appended"
    )
    assert in_log == acknowledged


async def test_a_killed_service_leaves_no_solver_process_behind(
    service: ServiceProcess,
) -> None:
    """The solver's processes (forkserver, worker, resource tracker) notice that the service
    is gone, even when it was killed with SIGKILL, and exit."""
    service.start()
    await service.ready()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        async with session.post(f"{service.base}/v1/players", json={"name": "ada"}) as r:
            token = (await r.json())["token"]
        auth = {"Authorization": f"Bearer {token}"}
        body = {"variant": "freecell", "deal": 5}
        async with session.post(f"{service.base}/v1/games", json=body, headers=auth) as r:
            game = await r.json()
        async with session.post(
            f"{service.base}/v1/games/{game['id']}/hint", json={}, headers=auth
        ) as r:
            assert r.status == 201, await r.text()
    await until(lambda: len(service.group()) >= 3, 10, "the solver's processes")
    service.kill()
    await until(lambda: not service.group(), 5, "every process of the service gone")


async def test_workers_share_the_port_and_go_with_their_supervisor(
    db_url: str, tmp_path: Path
) -> None:
    """WORKERS=2: two service processes answer on one port; SIGTERM stops them all, and a
    supervisor killed with SIGKILL leaves nothing behind either."""
    import signal

    for how in (signal.SIGTERM, signal.SIGKILL):
        svc = ServiceProcess(db_url, tmp_path / f"workers-{how.name}.log", WORKERS="2")
        try:
            svc.start()
            await svc.ready()
            await until(lambda s=svc: len(s.group()) >= 3, 20, "the supervisor and two workers")
            async with aiohttp.ClientSession() as session:
                for _ in range(20):  # connections spread over both; every one answered
                    async with session.get(f"{svc.base}/healthz") as r:
                        assert r.status == 200
            svc.signal(how)
            await until(lambda s=svc: not s.group(), 20, f"every process gone after {how.name}")
        finally:
            svc.stop()
