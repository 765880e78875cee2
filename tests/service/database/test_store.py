"""The event store's contract against a real PostgreSQL."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import timedelta

import asyncpg
import pytest

from service.database.connections import (
    BUDGET,
    Budget,
    DatabaseUnavailable,
    SignedOut,
    VersionConflict,
    create_pool,
)
from service.database.store import EventStore

from .helpers import new_player, write_args


async def test_append_and_read_in_order(store: EventStore) -> None:
    pid = await new_player(store)
    gid = uuid.uuid4()
    assert (await store.record(**write_args(gid, pid, 1, 3))).replayed is None
    assert (await store.record(**write_args(gid, pid, 4, 2))).replayed is None
    events = await store.read_events(gid)
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]
    assert [e.data["i"] for e in events] == [1, 2, 3, 4, 5]
    assert [e.seq for e in await store.read_events(gid, after=3)] == [4, 5]
    async with store.connection() as conn:
        row = await conn.fetchrow("SELECT version, moves FROM games WHERE id = $1", gid)
    assert (row["version"], row["moves"]) == (5, 4)


async def test_duplicate_seq_is_a_version_conflict_and_writes_nothing(store: EventStore) -> None:
    pid = await new_player(store)
    gid = uuid.uuid4()
    await store.record(**write_args(gid, pid, 1, 2))
    with pytest.raises(VersionConflict):
        await store.record(
            **write_args(gid, pid, 2, 3, key="k1", request_hash="h", http_status=201,
                         response={"x": 1})
        )
    # all or nothing: no event, no projection change, no idempotency record
    assert [e.seq for e in await store.read_events(gid)] == [1, 2]
    assert await store.find_key(pid, "k1") is None
    async with store.connection() as conn:
        assert await conn.fetchval("SELECT version FROM games WHERE id = $1", gid) == 2


async def test_events_are_append_only(store: EventStore) -> None:
    pid = await new_player(store)
    gid = uuid.uuid4()
    await store.record(**write_args(gid, pid, 1, 1))
    async with store.pool.acquire() as conn:
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError):
            await conn.execute("UPDATE game_events SET type = 'X' WHERE game_id = $1", gid)
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError):
            await conn.execute("DELETE FROM game_events WHERE game_id = $1", gid)
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError):
            await conn.execute("TRUNCATE game_events CASCADE")
    assert len(await store.read_events(gid)) == 1


async def test_idempotency_key_returns_the_first_answer(store: EventStore) -> None:
    pid = await new_player(store)
    gid = uuid.uuid4()
    first = await store.record(
        **write_args(gid, pid, 1, 1, key="k", request_hash="h1", http_status=201,
                response={"n": 1, "an": {"zz": 0, "a": 1}})
    )
    assert first.replayed is None
    again = await store.record(
        **write_args(gid, pid, 2, 1, key="k", request_hash="h2", http_status=201, response={"n": 2})
    )
    assert again.replayed is not None
    assert again.replayed.request_hash == "h1"
    # the first answer with its keys in their order (the bytes of a retry's answer)
    assert list(again.replayed.response.items()) == [("n", 1), ("an", {"zz": 0, "a": 1})]
    assert list(again.replayed.response["an"]) == ["zz", "a"]
    found = await store.find_key(pid, "k")
    assert found is not None and list(found.response["an"]) == ["zz", "a"]
    # the earlier answer's time is the first write's, from the database's clock
    assert again.replayed.at == first.at
    assert [e.seq for e in await store.read_events(gid)] == [1]


async def test_times_come_from_the_database_and_a_finish_is_timed_there(
    store: EventStore,
) -> None:
    pid = await new_player(store)
    gid = uuid.uuid4()
    async with store.connection() as conn:
        before = await conn.fetchval("SELECT clock_timestamp()")
    created = await store.record(**write_args(gid, pid, 1, 1))
    ended = await store.record(**write_args(gid, pid, 2, 1, status="abandoned", finish="now"))
    kept = await store.record(**write_args(gid, pid, 3, 1, status="abandoned", finish="keep"))
    assert before <= created.at <= ended.at <= kept.at
    assert created.created_at == created.at and created.finished_at is None
    assert ended.created_at == created.at and ended.finished_at == ended.at
    assert ended.elapsed_ms == (ended.at - created.at) // timedelta(milliseconds=1) >= 0
    assert (kept.finished_at, kept.elapsed_ms) == (ended.finished_at, ended.elapsed_ms)
    assert [e.at for e in await store.read_events(gid)] == [created.at, ended.at, kept.at]


# ---------------------------------------------------------------- writes in batches


@pytest.fixture
async def one_lane(db_url: str):  # type: ignore[no-untyped-def]
    """A store with one write lane: writes that arrive together go in batches."""
    pool = await create_pool(db_url, 1, 4)
    yield EventStore(pool, write_lanes=1)
    await pool.close()


async def test_writes_that_wait_for_a_lane_go_together_each_with_its_answer(
    one_lane: EventStore,
) -> None:
    store = one_lane
    pid = await new_player(store)
    games = [uuid.uuid4() for _ in range(12)]
    created = await asyncio.gather(*(store.record(**write_args(g, pid, 1, 1)) for g in games))
    assert all(r.replayed is None and r.created_at is not None for r in created)
    moved = await asyncio.gather(
        *(store.record(**write_args(g, pid, 2, 1 + i % 3, moves=7 + i))
          for i, g in enumerate(games))
    )
    assert store.batched_writes >= 10  # all but the first of each round waited
    for i, (g, r) in enumerate(zip(games, moved, strict=True)):
        assert r.replayed is None and r.created_at == created[i].created_at
        assert [e.seq for e in await store.read_events(g)] == list(range(1, 3 + i % 3))
        assert [e.data["i"] for e in await store.read_events(g, after=1)] == [
            2 + k for k in range(1 + i % 3)
        ]
    async with store.connection() as conn:
        rows = await conn.fetch(
            "SELECT id, version, moves FROM games WHERE id = ANY($1::uuid[])", games
        )
    projection = {r["id"]: (r["version"], r["moves"]) for r in rows}
    assert projection == {g: (2 + i % 3, 7 + i) for i, g in enumerate(games)}


async def test_a_collision_in_a_batch_fails_that_write_alone(one_lane: EventStore) -> None:
    store = one_lane
    pid = await new_player(store)
    games = [uuid.uuid4() for _ in range(8)]
    await asyncio.gather(*(store.record(**write_args(g, pid, 1, 1)) for g in games))
    # another instance took seq 2 of one game first
    async with store.connection() as conn:
        await conn.execute(
            "INSERT INTO game_events (game_id, seq, type, data, at)"
            " VALUES ($1, 2, 'CardMoved', '{}', now())",
            games[3],
        )
    results = await asyncio.gather(
        *(store.record(**write_args(g, pid, 2, 1)) for g in games), return_exceptions=True
    )
    assert isinstance(results[3], VersionConflict)
    assert all(not isinstance(r, BaseException) for i, r in enumerate(results) if i != 3)
    for i, g in enumerate(games):
        events = await store.read_events(g)
        assert [e.seq for e in events] == [1, 2]
        assert events[1].data == ({} if i == 3 else {"i": 2})


async def second_writes(
    store: EventStore, pid: uuid.UUID, games: list[uuid.UUID], odd: dict[str, object],
    **kw: object,
) -> object:
    """Each game's second write sent at once, games[3]'s being `odd`: all but the first
    wait for the one lane and go in one batch. The others commit; `odd`'s outcome."""
    before = store.batched_writes
    results = await asyncio.gather(
        *(store.record(**(odd if i == 3 else write_args(g, pid, 2, 1, **kw)))  # type: ignore[arg-type]
          for i, g in enumerate(games)),
        return_exceptions=True,
    )
    assert all(not isinstance(r, BaseException) for i, r in enumerate(results) if i != 3)
    assert store.batched_writes - before == 7  # all but the first, which found the lane free
    return results[3]


