"""Leaderboard reads on a big board against a primary-key read, same run, same database.

Seeds one deal's board with BENCH_ENTRIES (default 100,000) players' wins, then times,
through the service functions (service/boards, on the same pool the service uses):
page 1, a deep page by cursor (90 % down the board: a keyset read, like page 1),
around=me for a player in the middle (its rank from the board's bins of time and a count
within its bin), the winning times in bins (GET .../times), and a player's stats -- each
as a ratio to the median of a primary-key read `SELECT id, name FROM players WHERE id = $1`
on the same pool.

    .venv/bin/python -m bench.inprocess.leaderboard_bench
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Awaitable, Callable

import asyncpg

from ..common import database_url, fresh_database, percentile

ENTRIES = int(os.environ.get("BENCH_ENTRIES", "100000"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "300"))
VARIANT, DEAL = "freecell", 617

# Players, their won games and their board entries, made by the database in three
# statements. Times spread over 60..1060 s, five players to a time, moves over 60..159.
SEED = [
    """INSERT INTO players (id, name, token_hash, name_key, shape_key, glyph_key)
       SELECT md5('p' || i)::uuid, 'p' || i, decode(md5('t' || i), 'hex'), 'p' || i,
              'p' || i, 'p' || i
       FROM generate_series(1, $1) AS i""",
    """INSERT INTO games (id, player_id, variant, deal, autoplay, status, version, moves,
                         undos, foundation_cards, created_at, updated_at, finished_at,
                         elapsed_ms)
       SELECT md5('g' || i)::uuid, md5('p' || i)::uuid, 'freecell', 617, false, 'won',
              200, 60 + (i * 7) % 100, i % 5, 52,
              now() - interval '1 day' - (i * 37 % 1000000) * interval '1 ms',
              now() - interval '1 day', now() - interval '1 day' + i * interval '1 ms',
              60000 + (i * 7919) % 20000 * 50
       FROM generate_series(1, $1) AS i""",
    """INSERT INTO leaderboard_entries
           (variant, deal, board, player_id, game_id, elapsed_ms, moves, undos, assisted,
            verified, finished_at)
       SELECT variant, deal, 'default', player_id, id, elapsed_ms, moves, undos, false, true,
              finished_at
       FROM games WHERE variant = 'freecell' AND deal = 617 AND status = 'won'""",
]


async def seed(conn: asyncpg.Connection, entries: int) -> None:
    """`entries` players, each with one won game of FreeCell deal 617 and its entry on the
    board; then VACUUM ANALYZE, as autovacuum would leave a settled table. (Each statement
    may take longer than a pool's 30 s command timeout: the games' triggers keep the
    players' stats as they go.)"""
    for statement in SEED:
        await conn.execute(statement, *([entries] if "$1" in statement else []), timeout=600)
    await conn.execute(
        "VACUUM (ANALYZE) players, games, leaderboard_entries, board_bins", timeout=600
    )


async def timed(action: Callable[[], Awaitable[object]], repeats: int) -> list[float]:
    for _ in range(min(20, repeats)):  # warm-up: pool, prepared statements, caches
        await action()
    seconds = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        await action()
        seconds.append(time.perf_counter() - t0)
    return seconds


async def main() -> None:
    from service.base.backend import Backend, GameCache
    from service.boards import board as leaderboards
    from service.boards import times
    from service.boards.cursors import board_cursor, board_key
    from service.database.connections import create_pool
    from service.database.store import EventStore
    from service.players import stats
    from service.players.accounts import Player

    url = await fresh_database(database_url(), "bench_leaderboards")
    pool = await create_pool(url, 1, 2)
    try:
        async with pool.acquire() as conn:
            t0 = time.perf_counter()
            await seed(conn, ENTRIES)
            print(f"seeded {ENTRIES} entries on {VARIANT} deal {DEAL} in "
                  f"{time.perf_counter() - t0:.1f} s")
            keys = await conn.fetch(
                "SELECT elapsed_ms, moves, finished_at, player_id FROM leaderboard_entries"
                " WHERE variant = $1 AND deal = $2"
                " ORDER BY elapsed_ms, moves, finished_at, player_id",
                VARIANT, DEAL,
            )
        deep = tuple(keys[int(len(keys) * 0.9)])
        middle = keys[len(keys) // 2]["player_id"]
        ids = [r["player_id"] for r in random.sample(list(keys), min(1000, len(keys)))]
        backend = Backend(store=EventStore(pool), games=GameCache(10))
        signer = board_key(backend.cursor_key, VARIANT, DEAL, "default")
        cursor = board_cursor(deep, int(len(keys) * 0.9) + 1, signer)  # type: ignore[arg-type]
        me = Player(middle, "?")
        picks = iter(ids * (REPEATS // len(ids) + 2))

        async def pk_read() -> object:
            pid: uuid.UUID = next(picks)
            async with backend.store.connection() as conn:
                return await conn.fetchrow("SELECT id, name FROM players WHERE id = $1", pid)

        cases: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("primary-key read", pk_read),
            ("page 1 (20)", lambda: leaderboards.board(backend, VARIANT, DEAL, 20)),
            ("deep page by cursor (at 90 %)",
             lambda: leaderboards.board(backend, VARIANT, DEAL, 20, cursor)),
            ("around=me (rank 50 %)",
             lambda: leaderboards.board_around(backend, VARIANT, DEAL, me)),
            ("winning times in bins", lambda: times.winning_times(backend, VARIANT, DEAL)),
            ("a player's stats", lambda: stats.player_stats(backend, str(middle))),
        ]
        results = {name: await timed(action, REPEATS) for name, action in cases}
        floor = percentile(results["primary-key read"], 0.5)
        print(f"{REPEATS} reads each; median and p99 in ms; ratio = median / primary-key median")
        for name, seconds in results.items():
            p50, p99 = percentile(seconds, 0.5), percentile(seconds, 0.99)
            print(f"  {name:32} p50 {p50 * 1e3:7.3f}  p99 {p99 * 1e3:7.3f}  "
                  f"ratio {p50 / floor:6.1f}")
    finally:
        await pool.close()


if __name__ == "__main__":
    asyncio.run(main())
