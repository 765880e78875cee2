"""The access log goes out in batches (service/base/logs.py): nothing is lost, lines arrive
within the flush interval, and a service process's requests show up in its output."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

from service.base.logs import BufferedLines, OneLine

from ..faults.helpers import ROOT, ServiceProcess, until


def _logger(name: str, handler: logging.Handler) -> logging.Logger:
    log = logging.getLogger(name)
    log.handlers[:] = [handler]
    log.propagate = False
    log.setLevel(logging.INFO)
    return log


def test_lines_wait_for_the_timer_then_all_arrive_in_order(tmp_path: Path) -> None:
    path = tmp_path / "access.log"
    with open(path, "w", buffering=1 << 16) as stream:
        handler = BufferedLines(stream, every=3600)  # the timer stays out of the way
        log = _logger("test.logs.slow", handler)
        for i in range(100):
            log.info("line %d", i)
        assert path.read_text() == ""  # buffered: no write per line
        handler.flush_now()
        assert path.read_text().splitlines() == [f"line {i}" for i in range(100)]


def test_the_timer_writes_lines_out_within_its_interval(tmp_path: Path) -> None:
    path = tmp_path / "access.log"
    with open(path, "w", buffering=1 << 16) as stream:
        log = _logger("test.logs.fast", BufferedLines(stream, every=0.05))
        log.info("hello")
        deadline = time.monotonic() + 2
        while path.read_text() != "hello\n":
            assert time.monotonic() < deadline, "the line was not written within 2 s"
            time.sleep(0.01)


async def test_a_service_process_logs_each_request(db_url: str, tmp_path: Path) -> None:
    svc = ServiceProcess(db_url, tmp_path / "service.log", LOG_REQUESTS="true")
    try:
        svc.start()
        await svc.ready()
        async with aiohttp.ClientSession() as session, session.get(f"{svc.base}/healthz",
                               headers={"X-Request-Id": "logged-1"}) as r:  # fmt: skip
            assert r.status == 200
        await until(lambda: '"request_id":"logged-1"' in svc.output(), 3, "the access line")
    finally:
        svc.stop()


def test_a_record_with_its_traceback_is_one_line() -> None:
    """A traceback (asyncpg's, while the database is away) and a message with line ends
    make one line each: a log shipper takes the record whole."""
    try:
        raise ConnectionError("the database went away\nforged")
    except ConnectionError:
        record = logging.LogRecord("asyncpg.pool", logging.WARNING, __file__, 1,
                                   "Failed to restore the pool connection floor;\nretrying",
                                   None, sys.exc_info())  # fmt: skip
    line = OneLine("%(message)s").format(record)
    assert "\n" not in line and "\r" not in line
    assert line.startswith("Failed to restore the pool connection floor;\\u000aretrying")
    assert "Traceback (most recent call last):" in line and "ConnectionError" in line


RECONNECTION = """
import logging
from service.base.logs import configure
configure()
try:
    raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")
except ConnectionRefusedError:
    logging.getLogger("asyncpg.pool").warning(
        "Failed to restore the pool connection floor; retrying", exc_info=True)
"""


def test_asyncpgs_failed_reconnections_are_said_without_their_traceback() -> None:
    """While the database is away asyncpg's pool tells each failed try to restore its
    connections: in a service process's log, one line each naming the error, with no
    traceback of asyncpg's calls."""
    run = subprocess.run([sys.executable, "-c", RECONNECTION], capture_output=True,
                         text=True, cwd=ROOT, timeout=60)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stderr == ("Failed to restore the pool connection floor; retrying:"
                          " ConnectionRefusedError: [Errno 111] Connect call failed"
                          " ('127.0.0.1', 5432)\n")
