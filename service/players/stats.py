"""A player's story (API.md, "Grades, standings and a player's story"): per game played,
their figures, streaks, best and median times, and their last 100 finished games.

The figures are kept as the player plays (player_stats and player_time_bins, by a
trigger on games in the transaction of each game's creation and change of status:
migration 0013), so a read costs a few index lookups whatever the number of games: the
median's second from the bins, then the median itself off the index of won games by time
within that second.
"""

from __future__ import annotations

import uuid
from typing import Any, Final

from service.base.backend import Backend
from service.base.errors import NotFound
from service.players.accounts import plain_uuid

RECENT: Final = 100

STATS = """
SELECT s.variant, s.played, s.won, s.won_assisted, s.streak, s.best_streak, s.best_ms,
       (SELECT array_agg(b.bin ORDER BY b.bin) FROM player_time_bins b
        WHERE b.player_id = s.player_id AND b.variant = s.variant) AS bins,
       (SELECT array_agg(b.wins ORDER BY b.bin) FROM player_time_bins b
        WHERE b.player_id = s.player_id AND b.variant = s.variant) AS wins
FROM player_stats s WHERE s.player_id = $1 ORDER BY s.variant
"""
NTH_TIME = """
SELECT elapsed_ms FROM games
WHERE player_id = $1 AND variant = $2 AND status = 'won'
  AND elapsed_ms >= $3 * 1000 AND elapsed_ms < ($3 + 1) * 1000
ORDER BY elapsed_ms OFFSET $4 LIMIT 1
"""
RECENT_GAMES = f"""
SELECT id, variant, deal, status, elapsed_ms, finished_at FROM games
WHERE player_id = $1 AND finished_at IS NOT NULL
ORDER BY finished_at DESC LIMIT {RECENT}
"""


async def player_stats(backend: Backend, player_id: str) -> dict[str, Any]:
    """{"player": {"id", "name"}, "games": {variant: {...}}, "recent": [...]}."""
    try:
        pid = uuid.UUID(player_id)
    except ValueError:
        raise NotFound(f"there is no player with id {player_id!r}") from None
    timeout = backend.store.timeout
    async with backend.store.connection() as conn:
        name = await conn.fetchval("SELECT name FROM players WHERE id = $1", pid,
                                   timeout=timeout)  # fmt: skip
        if name is None:
            raise NotFound(f"there is no player with id {player_id}")
        rows = await conn.fetch(STATS, pid, timeout=timeout)
        games = {}
        for row in rows:
            median = await _median(conn, pid, row, timeout)
            games[row["variant"]] = {
                "played": row["played"], "won": row["won"],
                "won_assisted": row["won_assisted"],
                "win_rate": round(row["won"] / row["played"], 4) if row["played"] else 0.0,
                "streak": row["streak"], "best_streak": row["best_streak"],
                "best_ms": row["best_ms"], "median_ms": median,
            }  # fmt: skip
        recent = await conn.fetch(RECENT_GAMES, pid, timeout=timeout)
    return {
        "player": {"id": pid, "name": name},
        "games": games,
        "recent": [
            {"game_id": plain_uuid(r["id"]), "variant": r["variant"], "deal": r["deal"],
             "status": r["status"], "elapsed_ms": r["elapsed_ms"],
             "finished_at": r["finished_at"]}
            for r in recent
        ],
    }


async def _median(conn: Any, pid: uuid.UUID, row: Any, timeout: float) -> int | None:
    """The median winning time (the mean of the two middle ones for an even count)."""
    bins, wins = row["bins"] or [], row["wins"] or []
    total = sum(wins)
    if not total:
        return None
    middle = [(total - 1) // 2, total // 2]  # the places of the middle time(s), from 0
    values: list[int] = []
    for place in middle:
        seen = 0
        for b, n in zip(bins, wins, strict=True):
            if place < seen + n:
                values.append(await conn.fetchval(
                    NTH_TIME, pid, row["variant"], b, place - seen, timeout=timeout))  # fmt: skip
                break
            seen += n
    return sum(values) // len(values) if values else None