async def test_a_stale_write_in_a_batch_is_refused_and_the_others_commit_together(
    one_lane: EventStore,
) -> None:
    """A write judged on a position another writer has moved past (its first seq is not
    next) appends nothing and keeps no key; the batch's other writes commit in it, not one
    by one."""
    store = one_lane
    pid = await new_player(store)
    games = [uuid.uuid4() for _ in range(8)]
    await asyncio.gather(*(store.record(**write_args(g, pid, 1, 1)) for g in games))
    await store.record(**write_args(games[3], pid, 2, 2))  # another writer was first: seq 2, 3
    stale = write_args(games[3], pid, 2, 1, key="k", request_hash="h", http_status=201, response={})
    assert isinstance(await second_writes(store, pid, games, stale), VersionConflict)
    assert await store.find_key(pid, "k") is None
    for i, g in enumerate(games):
        assert [e.seq for e in await store.read_events(g)] == ([1, 2, 3] if i == 3 else [1, 2])


async def test_a_write_whose_token_is_signed_out_appends_nothing_alone_or_in_a_batch(
    one_lane: EventStore,
) -> None:
    """The statement that appends judges the write's token too (statements.signed_in): one
    signed out by then is refused, with nothing appended and no key kept, whatever memory
    trusted; in a batch, the others commit in it."""
    store = one_lane
    pid = await new_player(store)
    signed_in, signed_out = uuid.uuid4(), uuid.uuid4()
    async with store.connection() as conn:
        for token in (signed_in, signed_out):
            await conn.execute(
                "INSERT INTO device_tokens (id, player_id, token_hash, device)"
                " VALUES ($1, $2, $3, 'phone')", token, pid, token.bytes,
            )
        await conn.execute(
            "UPDATE device_tokens SET revoked_at = now() WHERE id = $1", signed_out
        )
    alone = uuid.uuid4()
    with pytest.raises(SignedOut):
        await store.record(**write_args(alone, pid, 1, 1, token_id=signed_out))
    assert await store.read_events(alone) == []
    games = [uuid.uuid4() for _ in range(8)]
    await asyncio.gather(
        *(store.record(**write_args(g, pid, 1, 1, token_id=signed_in)) for g in games)
    )
    out = write_args(games[3], pid, 2, 1, key="k", request_hash="h", http_status=201,
                     response={}, token_id=signed_out)
    assert isinstance(await second_writes(store, pid, games, out, token_id=signed_in), SignedOut)
    assert await store.find_key(pid, "k") is None
    for i, g in enumerate(games):
        assert [e.seq for e in await store.read_events(g)] == ([1] if i == 3 else [1, 2])


