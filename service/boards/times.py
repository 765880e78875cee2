"""A deal's winning times in bins, and how a won game stands among the others (API.md,
"Grades, standings and a player's story").

Read from the board's bins of time (`board_bins`, 10 s of elapsed_ms each, kept by a
trigger in the winning move's transaction: migration 0011), merged into at most
MAX_BINS bins of equal width: one query, whatever the number of winners. A game's
standing is its entry's rank on the default board and the board's count of winners, by
the same bins: one query too.
"""

from __future__ import annotations

from typing import Any, Final

from service.base.backend import Backend
from service.boards.board import BIN_MS, ahead_of
from service.deals.numbers import checked_deal

MAX_BINS: Final = 30

BINS = """
SELECT bin, entries FROM board_bins
WHERE variant = $1 AND deal = $2 AND board = $3 AND entries > 0
ORDER BY bin
"""


# $1 variant, $2 deal, $3 the game's player, $4 the board, $5 the game
STANDING = f"""
SELECT 1 + {ahead_of("m")} AS rank,
       (SELECT sum(b.entries) FROM board_bins b
        WHERE b.variant = $1 AND b.deal = $2 AND b.board = $4) AS "of"
FROM leaderboard_entries m
WHERE m.variant = $1 AND m.deal = $2 AND m.board = $4 AND m.player_id = $3 AND m.game_id = $5
"""


async def standing(
    backend: Backend, variant: str, deal: int, player_id: Any, game_id: Any
) -> dict[str, int] | None:
    """{"rank", "of"}: where a won game stands on its deal's default board, and of how
    many winners; None when the game is not the entry of its player there (a win with
    hints, or not the player's best)."""
    async with backend.store.connection() as conn:
        row = await conn.fetchrow(
            STANDING, variant, deal, player_id, "default", game_id, timeout=backend.store.timeout
        )
    return None if row is None else {"rank": int(row["rank"]), "of": int(row["of"])}


async def winning_times(
    backend: Backend, variant: str, deal: int, kind: str = "default"
) -> dict[str, Any]:
    """{"winners", "bins": [{"from_ms", "to_ms", "count"}, ...]}: the board's winners by
    their time, in at most MAX_BINS bins, each `from_ms` inclusive and `to_ms` exclusive,
    from the fastest's bin to the slowest's (empty bins between included)."""
    variant = checked_deal(variant, deal)
    async with backend.store.connection() as conn:
        rows = await conn.fetch(BINS, variant, deal, kind, timeout=backend.store.timeout)
    if not rows:
        return {"variant": variant, "deal": deal, "winners": 0, "bins": []}
    first, last = rows[0]["bin"], rows[-1]["bin"]
    per = -(-(last - first + 1) // MAX_BINS)  # of the stored bins, in each shown one
    counts = [0] * ((last - first) // per + 1)
    for row in rows:
        counts[(row["bin"] - first) // per] += row["entries"]
    width = per * BIN_MS
    bins = [
        {"from_ms": first * BIN_MS + i * width, "to_ms": first * BIN_MS + (i + 1) * width,
         "count": count}
        for i, count in enumerate(counts)
    ]  # fmt: skip
    return {"variant": variant, "deal": deal, "winners": sum(counts), "bins": bins}
