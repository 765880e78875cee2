"""Leaderboards and players' records: reads on plain values against the backend.

The board of a deal is the table `leaderboard_entries`, one row per player, written by
record_events in the transaction of the winning move (so only wins the server saw count,
timed by the server's clock). Its order is (elapsed_ms, moves, finished_at, player_id):
fastest first, then fewer moves, then the earlier finish, and the player id makes the
order total. Pages go by keyset (the cursor is the last entry's sort key and rank) so
they neither repeat nor skip entries while new wins arrive, and a deep page costs what the
first does. Ranks on a page read by cursor continue from the previous page's (wins that
arrived ahead of the cursor meanwhile are not counted); around=me counts the caller's
rank afresh: 1 + the entries before it, counted on the index `leaderboard_entries_board`.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from engine import find_variant
from service.base.backend import Backend
from service.base.errors import BadRequest, NotFound
from service.deals.numbers import check_deal_number
from service.players.accounts import Player

AROUND = 5  # entries shown above and below the caller's own with around=me
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)

BoardKey = tuple[int, int, datetime, uuid.UUID]  # elapsed_ms, moves, finished_at, player_id

_ENTRY = (
    "e.player_id, p.name, e.game_id, e.elapsed_ms, e.moves, e.undos, e.finished_at,"
    " e.assisted, e.verified"
)
_KEY = "(e.elapsed_ms, e.moves, e.finished_at, e.player_id)"
_ORDER = "e.elapsed_ms, e.moves, e.finished_at, e.player_id"


BOARD_FIRST = f"""
SELECT {_ENTRY}
FROM leaderboard_entries e JOIN players p ON p.id = e.player_id
WHERE e.variant = $1 AND e.deal = $2 AND e.board = $4
ORDER BY {_ORDER}
LIMIT $3
"""

BOARD_AFTER = f"""
SELECT {_ENTRY}
FROM leaderboard_entries e JOIN players p ON p.id = e.player_id
WHERE e.variant = $1 AND e.deal = $2 AND e.board = $8 AND {_KEY} > ($4, $5, $6, $7)
ORDER BY {_ORDER}
LIMIT $3
"""

MY_ENTRY = f"""
SELECT {_ENTRY}
FROM leaderboard_entries e JOIN players p ON p.id = e.player_id
WHERE e.variant = $1 AND e.deal = $2 AND e.player_id = $3 AND e.board = $4
"""

# The count of entries ahead of the key $3..$6, in board order: so the plan is an
# index-only scan of the board's index up to the key (O(rank)). Without the ORDER BY,
# PostgreSQL takes a sequential scan of the whole table for a deep key (cheaper by its
# estimate, slower in fact).
RANK_BEFORE = f"""
SELECT count(*) FROM (
    SELECT 1 FROM leaderboard_entries e
    WHERE e.variant = $1 AND e.deal = $2 AND e.board = $7 AND {_KEY} < ($3, $4, $5, $6)
    ORDER BY {_ORDER}
) AS ahead
"""

ABOVE = f"""
SELECT {_ENTRY}
FROM leaderboard_entries e JOIN players p ON p.id = e.player_id
WHERE e.variant = $1 AND e.deal = $2 AND e.board = $8 AND {_KEY} < ($4, $5, $6, $7)
ORDER BY e.elapsed_ms DESC, e.moves DESC, e.finished_at DESC, e.player_id DESC
LIMIT $3
"""

BELOW = BOARD_AFTER

PLAYER = "SELECT id, name, created_at FROM players WHERE id = $1"

PLAYER_COUNTS = """
SELECT count(*) AS played,
       count(*) FILTER (WHERE status = 'won' AND hints = 0) AS won,
       count(*) FILTER (WHERE status = 'won' AND hints > 0) AS won_assisted,
       count(*) FILTER (WHERE status = 'abandoned') AS abandoned,
       count(*) FILTER (WHERE status = 'blocked') AS blocked,
       count(*) FILTER (WHERE status = 'playing') AS playing
FROM games WHERE player_id = $1
"""

# Finished games (won, abandoned, blocked) in order of finish; a run of wins is the wins
# between two games that were not won (`losses` counts those so far: one run per value).
PLAYER_STREAKS = """
WITH finished AS (
    SELECT status,
           count(*) FILTER (WHERE status <> 'won')
               OVER (ORDER BY finished_at, id) AS losses
    FROM games
    WHERE player_id = $1 AND status IN ('won', 'abandoned', 'blocked')
), runs AS (
    SELECT losses, count(*) FILTER (WHERE status = 'won') AS wins
    FROM finished GROUP BY losses
)
SELECT coalesce(max(wins), 0) AS longest,
       coalesce((SELECT wins FROM runs ORDER BY losses DESC LIMIT 1), 0) AS current
