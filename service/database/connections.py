"""How the service connects to PostgreSQL: the pool, its connections' JSON codecs, the
connection class for a pooler in transaction mode, and what a driver error means.

The store's errors are defined here: a duplicate (game_id, seq) is a VersionConflict; a
lost or refused connection is DatabaseUnavailable. EventStore.connection()
(service/database/store.py) translates the driver's errors into them with the tuples below.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

import asyncpg
import orjson

# what a pooler in transaction mode does to named prepared statements, when the service
# was not told about it
LOST_STATEMENTS: tuple[type[BaseException], ...] = (
    asyncpg.exceptions.InvalidSQLStatementNameError,
    asyncpg.exceptions.DuplicatePreparedStatementError,
)
POOLER_HINT = (
    "a prepared statement of this connection is missing or taken on the server: does"
    " DATABASE_URL go through a pooler in transaction mode (pgbouncer)? Then set"
    " DATABASE_POOLER=transaction (docs/operations.md: Behind a pooler)"
)


class StoreError(Exception):
    """Base of the store's errors."""


class VersionConflict(StoreError):
    """Another writer appended at the same sequence number first."""


class SignedOut(StoreError):
    """The device token a write came with was signed out: the write appended nothing."""


class DatabaseUnavailable(StoreError):
    """The database cannot be reached (or answers too slowly) right now."""


class TakesNoWrites(DatabaseUnavailable):
    """The database is there but takes no writes right now: read-only, or its disk full
    (TAKES_NO_WRITES)."""


class Budget:
    """What one request may still wait for the database, in seconds, all its waits
    together: a token's check, a turn behind a write lane, a connection, each statement
    (EventStore.timeout). Set per request (service/app.py: observe), so that a database
    that hangs costs a request DB_TIMEOUT once, not once per wait. Closed when the request
    ends: a task it started that outlives it (which inherits the context) then has
    DB_TIMEOUT for each wait, as all background work does."""

    __slots__ = ("left", "open")

    def __init__(self, seconds: float) -> None:
        self.left = seconds
        self.open = True

    def spend(self, since: float) -> float:
        """Take the time since `since` (a time.monotonic()) from what is left; the time now."""
        now = time.monotonic()
        self.left -= now - since
        return now


def current_budget() -> Budget | None:
    """The budget of the request under way, or None."""
    budget = BUDGET.get()
    return budget if budget is not None and budget.open else None


def spend_since(since: float) -> None:
    """Take the time since `since` from the budget of the request under way, if any."""
    if (budget := current_budget()) is not None:
        budget.spend(since)


# the current request's budget; None outside requests (background work, a WebSocket's
# long life), where each wait has DB_TIMEOUT of its own
BUDGET: ContextVar[Budget | None] = ContextVar("database_budget", default=None)


def plain(value: Any) -> Any:
    """A value read by asyncpg, its UUIDs as plain uuid.UUIDs (asyncpg's own UUID type
    prints and hashes as its own, and orjson does not serialise it)."""
    return uuid.UUID(int=value.int) if isinstance(value, uuid.UUID) else value


def json_text(value: Any) -> str:
    """A value as JSON text, as the connections send jsonb and json."""
    return orjson.dumps(value).decode()


async def init_connection(conn: asyncpg.Connection) -> None:
    """jsonb and json as Python values: for the pool's connections and `verify`'s."""
    await conn.set_type_codec("jsonb", encoder=json_text, decoder=orjson.loads, schema="pg_catalog")
    await conn.set_type_codec("json", encoder=json_text, decoder=orjson.loads, schema="pg_catalog")


