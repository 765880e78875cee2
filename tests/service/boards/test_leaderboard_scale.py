"""A big board on one deal (30,000 entries: the plans are those of 100,000, which `make
bench` times) is still read through its indexes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import asyncpg

from bench.inprocess.leaderboard_bench import seed
from service.base.backend import Backend, GameCache
from service.boards import board as leaderboards
from service.boards import cursors, records
from service.database.connections import create_pool
from service.database.store import EventStore
from service.players.accounts import Player

ENTRIES = 30_000
DEEP = ENTRIES * 6 // 10  # a place deep in the board


def nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", ()):
        yield from nodes(child)


def literal(value: Any) -> str:
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


async def plan_of(conn: asyncpg.Connection, sql: str, *args: Any) -> list[dict[str, Any]]:
    """The plan's nodes as PostgreSQL runs the prepared statement with these values, both
    as a custom plan and as the generic plan (what a long-lived prepared statement uses)."""
    found = []
    await conn.execute(f"PREPARE board_query AS {sql}")
    try:
        for mode in ("force_custom_plan", "force_generic_plan"):
            await conn.execute(f"SET plan_cache_mode = {mode}")
            raw = await conn.fetchval(
                "EXPLAIN (FORMAT JSON) EXECUTE board_query("
                + ", ".join(map(literal, args)) + ")"
            )
            plan = json.loads(raw) if isinstance(raw, str) else raw
            found.extend(nodes(plan[0]["Plan"]))
    finally:
        await conn.execute("RESET plan_cache_mode")
        await conn.execute("DEALLOCATE board_query")
    return found


def board_scans(plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [n for n in plan if n.get("Relation Name") == "leaderboard_entries"]


def assert_indexed(plan: list[dict[str, Any]], *indexes: str) -> None:
    scans = board_scans(plan)
    assert scans, plan
    for scan in scans:
        assert scan["Node Type"] in ("Index Scan", "Index Only Scan"), scan
        assert scan["Index Name"] in indexes, scan
    assert not [n for n in plan if n["Node Type"] == "Sort"], "the board is sorted, not read"


async def test_pages_and_ranks_of_a_big_board_use_the_index(db_url: str) -> None:
    pool = await create_pool(db_url, 1, 2)
    try:
        backend = Backend(store=EventStore(pool), games=GameCache(10))
        async with pool.acquire() as conn:
            await seed(conn, ENTRIES)
            assert await conn.fetchval("SELECT count(*) FROM leaderboard_entries") == ENTRIES
            page1 = await leaderboards.board(backend, "freecell", 617, limit=20)
            assert [e["rank"] for e in page1["entries"]] == list(range(1, 21))
            # a deep page: the cursor of the entry at place DEEP
            deep_row = await conn.fetchrow(
                "SELECT elapsed_ms, moves, finished_at, player_id FROM leaderboard_entries"
                " ORDER BY elapsed_ms, moves, finished_at, player_id OFFSET $1 LIMIT 1",
                DEEP - 1,
            )
            deep_key = tuple(deep_row)
            key = cursors.board_key(backend.cursor_key, "freecell", 617, "default")
            cursor = cursors.board_cursor(deep_key, DEEP, key)  # type: ignore[arg-type]
            deep = await leaderboards.board(backend, "freecell", 617, limit=20, cursor=cursor)
            assert deep["entries"][0]["rank"] == DEEP + 1
            keys = [(e["elapsed_ms"], e["moves"], e["finished_at"], e["player"]["id"])
                    for e in deep["entries"]]
            assert keys == sorted(keys) and keys[0] > deep_key
            me = Player(deep_row["player_id"], "?")
            around = await leaderboards.board_around(backend, "freecell", 617, me)
            assert around["rank"] == DEEP and len(around["entries"]) == 11

            args = ("freecell", 617)
            first = await plan_of(conn, leaderboards.BOARD_FIRST, *args, 21, "default")
            assert_indexed(first, "leaderboard_entries_board")
            after = await plan_of(
                conn, leaderboards.BOARD_AFTER, *args, 21, *deep_key, "default"
            )
            assert_indexed(after, "leaderboard_entries_board")
            # around=me: the entry by its key, its neighbours and the count ahead within
            # its bin by the board's index (the count an index-only scan); the bins before
            # it are read from board_bins (a hundred rows here)
            plan = await plan_of(
                conn, leaderboards.AROUND_ME, *args, deep_row["player_id"], "default"
            )
            assert_indexed(plan, "leaderboard_entries_board", "leaderboard_entries_pkey",
                           "leaderboard_entries_player")  # fmt: skip
            assert "Index Only Scan" in {n["Node Type"] for n in board_scans(plan)}
            assert [n for n in plan if n.get("Relation Name") == "board_bins"]
            player = await plan_of(conn, records.PLAYER_ENTRIES, deep_row["player_id"])
            assert_indexed(player, "leaderboard_entries_player")
    finally:
        await pool.close()
