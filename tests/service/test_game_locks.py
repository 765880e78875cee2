"""A write's wait for its game's lock on this instance (positions.taken) is a wait behind
others who wait for the database: bounded by the request's budget and charged to it, even
right after a release, when a waiter woken but not yet run comes first."""

from __future__ import annotations

import asyncio
import time
import uuid
from types import SimpleNamespace
from typing import Any

from service.database.connections import BUDGET, Budget, DatabaseUnavailable, current_budget
from service.games import positions


async def third_in_line(hold: float) -> tuple[float, float | None]:
    """A holds the game's lock 0.3 s, B waits for it and holds it `hold` s; C asks the
    moment A lets go (B woken, not yet run), with a budget of 1 s. C's wait, and what is
    left of its budget once it has the lock (None: refused, DatabaseUnavailable)."""
    backend: Any = SimpleNamespace(locks={}, games=SimpleNamespace(capacity=100))
    gid = uuid.uuid4()
    c_done: asyncio.Future[tuple[float, float | None]] = (
        asyncio.get_running_loop().create_future()
    )

    async def c() -> None:
        BUDGET.set(Budget(1.0))
        started = time.monotonic()
        try:
            lock = await positions.taken(backend, gid)
        except DatabaseUnavailable:
            c_done.set_result((time.monotonic() - started, None))
            return
        budget = current_budget()
        assert budget is not None
        c_done.set_result((time.monotonic() - started, budget.left))
        lock.release()

    async def holder(seconds: float, then: bool) -> None:
        lock = await positions.taken(backend, gid)
        await asyncio.sleep(seconds)
        if then:
            asyncio.get_running_loop().create_task(c())  # runs after this release
        lock.release()

    a = asyncio.create_task(holder(0.3, True))
    await asyncio.sleep(0.01)
    b = asyncio.create_task(holder(hold, False))
    await asyncio.gather(a, b)
    return await c_done


async def test_a_wait_behind_a_woken_waiter_is_charged_to_the_budget() -> None:
    waited, left = await third_in_line(0.5)
    assert waited >= 0.45 and left is not None and left < 0.6


async def test_a_wait_behind_a_woken_waiter_ends_with_the_budget() -> None:
    waited, left = await third_in_line(2.0)
    assert left is None and waited < 1.5  # refused once its 1 s is spent, not after B
