"""The fork server of the search processes is started with the group's signals kept from
it (service/solver/pool.py), and without losing one meant for the service: a SIGTERM that
comes while it starts still reaches the service's handler (ignored meanwhile, as it was,
the signal was gone, and a worker whose first search had just begun served on)."""

from __future__ import annotations

import os
import signal
import time
from multiprocessing import forkserver, resource_tracker
from typing import Any

import pytest

from service.solver import pool


def test_a_sigterm_while_the_fork_server_starts_reaches_the_service(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    heard: list[int] = []
    started: list[Any] = []

    def starting() -> None:  # the fork server starting: the service is told to stop now
        started.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(resource_tracker, "ensure_running", lambda: None)
    monkeypatch.setattr(forkserver, "ensure_running", starting)
    kept = signal.signal(signal.SIGTERM, lambda sig, _frame: heard.append(sig))
    try:
        pool._start_forkserver()
        deadline = time.monotonic() + 2
        while not heard and time.monotonic() < deadline:
            time.sleep(0.01)  # (a handler runs between two of the main thread's steps)
    finally:
        signal.signal(signal.SIGTERM, kept)
    assert heard == [signal.SIGTERM]
    # the fork server was started with the group's signals blocked: it inherits them so
    assert set(pool.GROUP_SIGNALS) <= started[0]
    assert not set(pool.GROUP_SIGNALS) & signal.pthread_sigmask(signal.SIG_BLOCK, [])
