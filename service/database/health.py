"""Whether the database answers and takes writes, asked on a connection of the probe's own
(GET /healthz): a server that takes none (a standby, or `default_transaction_read_only`
set) has every write answered with 503, so it is not healthy either.

Not on one of the pool's: under a burst of requests every pooled connection is taken and
a health check would wait its turn behind them, reporting the queue rather than the
database. One question at a time: those who ask while one is under way get its answer.
A connection that fails is dropped; the next question connects anew, and a question that
finds its connection broken (the server restarted since) asks once more on a new one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from service.database.connections import CONNECTION_ERRORS, DatabaseUnavailable, TakesNoWrites

# what else a dead or restarted server answers a question on an old connection with
_FAILURES: tuple[type[BaseException], ...] = (*CONNECTION_ERRORS, asyncpg.PostgresError)


class HealthProbe:
    """`SELECT 1` on a connection of its own, each wait at most `timeout` seconds."""

    def __init__(self, dsn: str, timeout: float, connect_options: dict[str, Any]) -> None:
        self.dsn = dsn
        self.timeout = timeout
        self._options = connect_options
        self._conn: asyncpg.Connection | None = None
        self._asking: asyncio.Task[None] | None = None

    async def ping(self) -> None:
        """Returns when the database answered; DatabaseUnavailable when it did not."""
        if self._asking is None or self._asking.done():
            self._asking = asyncio.create_task(self._ask())
            self._asking.add_done_callback(_retrieve)
        await asyncio.shield(self._asking)

    async def _ask(self) -> None:
        reused = self._conn is not None
        try:
            read_only = await self._read_only()
        except _FAILURES as exc:
            self._drop()
            if not reused or isinstance(exc, TimeoutError):  # (a hung server: asked once)
                raise DatabaseUnavailable(str(exc) or type(exc).__name__) from exc
            try:  # (an old connection: the server may have restarted since)
                read_only = await self._read_only()
            except _FAILURES as again:
                self._drop()
                raise DatabaseUnavailable(str(again) or type(again).__name__) from again
        if read_only:
            raise TakesNoWrites("the database takes no writes (read-only)")

    async def _read_only(self) -> bool:
        """Whether the database answers that it takes no writes (one statement)."""
        if self._conn is None:
            self._conn = await asyncpg.connect(
                self.dsn, timeout=self.timeout, **self._options
            )
        answer = await self._conn.fetchval(
            "SELECT current_setting('transaction_read_only')", timeout=self.timeout
        )
        return answer == "on"

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.terminate()  # (at once: a hung server never confirms a close)
            self._conn = None

    async def close(self) -> None:
        if self._asking is not None:
            self._asking.cancel()
            await asyncio.gather(self._asking, return_exceptions=True)
        self._drop()


def _retrieve(task: asyncio.Task[None]) -> None:
    """A question whose askers all went away: its failure is read, not left unread."""
    if not task.cancelled():
        task.exception()
