"""At the start: waiting for the database to answer (wait_for_database), then whether
DATABASE_URL leads to a pooler in transaction mode, asked once (transaction_pooler).

Directly, or through a pooler in session mode (or any proxy that gives a client one server
connection for its whole session), a client connection runs every transaction on one
backend, whose process id never changes. A pooler in transaction mode (pgbouncer's
``pool_mode = transaction``) hands each transaction whichever server connection is free.
So: a first client connection notes its backend and lets it go; a second one holds a
transaction open (on a backend of its own, or on that same one); a third opens one too,
which a pooler gives the first's backend when the second did not take it (it reuses an
idle server connection before it opens another); then the first asks again. A different
backend, or no answer while the others hold theirs (a pool of one or two server
connections), can only be a pooler's doing: a session keeps its backend. Asked with
unnamed statements, which work either way.
"""

from __future__ import annotations

import asyncio
import logging
import time
from urllib.parse import urlsplit

import asyncpg

log = logging.getLogger("service.database")

ANSWER_S = 3.0  # what the first client's questions wait for at most
HOLD_S = 1.0  # what the others wait for a server connection
TELL_S = 10.0  # how often a start that waits for the database says so


async def wait_for_database(dsn: str, seconds: float) -> str | None:
    """Ask the database until it answers, for at most `seconds` (a service started with
    it, or while it restarts, waits for it, saying so every TELL_S): None once it answers,
    else what it last said."""
    deadline = time.monotonic() + seconds
    told = 0.0
    while True:
        try:
            conn = await asyncio.wait_for(asyncpg.connect(dsn, statement_cache_size=0), ANSWER_S)
            try:
                await asyncio.wait_for(conn.fetchval("SELECT 1"), ANSWER_S)
                return None
            finally:
                conn.terminate()
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if isinstance(exc, asyncpg.InvalidAuthorizationSpecificationError
                          | asyncpg.InvalidPasswordError | asyncpg.InvalidCatalogNameError):
                return problem  # (waiting will not change that)
            now = time.monotonic()
            if now >= deadline:
                return problem
            if now - told >= TELL_S:
                where = urlsplit(dsn)
                log.warning("waiting for the database at %s:%s (%s); %.0f s more at most",
                            where.hostname, where.port or 5432, problem, deadline - now)
                told = now
            await asyncio.sleep(min(1.0, max(0.0, deadline - now)))


async def transaction_pooler(dsn: str) -> bool | None:
    """True when ``dsn`` leads to a pooler in transaction mode, False when it does not, None
    when the probe could not tell (connections refused, the database unreachable: the
    start goes on, and meets the same trouble where it is reported already)."""
    conns: list[asyncpg.Connection] = []
    try:
        for _ in range(3):
            conns.append(await asyncio.wait_for(
                asyncpg.connect(dsn, statement_cache_size=0), ANSWER_S))  # fmt: skip
        first, second, third = conns
        pid = "SELECT pg_backend_pid()"
        before = await asyncio.wait_for(first.fetchval(pid), ANSWER_S)
        for held in (second, third):
            try:
                await asyncio.wait_for(held.execute("BEGIN"), HOLD_S)
                await asyncio.wait_for(held.fetchval(pid), HOLD_S)
            except TimeoutError:
                pass  # no server connection for it: the others hold them all
        try:
            after = await asyncio.wait_for(first.fetchval(pid), ANSWER_S)
        except TimeoutError:
            return True  # its backend was handed to another client
        return bool(after != before)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        log.warning("could not tell whether DATABASE_URL goes through a pooler: %r", exc)
        return None
    finally:
        for conn in conns:
            conn.terminate()  # (at once, with or without a transaction under way)