FROM runs
"""

PLAYER_ENTRIES = """
SELECT variant, deal, game_id, elapsed_ms, moves, undos, finished_at
FROM leaderboard_entries WHERE player_id = $1 AND board = 'default'
ORDER BY variant, deal
"""

_GAME = (
    "id, variant, deal, autoplay, status, version, moves, undos, foundation_cards,"
    " created_at, finished_at, elapsed_ms"
)

GAMES_FIRST = f"""
SELECT {_GAME} FROM games WHERE player_id = $1
ORDER BY created_at DESC, id DESC LIMIT $2
"""

GAMES_AFTER = f"""
SELECT {_GAME} FROM games WHERE player_id = $1 AND (created_at, id) < ($3, $4)
ORDER BY created_at DESC, id DESC LIMIT $2
"""


# ---------------------------------------------------------------- cursors


def _micros(at: datetime) -> int:
    return (at - EPOCH) // MICROSECOND


def _from_micros(value: int) -> datetime:
    return EPOCH + value * MICROSECOND


def _encode(kind: str, *parts: object) -> str:
    text = ":".join([kind, *map(str, parts)])
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _decode(kind: str, cursor: str, n: int) -> list[str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        parts = base64.urlsafe_b64decode(padded.encode("ascii")).decode().split(":")
    except (ValueError, UnicodeError, binascii.Error):
        parts = []
    if len(parts) != n + 1 or parts[0] != kind:
        raise BadRequest(
            "this cursor was not given by this list; pass the 'next' of the previous page"
            " unchanged, or leave 'cursor' out for the first page"
        )
    return parts[1:]


def board_cursor(key: BoardKey, rank: int) -> str:
    """The cursor after the entry with this sort key and rank."""
    elapsed, moves, finished_at, player_id = key
    return _encode("b1", elapsed, moves, _micros(finished_at), player_id.hex, rank)


def parse_board_cursor(cursor: str) -> tuple[BoardKey, int]:
    elapsed, moves, finished, player, rank = _decode("b1", cursor, 5)
    try:
        key = int(elapsed), int(moves), _from_micros(int(finished)), uuid.UUID(hex=player)
        if not (0 <= key[0] < 2**63 and 0 <= key[1] < 2**31 and 0 <= int(rank) < 2**63):
            raise ValueError(cursor)
        return key, int(rank)
    except (ValueError, OverflowError):
        raise BadRequest("this cursor is damaged; leave 'cursor' out for the first page") from None


def games_cursor(created_at: datetime, game_id: uuid.UUID) -> str:
    return _encode("g1", _micros(created_at), game_id.hex)


def parse_games_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    created, game = _decode("g1", cursor, 2)
    try:
        return _from_micros(int(created)), uuid.UUID(hex=game)
    except (ValueError, OverflowError):
        raise BadRequest("this cursor is damaged; leave 'cursor' out for the first page") from None


# ---------------------------------------------------------------- boards


def check_board(variant: str, deal: int) -> str:
    """The variant's id; UnknownVariant (400) or Unprocessable (422) for a bad deal."""
    name = find_variant(variant).name
    check_deal_number(deal)
    return name


def _uuid(value: uuid.UUID) -> uuid.UUID:
    """A plain uuid.UUID for asyncpg's own UUID type (which orjson does not serialise)."""
    return uuid.UUID(int=value.int)


def _key(row: asyncpg.Record) -> BoardKey:
    return row["elapsed_ms"], row["moves"], row["finished_at"], row["player_id"]


def _entry(row: asyncpg.Record, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": {"id": _uuid(row["player_id"]), "name": row["name"]},
        "elapsed_ms": row["elapsed_ms"],
        "moves": row["moves"],
        "undos": row["undos"],
        "assisted": row["assisted"],
        "verified": row["verified"],
        "game_id": _uuid(row["game_id"]),
        "finished_at": row["finished_at"],
    }


def _page(rows: Sequence[asyncpg.Record], first_rank: int, limit: int) -> dict[str, Any]:
    shown = rows[:limit]
    entries = [_entry(row, first_rank + i) for i, row in enumerate(shown)]
    more = len(rows) > limit
    last = board_cursor(_key(shown[-1]), first_rank + len(shown) - 1) if more else None
    return {"entries": entries, "next": last}


def board_name(assisted: bool = False, no_undo: bool = False) -> str:
    """Which of a deal's boards (migrations/sql/0004_boards.sql, win_boards): by default
    wins with no hint at a hand's pace; `assisted` lists every win; `no_undo` only wins
    with no undo."""
    name = "assisted" if assisted else "default"
    if no_undo:
        return "no_undo" if name == "default" else "assisted_no_undo"
    return name


async def board(
    backend: Backend,
    variant: str,
    deal: int,
    limit: int = 20,
    cursor: str | None = None,
    kind: str = "default",
) -> dict[str, Any]:
    """One page of the deal's board `kind` (board_name), fastest first; `next` continues
    after its last entry."""
    variant = check_board(variant, deal)
    timeout = backend.store.timeout
    if cursor:
        after, rank = parse_board_cursor(cursor)
        async with backend.store.connection() as conn:
            rows = await conn.fetch(
                BOARD_AFTER, variant, deal, limit + 1, *after, kind, timeout=timeout
            )
    else:
        rank = 0
        async with backend.store.connection() as conn:
            rows = await conn.fetch(BOARD_FIRST, variant, deal, limit + 1, kind, timeout=timeout)
    first_rank = rank + 1
    return {"variant": variant, "deal": deal, "board": kind, **_page(rows, first_rank, limit)}