# a lost, refused or too slow connection, a statement the server gave up (cancelled by
# an operator, past a server-side statement_timeout or lock_timeout: nothing of it was
# written), a server that takes no writes (a standby; default_transaction_read_only
# set, as a managed database does when its disk is full), or one short of resources or
# failing underneath (SQLSTATE classes 53 and 58: its disk full, its memory out, its
# connection slots taken, an I/O error; the statement fails whole): DatabaseUnavailable
CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    asyncpg.exceptions.ReadOnlySQLTransactionError,
    asyncio.TimeoutError,
    asyncpg.exceptions.QueryCanceledError,
    asyncpg.exceptions.LockNotAvailableError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.InterfaceError,
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.InsufficientResourcesError,
    asyncpg.exceptions.PostgresSystemError,
    asyncpg.exceptions.InternalClientError,
)
# of those, what a server that is there but takes no writes says: read-only, its disk full
TAKES_NO_WRITES: tuple[type[BaseException], ...] = (
    asyncpg.exceptions.ReadOnlySQLTransactionError,
    asyncpg.exceptions.DiskFullError,
)
# a connection whose protocol is left mid-operation (its server died under a statement,
# a statement timed out against a server that is gone): closed, never used again
BROKEN: tuple[type[BaseException], ...] = (asyncpg.exceptions.InternalClientError,)


