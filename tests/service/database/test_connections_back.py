"""A pooled connection goes back to the pool with nothing of its user's left on it: a
statement cut between asyncpg's Parse and its Sync (a task cancelled there, an argument
asyncpg could not encode) left PostgreSQL in a transaction that the next user met
(connections.left_between_messages)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from service.database.connections import create_pool, transaction
from service.database.store import EventStore

_TEXTS = itertools.count(1)


@pytest.fixture
async def one_connection(db_url: str) -> AsyncIterator[EventStore]:
    """A store whose pool holds a single connection: each user gets the last one's."""
    pool = await create_pool(db_url, 1, 1)
    yield EventStore(pool)
    await pool.close()


async def _next_user_reads(store: EventStore) -> int:
    """What a read in a transaction of its own sees (as a player's record reads)."""
    async with (
        store.connection() as conn,
        transaction(conn, store.db_timeout, repeatable_read=True, read_only=True),
    ):
        return int(await conn.fetchval("SELECT 1"))


def _new_statement() -> str:
    """A statement this connection has not prepared yet: asyncpg sends its Parse first."""
    return f"SELECT $1::int + {next(_TEXTS)}"


async def test_an_argument_asyncpg_cannot_encode_leaves_nothing_open(
    one_connection: EventStore,
) -> None:
    with pytest.raises(asyncpg.DataError, match="invalid input for query argument"):
        async with one_connection.connection() as conn:
            await conn.fetchval(_new_statement(), "not a number")
    assert await _next_user_reads(one_connection) == 1


async def test_a_task_cancelled_between_parse_and_bind_leaves_nothing_open(
    one_connection: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cancel comes when the Parse is answered and the Bind not yet sent, as a client
    that goes away (its request's task cancelled) may time it."""
    prepared = asyncpg.Connection._get_statement

    async def cancelled_once_prepared(self: asyncpg.Connection, *args: Any, **kw: Any) -> Any:
        statement = await prepared(self, *args, **kw)
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(0)  # (the cancel lands here, before the Bind)
        return statement

    async def user() -> None:
        async with one_connection.connection() as conn:
            await conn.fetchval(_new_statement(), 1)

    monkeypatch.setattr(asyncpg.Connection, "_get_statement", cancelled_once_prepared)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(user())
    monkeypatch.undo()
    assert await _next_user_reads(one_connection) == 1
