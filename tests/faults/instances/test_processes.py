"""The service's processes while the database is away: `python -m service run` started
before it waits for it (DB_START_WAIT_S), then serves, or says why it gives up (exit 2);
and under the supervisor of WORKERS processes, a worker killed meanwhile cannot start
again until it is back (its pool needs it): the supervisor keeps the other worker serving
and tries again, less and less often, and once the database is back both serve."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from service.database.embedded import EmbeddedPostgres
from service.workers import QUICK_EXIT_S

from ..helpers import ServiceProcess, migrated_database, until
from .test_connections import workers


async def test_a_worker_that_cannot_start_while_the_database_is_away_is_tried_again(
    own_postgres: EmbeddedPostgres, tmp_path: Path
) -> None:
    url = await migrated_database(own_postgres, "workers")
    svc = ServiceProcess(url, tmp_path / "service.log", WORKERS="2", SOLVER_PREFETCH="false")
    try:
        svc.start()
        await svc.ready()
        await until(lambda: len(workers(svc)) == 2, 30, "two workers")
        await asyncio.sleep(QUICK_EXIT_S + 1)  # (the service has started: served that long)
        await asyncio.to_thread(own_postgres.stop, "fast")
        os.kill(workers(svc)[0], signal.SIGKILL)
        # its replacement may not start meanwhile (it exits, and is tried again): the
        # supervisor stays, with the other worker
        await asyncio.sleep(QUICK_EXIT_S + 3)
        assert svc.proc is not None and svc.proc.poll() is None, svc.output()[-3000:]
        await asyncio.to_thread(own_postgres.restart)
        await svc.ready()
        await until(lambda: len(workers(svc)) == 2, 60, "two workers again")
    finally:
        svc.stop()


async def test_a_start_waits_for_the_database_then_serves(
    own_postgres: EmbeddedPostgres, tmp_path: Path
) -> None:
    url = await migrated_database(own_postgres, "start")
    await asyncio.to_thread(own_postgres.stop, "fast")
    svc = ServiceProcess(url, tmp_path / "service.log", SOLVER_PREFETCH="false")
    try:
        svc.start()
        await until(lambda: "waiting for the database" in svc.output(), 30, "it to wait")
        await asyncio.to_thread(own_postgres.restart)
        await svc.ready()
    finally:
        svc.stop()
    # a database that does not come in time: exit 2, saying so, no traceback
    await asyncio.to_thread(own_postgres.stop, "fast")
    svc = ServiceProcess(url, tmp_path / "gone.log", DB_START_WAIT_S="1")
    try:
        svc.start()
        assert await svc.exited(30) == 2
        assert "the database does not answer" in svc.output()
        assert "Traceback" not in svc.output()
    finally:
        svc.stop()
