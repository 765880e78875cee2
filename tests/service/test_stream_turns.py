"""A live stream's turn at the database (service/live/sockets.py: in_turn) always goes
back: after its read, when the stream ends while it waits, and when the stream is
cancelled (its client gone) just as the turn was granted to it, before it woke up."""

from __future__ import annotations

import asyncio
import contextlib

from service.database.store import StoredEvent
from service.live.sockets import taking_turns


async def _nothing(_after: int, _limit: int) -> list[StoredEvent]:
    return []


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_turn_granted_as_its_stream_is_cancelled_goes_back() -> None:
    turns = asyncio.Semaphore(1)
    await turns.acquire()  # another stream's read holds the one turn
    read = taking_turns(turns, _nothing, asyncio.Event())
    task = asyncio.create_task(read(0, 10))
    await _settle()  # the read waits for the turn
    turns.release()  # the turn goes to it ...
    await asyncio.sleep(0)  # ... its acquire done, the read itself not yet woken
    task.cancel()  # its client left
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await _settle()
    assert not turns.locked()


async def test_a_turn_goes_back_after_a_read_and_when_the_stream_ends_first() -> None:
    turns = asyncio.Semaphore(1)
    assert await taking_turns(turns, _nothing, asyncio.Event())(0, 10) == []
    assert not turns.locked()
    await turns.acquire()
    stop = asyncio.Event()
    task = asyncio.create_task(taking_turns(turns, _nothing, stop)(0, 10))
    await _settle()
    stop.set()  # the stream ended while it waited: nothing read, nothing held
    assert await task == []
    turns.release()
    await _settle()
    assert not turns.locked()
