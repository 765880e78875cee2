"""Migration 0010 (a hint that found nothing does not make the game assisted) on games
recorded before it: `games.assisted` from their logs, a win whose hints all found nothing
onto the boards without hints, and back again on the way down."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from alembic import command

from service.database.migrate import alembic_config

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
MOVE = {"from": "t1", "to": "c1", "count": 1}


async def won_before_0010(conn: asyncpg.Connection, player: uuid.UUID, hint: dict[str, Any] | None,
                          seconds: int) -> uuid.UUID:
    """A won game of FreeCell deal 1 as a service before 0010 left it: its log (a hint
    first, when given, then two moves a second apart, a hand's pace), its projection,
    and its entries by record_win with the rule of then (hinted: assisted)."""
    gid = uuid.uuid4()
    finished = T0 + timedelta(seconds=seconds)
    log = [("GameCreated", {"variant": "freecell", "deal": 1, "autoplay": False}, T0)]
    if hint is not None:
        log.append(("HintGiven", hint, T0))
    log += [("CardMoved", {**MOVE, "card": "JD", "auto": False}, T0 + timedelta(seconds=1)),
            ("CardMoved", {**MOVE, "card": "KD", "auto": False}, finished),
            ("GameWon", {}, finished)]  # fmt: skip
    for seq, (kind, data, at) in enumerate(log, 1):
        await conn.execute(
            "INSERT INTO game_events (game_id, seq, type, data, at) VALUES ($1, $2, $3, $4, $5)",
            gid, seq, kind, json.dumps(data), at,
        )
    hints = 0 if hint is None else 1
    await conn.execute(
        "INSERT INTO games (id, player_id, variant, deal, autoplay, status, version, moves,"
        " undos, hints, foundation_cards, created_at, updated_at, finished_at, elapsed_ms)"
        " VALUES ($1, $2, 'freecell', 1, false, 'won', $3, 2, 0, $4, 52, $5, $6, $6, $7)",
        gid, player, len(log), hints, T0, finished, seconds * 1000,
    )
    await conn.execute(
        "SELECT record_win($1, $2, 'freecell', 1, $3, 2, 0, $4, 200, $5)",
        gid, player, seconds * 1000, hints > 0, finished,
    )
    return gid


async def entries(conn: asyncpg.Connection) -> set[tuple[str, str, bool]]:
    rows = await conn.fetch("SELECT board, game_id, assisted FROM leaderboard_entries")
    return {(r["board"], str(r["game_id"]), r["assisted"]) for r in rows}


async def test_0010_takes_wins_with_hints_that_found_nothing_off_the_assisted_boards(
    db_url: str,
) -> None:
    config = alembic_config(db_url)
    await asyncio.to_thread(command.downgrade, config, "0009")
    conn = await asyncpg.connect(db_url)
    try:
        ada, bob = uuid.uuid4(), uuid.uuid4()
        for pid, name in ((ada, "ada"), (bob, "bob")):
            await conn.execute(
                "INSERT INTO players (id, name, token_hash) VALUES ($1, $2, $3)",
                pid, name, pid.bytes,
            )
        slow = await won_before_0010(conn, ada, None, 90)  # ada's win without a hint
        found_nothing = await won_before_0010(
            conn, ada, {"verdict": "unknown", "move": None, "moves_to_win": None}, 60
        )
        moved = await won_before_0010(
            conn, bob, {"verdict": "winnable", "move": MOVE, "moves_to_win": 2}, 30
        )
        every = ("assisted", "assisted_no_undo")
        before = {(b, str(slow), False) for b in ("default", "no_undo")} | {
            (b, str(moved), True) for b in every} | {(b, str(found_nothing), True) for b in every}
        assert await entries(conn) == before

        await asyncio.to_thread(command.upgrade, config, "head")
        flags = await conn.fetch("SELECT id, hints, assisted FROM games ORDER BY elapsed_ms")
        assert [(r["id"], r["hints"], r["assisted"]) for r in flags] == [
            (moved, 1, True), (found_nothing, 1, False), (slow, 0, False)
        ]
        # ada's faster win had only a hint that found nothing: her best on every board
        assert await entries(conn) == {
            (b, str(found_nothing), False) for b in ("default", "no_undo", *every)
        } | {(b, str(moved), True) for b in every}

        await asyncio.to_thread(command.downgrade, config, "0009")
        assert await entries(conn) == before
    finally:
        await conn.close()
    await asyncio.to_thread(command.upgrade, config, "head")
