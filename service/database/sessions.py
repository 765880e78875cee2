"""How the store's statements get a connection: a pooled one each, bounded by the request's
budget, the driver's errors translated; or, inside :meth:`Sessions.locked`, the one of the
transaction that holds a game's locks.

The driver's errors become those of connections.py: a duplicate (game_id, seq), or a
deadlock (nothing of the transaction was written), is a VersionConflict; a lost
connection DatabaseUnavailable."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import asyncpg

from service.database.connections import (
    BROKEN,
    CONNECTION_ERRORS,
    LOST_STATEMENTS,
    POOLER_HINT,
    TAKES_NO_WRITES,
    DatabaseUnavailable,
    TakesNoWrites,
    VersionConflict,
    current_budget,
    left_between_messages,
    release_later,
)

log = logging.getLogger(__name__)

# what says another writer came first: nothing of this write's transaction was written
_CONFLICTS: tuple[type[BaseException], ...] = (
    asyncpg.exceptions.UniqueViolationError,
    asyncpg.exceptions.DeadlockDetectedError,
)


@dataclass(slots=True)
class _Locked:
    """The transaction that holds a game's locks (Sessions.locked): its connection, the
    task it belongs to (a task started meanwhile inherits the context, not the
    connection), when its time is up, and whether it is still open."""

    conn: asyncpg.Connection
    task: asyncio.Task[object] | None
    deadline: float
    open: bool = True


_LOCKED: ContextVar[_Locked | None] = ContextVar("locked_game", default=None)


def _held() -> _Locked | None:
    """The current task's locked transaction, while it is open."""
    held = _LOCKED.get()
    if held is None or not held.open or held.task is not asyncio.current_task():
        return None
    return held


@contextmanager
def _translated() -> Iterator[None]:
    try:
        yield
    except _CONFLICTS as exc:
        raise VersionConflict(str(exc)) from exc
    except TAKES_NO_WRITES as exc:
        raise TakesNoWrites(str(exc) or type(exc).__name__) from exc
    except CONNECTION_ERRORS as exc:
        raise DatabaseUnavailable(str(exc) or type(exc).__name__) from exc
    except LOST_STATEMENTS:
        log.error(POOLER_HINT)
        raise


class Sessions:
    """The pool, and what a wait for the database may take."""

    def __init__(self, pool: asyncpg.Pool, timeout: float = 5.0) -> None:
        self.pool = pool
        self.db_timeout = timeout
        self._releases: set[asyncio.Future[None]] = set()  # connections going back late

    @property
    def timeout(self) -> float:
        """What the next wait for the database may take: DB_TIMEOUT, or what is left of
        the current request's budget (connections.Budget), or of the locked transaction's
        time, when that is less; DatabaseUnavailable once it is spent."""
        held = _held()
        if held is not None:
            left = held.deadline - time.monotonic()
            if left <= 0:
                raise DatabaseUnavailable(
                    f"this game's locked write has taken {self.db_timeout:g} s (DB_TIMEOUT)"
                )
            return min(self.db_timeout, left)
        budget = current_budget()
        if budget is None:
            return self.db_timeout
        if budget.left <= 0:
            raise DatabaseUnavailable(
                f"this request has waited {self.db_timeout:g} s (DB_TIMEOUT) for the"
                " database already"
            )
        return min(self.db_timeout, budget.left)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection (inside :meth:`locked`, its transaction's); driver errors
        come out translated.

        Both steps are bounded by the store's timeout: getting a connection (which may mean
        connecting anew, as the pool reconnects on acquire) and each statement (its
        `timeout=`); the time the connection is held is taken from the request's budget.
        No asyncio.timeout around the whole: a task cancelled mid-statement makes
        asyncpg's release wait, unbounded, for the server to confirm the cancel, which a
        hung server never does; its own statement timeout does not, and the connection of
        a statement that timed out goes back to the pool in the background."""
        held = _held()
        if held is not None:
            with _translated():
                try:
                    yield held.conn
                except (*BROKEN, TimeoutError):  # (no ROLLBACK waits on a hung server)
                    held.conn.terminate()
                    raise
            return
        budget = current_budget()
        start = time.monotonic()
        try:
            with _translated():
                conn = await self._acquire()
                later = False  # whether the connection goes back to the pool in the background
                if budget is not None:
                    start = budget.spend(start)
                try:
                    yield conn
                except BROKEN:
                    conn.terminate()
                    raise
                except TimeoutError:  # the request is answered now (connections.release_later)
                    release_later(self.pool, conn, self._releases)
                    later = True
                    raise
                except BaseException as exc:
                    if left_between_messages(exc):
                        conn.terminate()
                    raise
                finally:
                    if not later:
                        await self.pool.release(conn)
        finally:
            if budget is not None:
                budget.spend(start)

    async def _acquire(self) -> asyncpg.Connection:
        """A connection of the pool. A server that refuses a new one, whatever it says (the
        database not accepting connections, gone, or its role or password changed), is a
        database that cannot be reached: no statement of ours ran."""
        try:
            return await self.pool.acquire(timeout=self.timeout)
        except asyncpg.PostgresError as exc:
            if isinstance(exc, CONNECTION_ERRORS):
                raise  # (translated as the others are)
            raise DatabaseUnavailable(str(exc) or type(exc).__name__) from exc

    @asynccontextmanager
    async def locked(self, game_id: uuid.UUID) -> AsyncIterator[None]:
        """A transaction that holds the game's locks (lock_game,
        migrations/sql/0023_record_events.sql) from the start: the store's calls in it, in
        this task, are its statements, and no other write of the game lands meanwhile.
        The store's record() ends it with its COMMIT; left without one (nothing written),
        it is rolled back. All of it within one DB_TIMEOUT (or the request's budget)."""
        async with self.connection() as conn:
            held = _Locked(conn, asyncio.current_task(), time.monotonic() + self.timeout)
            token = _LOCKED.set(held)
            try:
                async with self.connection():
                    # (a client that stops between statements, frozen or cut off, holds
                    # the game no longer than DB_TIMEOUT: the server ends its session)
                    idle_ms = max(1, round(self.db_timeout * 1000))
                    await conn.execute(
                        f"BEGIN; SET LOCAL idle_in_transaction_session_timeout = {idle_ms}",
                        timeout=self.timeout,
                    )
                    await conn.execute("SELECT lock_game($1)", game_id, timeout=self.timeout)
                yield
            finally:
                _LOCKED.reset(token)
                if held.open:
                    held.open = False
                    if not conn.is_closed():
                        try:
                            await conn.execute("ROLLBACK", timeout=self.db_timeout)
                        except BaseException:
                            conn.terminate()
                            raise

    def locking(self) -> bool:
        """Whether the current task is inside :meth:`locked`, its transaction open."""
        return _held() is not None

    async def commit_locked(self) -> None:
        """The COMMIT of the current task's locked transaction (the store's record() ends
        it so, inside :meth:`locked`). A COMMIT that does not come through leaves its
        outcome unknown: the connection is closed, and the error is DatabaseUnavailable."""
        held = _held()
        assert held is not None, "no locked transaction to commit"
        async with self.connection() as conn:
            timeout = self.timeout
            held.open = False
            try:
                await conn.execute("COMMIT", timeout=timeout)
            except BaseException:
                conn.terminate()
                raise
