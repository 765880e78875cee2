"""`python -m service verify`: every game against its projection and board entries
(service/verify/games.py), then every race against its games' logs
(service/verify/races.py), then the counts kept beside them (service/verify/counts.py).

The event log is the truth; the projection and the leaderboards are written from it in the
same transaction (record_events), so any difference is a bug or damage. Every game is
replayed with the rules checked (a log the rules refuse is a difference too). The whole run
reads one snapshot (REPEATABLE READ), so games being played meanwhile do not show up as
differences. Prints each difference and a summary; exit code 1 when there is any.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg

from service.database.connections import connect_options, init_connection
from service.verify.counts import check_counts
from service.verify.games import BATCH, GameChecks
from service.verify.races import check_races
from service.verify.report import Report


async def check_all(
    conn: asyncpg.Connection, batch: int = BATCH, min_median_move_ms: int = 200
) -> Report:
    """Every check, on what `conn` sees."""
    report = Report(min_median_move_ms)
    games = GameChecks(conn, report, batch, min_median_move_ms)
    await games.games()
    await games.leaderboards()
    await check_races(conn, report.differ, games.race_writes, games.race_verdicts)
    await check_counts(conn, report.differ)
    return report


async def verify(
    dsn: str, batch: int = BATCH, min_median_move_ms: int = 200, pooler: bool = False
) -> Report:
    conn = await asyncpg.connect(dsn, **connect_options(pooler))
    try:
        await init_connection(conn)
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            return await check_all(conn, batch, min_median_move_ms)
    finally:
        await conn.close()


def main(
    dsn: str, min_median_move_ms: int = 200, out: Callable[[str], None] = print,
    pooler: bool = False,
) -> int:  # fmt: skip
    report = asyncio.run(verify(dsn, min_median_move_ms=min_median_move_ms, pooler=pooler))
    for difference in report.differences:
        out(str(difference))
    out(report.summary())
    return 0 if report.ok else 1
