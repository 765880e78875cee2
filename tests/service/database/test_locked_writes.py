"""A write judged under its game's locks (EventStore.locked, lock_game): from the read of
the log to the commit, no other write of the game lands; left without a write it lets go;
on a database that hangs it answers within the request's budget."""

from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg
import pytest

from service.database.connections import (
    BUDGET,
    Budget,
    DatabaseUnavailable,
    VersionConflict,
    create_pool,
    transaction,
)
from service.database.store import EventStore

from .helpers import new_player, write_args


async def test_a_write_of_the_game_waits_for_the_locked_one_then_finds_it_moved_on(
    store: EventStore,
) -> None:
    pid = await new_player(store)
    gid = uuid.uuid4()
    await store.record(**write_args(gid, pid, 1, 1))
    async with store.locked(gid):
        assert [e.seq for e in await store.read_events(gid)] == [1]
        # (started inside: a task of its own, on a connection of its own)
        other = asyncio.create_task(store.record(**write_args(gid, pid, 2, 1, moves=99)))
        await asyncio.sleep(0.3)
        assert not other.done()  # it waits for the game's row
        recorded = await store.record(**write_args(gid, pid, 2, 2, moves=7))
        assert recorded.replayed is None and recorded.created_at is not None
        assert not store.locking()  # the write ended the transaction with its commit
    with pytest.raises(VersionConflict):
        await other
    assert [(e.seq, e.data["i"]) for e in await store.read_events(gid)] == [(1, 1), (2, 2),
                                                                           (3, 3)]
    async with store.connection() as conn:
        row = await conn.fetchrow("SELECT version, moves FROM games WHERE id = $1", gid)
    assert (row["version"], row["moves"]) == (3, 7)


async def test_a_locked_transaction_left_without_a_write_lets_the_game_go(
    store: EventStore,
) -> None:
    pid = await new_player(store)
    gid = uuid.uuid4()
    await store.record(**write_args(gid, pid, 1, 1))
    with pytest.raises(LookupError):
        async with store.locked(gid):
            await store.read_events(gid)
            raise LookupError("the engine refused the move, say")
    async with store.locked(gid):
        await store.read_events(gid)
    assert not store.locking()
    async with asyncio.timeout(2):
        assert (await store.record(**write_args(gid, pid, 2, 1))).replayed is None
    # no connection went back to the pool in a transaction
    for _ in range(4):
        async with store.connection() as conn:
            assert not conn.is_in_transaction()


async def test_a_locked_write_on_a_hung_game_answers_within_the_requests_budget(
    store: EventStore, db_url: str
) -> None:
    pid = await new_player(store)
    gid = uuid.uuid4()
    await store.record(**write_args(gid, pid, 1, 1))
    locker = await asyncpg.connect(db_url)
    hold = locker.transaction()
    await hold.start()
    await locker.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", gid)

    async def request() -> float:
        BUDGET.set(Budget(0.4))
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailable):
            async with store.locked(gid):
                await store.record(**write_args(gid, pid, 2, 1))
        return time.monotonic() - started

    try:
        assert await asyncio.create_task(request()) < 1.0
    finally:
        await hold.rollback()
        await locker.close()
    assert [e.seq for e in await store.read_events(gid)] == [1]
    assert (await store.record(**write_args(gid, pid, 2, 1))).replayed is None


async def test_a_locked_transaction_whose_client_stops_holds_the_game_no_longer_than_its_timeout(
    db_url: str,
) -> None:
    """A client that stops between the statements of its locked transaction (a frozen
    process, a cut network) holds the game no longer than DB_TIMEOUT: the server ends
    its session, and the game's other writers go on."""
    pool = await create_pool(db_url, 1, 4)
    store = EventStore(pool, timeout=1.0)
    try:
        pid = await new_player(store)
        gid = uuid.uuid4()
        await store.record(**write_args(gid, pid, 1, 1))

        async def stalled() -> None:
            async with store.locked(gid):
                await asyncio.sleep(2.5)  # (its connection idle in its transaction)

        stall = asyncio.create_task(stalled())
        await asyncio.sleep(0.2)
        started = time.monotonic()
        other = EventStore(pool, timeout=5.0)
        assert (await other.record(**write_args(gid, pid, 2, 1))).replayed is None
        assert time.monotonic() - started < 2.0  # within the stalled one's 1 s, not 2.5
        with pytest.raises(DatabaseUnavailable):
            await stall
    finally:
        await pool.close()


async def test_a_transaction_left_idle_ends_within_its_timeout(db_url: str) -> None:
    """A transaction of the other writes (a keyed player's or race's creation, a link
    code's redemption): an instance that stops between its statements, frozen or cut off,
    holds it no longer than its timeout, as it holds a game's locks (the server ends the
    session; before, it stayed idle in its transaction as long as the instance was
    stopped, and a retry of the write waited for it)."""
    conn, other = await asyncpg.connect(db_url), await asyncpg.connect(db_url)
    try:
        pid = conn.get_server_pid()
        with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, OSError)):
            async with transaction(conn, 0.3):
                await conn.execute("SELECT 1")
                await asyncio.sleep(1.5)  # (stopped between two statements)
                assert await other.fetchval(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid) == 0
                await conn.execute("SELECT 1")
    finally:
        conn.terminate()
        await other.close()