async def test_a_stale_write_of_code_older_than_0020_still_fails(store: EventStore) -> None:
    """Code that calls record_events as before 0020 (no `p_stale_answered`), still running
    while a newer instance migrates, reads no `current_version`: its stale write fails with
    unique_violation, as it did, and never passes for a success."""
    pid = await new_player(store)
    gid = uuid.uuid4()
    await store.record(**write_args(gid, pid, 1, 2))
    async with store.connection() as conn:
        with pytest.raises(asyncpg.exceptions.UniqueViolationError):
            await conn.fetchrow(
                "SELECT * FROM record_events($1, 2, '[{\"type\": \"X\", \"data\": {}}]', $2,"
                " 'freecell', 1, true, 'playing', 1, 0, 0, 0, 'none', 0, NULL, NULL, NULL,"
                " NULL, NULL)",
                gid, pid,
            )
    assert [e.seq for e in await store.read_events(gid)] == [1, 2]


async def test_keys_in_a_batch_record_once_and_replay(one_lane: EventStore) -> None:
    store = one_lane
    pid = await new_player(store)
    games = [uuid.uuid4() for _ in range(6)]
    await asyncio.gather(*(store.record(**write_args(g, pid, 1, 1)) for g in games))

    def keyed(i: int, g: uuid.UUID, seq: int) -> dict:  # type: ignore[type-arg]
        return write_args(g, pid, seq, 1, key=f"k{i}", request_hash=f"h{i}", http_status=201,
                     response={"text": "a [list] of \"quotes\"", "n": i})  # fmt: skip

    first = await asyncio.gather(*(store.record(**keyed(i, g, 2)) for i, g in enumerate(games)))
    assert all(r.replayed is None for r in first)
    again = await asyncio.gather(*(store.record(**keyed(i, g, 3)) for i, g in enumerate(games)))
    for i, r in enumerate(again):
        assert r.replayed is not None
        assert (r.replayed.request_hash, r.replayed.status) == (f"h{i}", 201)
        assert list(r.replayed.response.items()) == [("text", "a [list] of \"quotes\""), ("n", i)]
    for g in games:  # the replays appended nothing
        assert [e.seq for e in await store.read_events(g)] == [1, 2]


async def test_a_write_given_up_while_it_waits_is_not_written(one_lane: EventStore) -> None:
    store = one_lane
    pid = await new_player(store)
    first, second = uuid.uuid4(), uuid.uuid4()
    going = asyncio.ensure_future(store.record(**write_args(first, pid, 1, 1)))
    waiting = asyncio.ensure_future(store.record(**write_args(second, pid, 1, 1)))
    await asyncio.sleep(0)
    waiting.cancel()
    await going
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await store.record(**write_args(uuid.uuid4(), pid, 1, 1))  # the lane goes on
    assert await store.read_events(second) == []