def left_between_messages(exc: BaseException) -> bool:
    """Whether `exc`, leaving a connection's user, may have come between a statement's
    messages: asyncpg sends a statement it has not prepared on this connection as a Parse
    (no Sync), then its Bind, Execute and Sync. A task cancelled in between (its Parse
    answered, its Bind not sent), or an argument asyncpg cannot encode (an error of its
    own, no answer of the server's), leaves the Sync unsent: PostgreSQL is in a transaction
    asyncpg does not know of, which the pool's release does not end, and the connection's
    next user meets it (a BEGIN ISOLATION LEVEL then fails: "must be called before any
    query"). Such a connection is closed, not pooled. Errors the server answered, and the
    service's own between statements, leave it at a Sync."""
    if isinstance(exc, asyncio.CancelledError | asyncpg.exceptions.InterfaceError):
        return True
    return isinstance(exc, asyncpg.PostgresError) and getattr(exc, "severity", None) is None


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Nothing to reset when a connection goes back to the pool: every call here is one
    statement in its own transaction, and none sets session state (LISTEN runs on a
    connection of its own), which is also why a pooler in transaction mode may stand
    between the service and PostgreSQL. asyncpg's default reset costs a round trip per
    release."""
class UnnamedStatements(asyncpg.Connection):  # type: ignore[misc]
    """The connection for DATABASE_POOLER=transaction: PostgreSQL through a pooler in
    transaction mode (pgbouncer's `pool_mode = transaction`).

    Such a pooler hands each transaction whichever server connection it has free, so a
    named prepared statement, which lives on one server connection, is missing (or another
    client's) on the next: asyncpg's statement cache must be off. Off, asyncpg prepares
    every statement afresh before running it, two round trips where there was one. This
    connection keeps what asyncpg learnt when it first prepared a statement (its argument
    and result types, its codecs) and sends it unnamed, parsed again with each execution:
    Parse, Bind, Execute and Sync in one message, so one round trip on one server
    connection, as with the cache. What PostgreSQL pays for it is a parse and plan of the
    statement on every execution (docs/operations.md, "Behind a pooler").

    It overrides asyncpg's private `_get_statement` (and the drop of its cache, where
    asyncpg learns that types changed); tests/api/contract/test_pooler.py counts the round trips
    of moves through the pooler, so a change of asyncpg's that breaks it fails there.
    """

    __slots__ = ("_unnamed",)
    KEEP = 200  # statements kept per connection (the service has a few dozen)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unnamed: dict[tuple[Any, ...], Any] = {}

    async def _get_statement(
        self, query: str, timeout: float | None, *, named: Any = False,
        use_cache: bool = True, **kwargs: Any,
    ) -> Any:  # fmt: skip
        if named is not False or not use_cache:  # prepare(): asyncpg's own way
            return await super()._get_statement(
                query, timeout, named=named, use_cache=use_cache, **kwargs
            )
        key = (query, kwargs.get("record_class"), kwargs.get("ignore_custom_codec", False))
        state = self._unnamed.get(key)
        if state is None or state.closed:
            # with the cache off, asyncpg prepares it unnamed and marks it unprepared:
            # each bind_execute sends the Parse again
            state = await super()._get_statement(query, timeout, use_cache=use_cache, **kwargs)
            if state.name:  # not what this class is for: leave it to asyncpg
                return state
            if len(self._unnamed) >= self.KEEP:
                self._unnamed.pop(next(iter(self._unnamed)))
            self._unnamed[key] = state
        return state

    def _drop_local_statement_cache(self) -> None:
        super()._drop_local_statement_cache()
        self._unnamed.clear()


def connect_options(pooler: bool) -> dict[str, Any]:
    """asyncpg's options for connections of the pool and of `verify`: behind a
    transaction-mode pooler (DATABASE_POOLER=transaction), no named prepared statements."""
    if not pooler:
        return {}
    return {"statement_cache_size": 0, "connection_class": UnnamedStatements}


async def create_pool(
    dsn: str, min_size: int = 4, max_size: int = 16, *, pooler: bool = False
) -> asyncpg.Pool:
    try:
        pool = await asyncpg.create_pool(
            dsn, min_size=min_size, max_size=max_size, init=init_connection,
            reset=_keep_session,
            command_timeout=30, max_inactive_connection_lifetime=300,
            **connect_options(pooler),
        )
    except CONNECTION_ERRORS as exc:
        raise DatabaseUnavailable(str(exc)) from exc
    assert pool is not None
    return pool


async def close_pool(pool: asyncpg.Pool, timeout: float) -> None:
    """The pool closed as the service stops: gracefully (each connection released, then
    told goodbye) within `timeout` seconds, else cut (asyncpg's close waits, unbounded, for
    every connection to come back and for the server's word: a request cancelled at
    shutdown mid-statement, or a hung server, kept the process from ever exiting)."""
    with contextlib.suppress(TimeoutError):  # (a close that fails cuts the rest: asyncpg)
        await asyncio.wait_for(pool.close(), timeout)


def release_later(pool: asyncpg.Pool, conn: Any, pending: set[asyncio.Future[None]]) -> None:
    """A connection whose statement timed out goes back to the pool in the background:
    asyncpg asked the server to cancel the statement, and the release waits for the
    server's word (as long again), which a hung server never gives. `pending` holds the
    releases under way (the loop keeps only weak references)."""
    release = asyncio.ensure_future(pool.release(conn))
    pending.add(release)
    release.add_done_callback(functools.partial(_released, pending))


def _released(pending: set[asyncio.Future[None]], release: asyncio.Future[None]) -> None:
    pending.discard(release)
    if not release.cancelled() and (exc := release.exception()) is not None:
        logging.getLogger(__name__).warning(
            "a timed-out statement's connection went back badly: %r", exc
        )


@asynccontextmanager
async def transaction(
    conn: asyncpg.Connection, timeout: float, *, repeatable_read: bool = False,
    read_only: bool = False,
) -> AsyncIterator[None]:
    """A transaction on `conn` whose BEGIN, COMMIT and ROLLBACK wait at most `timeout`,
    as its statements do (asyncpg's own `transaction()` sends them under the pool's
    command timeout, 30 s, which a hung server made a request wait out). A connection
    whose statement timed out is closed, not rolled back (which would wait as long again:
    the request would take twice DB_TIMEOUT); so is one whose ROLLBACK did not come
    through: never pooled mid-transaction. An instance that stops between its statements
    (frozen, or its machine cut off) holds it no longer than `timeout` either: the server
    ends a session idle in it so long (as the game's writes, sessions.locked), and a retry
    of the same write, or another player's lookalike name, waits for no more."""
    begin = "BEGIN" + (" ISOLATION LEVEL REPEATABLE READ" if repeatable_read else "")
    idle_ms = max(1, round(timeout * 1000))
    await conn.execute(
        begin + (" READ ONLY" if read_only else "")
        + f"; SET LOCAL idle_in_transaction_session_timeout = {idle_ms}",
        timeout=timeout,
    )
    try:
        yield
    except TimeoutError:
        # a statement waited its time out: the server hangs, or a lock holds it, and a
        # ROLLBACK would wait as long again; the closed connection rolls it back
        conn.terminate()
        raise
    except BaseException:
        try:
            await conn.execute("ROLLBACK", timeout=timeout)
        except BaseException:
            conn.terminate()
            raise
        raise
    try:
        await conn.execute("COMMIT", timeout=timeout)
    except BaseException:
        conn.terminate()  # (the commit's outcome unknown: nothing more on this connection)
        raise