async def board_around(
    backend: Backend,
    variant: str,
    deal: int,
    player: Player,
    around: int = AROUND,
    kind: str = "default",
) -> dict[str, Any]:
    """The caller's entry with `around` entries above and below it, and its rank."""
    variant = check_board(variant, deal)
    timeout = backend.store.timeout
    async with (
        backend.store.connection() as conn,
        conn.transaction(isolation="repeatable_read", readonly=True),
    ):
        mine = await conn.fetchrow(MY_ENTRY, variant, deal, player.id, kind, timeout=timeout)
        if mine is None:
            raise NotFound(
                f"{player.name} has no entry on this board: only games won on deal {deal}"
                f" of {variant} count; win one first"
            )
        key = _key(mine)
        before: int = await conn.fetchval(
            RANK_BEFORE, variant, deal, *key, kind, timeout=timeout
        )
        above = await conn.fetch(ABOVE, variant, deal, around, *key, kind, timeout=timeout)
        below = await conn.fetch(BELOW, variant, deal, around + 1, *key, kind, timeout=timeout)
    rank = before + 1
    rows = [*reversed(above), mine, *below]
    page = _page(rows, rank - len(above), len(above) + 1 + around)
    return {
        "variant": variant, "deal": deal, "board": kind, **page, "rank": rank,
        "me": _entry(mine, rank),
    }


# ---------------------------------------------------------------- players


def _player_id(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise NotFound(f"there is no player with id {raw!r}") from None


async def player_record(backend: Backend, player_id: str | uuid.UUID) -> dict[str, Any]:
    """A player's counts, win rate, streaks, best time per variant and deals won."""
    pid = player_id if isinstance(player_id, uuid.UUID) else _player_id(player_id)
    timeout = backend.store.timeout
    async with (
        backend.store.connection() as conn,
        conn.transaction(isolation="repeatable_read", readonly=True),
    ):
        who = await conn.fetchrow(PLAYER, pid, timeout=timeout)
        if who is None:
            raise NotFound(f"there is no player with id {pid}")
        counts = await conn.fetchrow(PLAYER_COUNTS, pid, timeout=timeout)
        streaks = await conn.fetchrow(PLAYER_STREAKS, pid, timeout=timeout)
        entries = await conn.fetch(PLAYER_ENTRIES, pid, timeout=timeout)
    assert counts is not None and streaks is not None
    best: dict[str, asyncpg.Record] = {}
    won_deals: dict[str, list[int]] = {}
    for row in entries:  # ordered by variant, deal
        won_deals.setdefault(row["variant"], []).append(row["deal"])
        held = best.get(row["variant"])
        order = (row["elapsed_ms"], row["moves"], row["finished_at"])
        if held is None or order < (held["elapsed_ms"], held["moves"], held["finished_at"]):
            best[row["variant"]] = row
    played = counts["played"]
    return {
        "id": _uuid(who["id"]),
        "name": who["name"],
        "created_at": who["created_at"],
        "games_played": played,
        "won": counts["won"],
        "won_assisted": counts["won_assisted"],
        "abandoned": counts["abandoned"],
        "blocked": counts["blocked"],
        "playing": counts["playing"],
        "win_rate": counts["won"] / played if played else 0.0,
        "current_streak": streaks["current"],
        "longest_streak": streaks["longest"],
        "best_times": {
            variant: {
                "elapsed_ms": row["elapsed_ms"],
                "moves": row["moves"],
                "undos": row["undos"],
                "deal": row["deal"],
                "game_id": _uuid(row["game_id"]),
                "finished_at": row["finished_at"],
            }
            for variant, row in best.items()
        },
        "won_deals": won_deals,
    }


def _game_summary(row: asyncpg.Record) -> dict[str, Any]:
    summary = dict(row.items())
    summary["id"] = _uuid(row["id"])
    return summary


async def player_games(
    backend: Backend, player_id: str | uuid.UUID, limit: int = 20, cursor: str | None = None
) -> dict[str, Any]:
    """The player's games, newest first, one page; `next` continues after its last game."""
    pid = player_id if isinstance(player_id, uuid.UUID) else _player_id(player_id)
    after = parse_games_cursor(cursor) if cursor else None
    timeout = backend.store.timeout
    async with backend.store.connection() as conn:
        if after is None:
            rows = await conn.fetch(GAMES_FIRST, pid, limit + 1, timeout=timeout)
        else:
            rows = await conn.fetch(GAMES_AFTER, pid, limit + 1, *after, timeout=timeout)
        if not rows and await conn.fetchrow(PLAYER, pid, timeout=timeout) is None:
            raise NotFound(f"there is no player with id {pid}")
    shown = rows[:limit]
    more = len(rows) > limit
    last = shown[-1] if shown else None
    return {
        "games": [_game_summary(row) for row in shown],
        "next": games_cursor(last["created_at"], last["id"]) if more and last else None,
    }