async def test_a_write_the_database_refuses_in_a_batch_fails_alone(one_lane: EventStore) -> None:
    store = one_lane
    pid = await new_player(store)
    games = [uuid.uuid4() for _ in range(6)]
    await asyncio.gather(*(store.record(**write_args(g, pid, 1, 1)) for g in games))
    # a key without the answer to keep: idempotency_keys refuses the row (NOT NULL)
    bad = write_args(games[2], pid, 2, 1, key="k", request_hash="h")
    results = await asyncio.gather(
        *(store.record(**(bad if i == 2 else write_args(g, pid, 2, 1)))
          for i, g in enumerate(games)),
        return_exceptions=True,
    )
    assert isinstance(results[2], asyncpg.exceptions.NotNullViolationError)
    assert all(not isinstance(r, BaseException) for i, r in enumerate(results) if i != 2)
    for i, g in enumerate(games):
        assert [e.seq for e in await store.read_events(g)] == ([1] if i == 2 else [1, 2])


# ---------------------------------------------------------------- a request's budget


async def test_a_requests_waits_for_the_database_share_one_budget(
    one_lane: EventStore, db_url: str
) -> None:
    """Behind a lane that a hung write holds, a request waits what is left of its budget,
    not DB_TIMEOUT for each wait (the turn, the connection, the statement), and its write,
    taken back, never lands; a request whose budget is spent waits for nothing more."""
    store = one_lane
    assert store.db_timeout == 5.0
    pid = await new_player(store)
    held, waiting = uuid.uuid4(), uuid.uuid4()
    await store.record(**write_args(held, pid, 1, 1))
    await store.record(**write_args(waiting, pid, 1, 1))
    locker = await asyncpg.connect(db_url)
    lock = locker.transaction()
    await lock.start()
    await locker.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", held)
    hung = asyncio.create_task(store.record(**write_args(held, pid, 2, 1)))  # holds the lane
    await asyncio.sleep(0.2)

    async def request() -> float:
        BUDGET.set(Budget(0.4))
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailable):
            await store.record(**write_args(waiting, pid, 2, 1))
        with pytest.raises(DatabaseUnavailable):  # the rest of its budget: none
            async with store.connection() as conn:
                await conn.execute("SELECT pg_sleep(1)", timeout=store.timeout)
        with pytest.raises(DatabaseUnavailable):
            assert store.timeout
        return time.monotonic() - started

    try:
        assert await asyncio.create_task(request()) < 1.0
    finally:
        await lock.rollback()
        await locker.close()
    assert (await hung).replayed is None
    await asyncio.sleep(0.2)
    assert [e.seq for e in await store.read_events(waiting)] == [1]  # taken back
    assert [e.seq for e in await store.read_events(held)] == [1, 2]


async def test_under_load_one_lane_carries_the_writes_until_it_is_slow(db_url: str) -> None:
    """With lanes to spare, writes that come while a lane is busy still wait for it and go
    together (the biggest batches); only a lane busy past LANE_PATIENCE (its statement
    waits for a lock here) lets the writes behind it go on another."""
    pool = await create_pool(db_url, 1, 8)
    store = EventStore(pool, write_lanes=4)
    try:
        pid = await new_player(store)
        games = [uuid.uuid4() for _ in range(9)]
        await asyncio.gather(*(store.record(**write_args(g, pid, 1, 1)) for g in games))
        assert store.batched_writes == 8  # the first went alone, the others in one batch
        held, others = games[0], games[1:]
        locker = await asyncpg.connect(db_url)
        lock = locker.transaction()
        await lock.start()
        await locker.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", held)
        hung = asyncio.create_task(store.record(**write_args(held, pid, 2, 1)))
        try:
            await asyncio.sleep(0.1)
            assert not hung.done()
            started = time.monotonic()
            moved = await asyncio.wait_for(asyncio.gather(
                *(store.record(**write_args(g, pid, 2, 1)) for g in others)), 3)
            assert all(r.replayed is None for r in moved)
            assert time.monotonic() - started < 1.0 and not hung.done()
        finally:
            await lock.rollback()
            await locker.close()
        assert (await hung).replayed is None
    finally:
        await pool.close()
