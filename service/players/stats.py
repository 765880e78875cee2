"""A player's story (API.md, "Grades, standings and a player's story"): per game played,
their figures, streaks, best and median times, and their last 100 finished games.

The figures are kept as the player plays (player_stats and player_time_bins, by a
trigger on games in the transaction of each game's creation and change of status:
migration 0013; the streaks, by the rule the record shares, counted again from the games
when a blocked game is revived or abandoned: migration 0015), so a read counts no games:
one statement, in which the median's second
is found from the bins and the median itself read off the index of won games by time
within that second (the mean of the two middle times for an even count). The best time is
the record's (service/boards/records.py): the best of the player's entries on the default
boards, wins without a hint at a person's pace, never a hinted or a machine-paced one.
`won` and `win_rate` count wins without a hint, `won_assisted` the others, as the record
does (player_stats.won counts both: the median is of every winning time).
"""

from __future__ import annotations

from typing import Any, Final

from service.base.backend import Backend
from service.base.errors import NotFound
from service.base.requests import parse_id

RECENT: Final = 100
# the width of a player's bins of winning times, in elapsed_ms (player_time_bins, as the
# trigger of migrations/sql/0013_player_stats.sql and 0015_streaks.sql fills them)
PLAYER_BIN_MS: Final = 1000

STATS = f"""
WITH s AS (
    SELECT variant, played, won, won_assisted, streak, best_streak
    FROM player_stats WHERE player_id = $1
), b AS (
    SELECT variant, bin, wins,
           sum(wins) OVER (PARTITION BY variant ORDER BY bin) - wins AS before
    FROM player_time_bins WHERE player_id = $1
), places AS (
    SELECT s.variant, p.place
    FROM s CROSS JOIN LATERAL (VALUES ((s.won - 1) / 2), (s.won / 2)) AS p(place)
    WHERE s.won > 0
), mids AS (
    SELECT pl.variant, (
        SELECT g.elapsed_ms FROM games g
        WHERE g.player_id = $1 AND g.variant = pl.variant AND g.status = 'won'
          AND g.elapsed_ms >= bb.bin * {PLAYER_BIN_MS}
          AND g.elapsed_ms < (bb.bin + 1) * {PLAYER_BIN_MS}
        ORDER BY g.elapsed_ms OFFSET pl.place - bb.before LIMIT 1
    ) AS t
    FROM places pl JOIN b bb ON bb.variant = pl.variant
        AND pl.place >= bb.before AND pl.place < bb.before + bb.wins
)
SELECT
    (SELECT name FROM players WHERE id = $1) AS name,
    (SELECT coalesce(jsonb_object_agg(s.variant, jsonb_build_object(
         'played', s.played, 'won', s.won - s.won_assisted, 'won_assisted', s.won_assisted,
         'win_rate', CASE WHEN s.played > 0
                          THEN round((s.won - s.won_assisted)::numeric / s.played, 4)
                          ELSE 0 END,
         'streak', s.streak, 'best_streak', s.best_streak,
         'best_ms', (SELECT min(e.elapsed_ms) FROM leaderboard_entries e
                     WHERE e.player_id = $1 AND e.board = 'default'
                       AND e.variant = s.variant),
         'median_ms', (SELECT floor(avg(m.t))::bigint FROM mids m
                       WHERE m.variant = s.variant))), '{{}}'::jsonb)
     FROM s) AS games,
    (SELECT coalesce(jsonb_agg(jsonb_build_object(
         'game_id', g.id, 'variant', g.variant, 'deal', g.deal, 'status', g.status,
         'elapsed_ms', g.elapsed_ms,
         'finished_at', to_char(g.finished_at AT TIME ZONE 'UTC',
                                'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'))
         ORDER BY g.finished_at DESC, g.id), '[]'::jsonb)
     FROM (SELECT id, variant, deal, status, elapsed_ms, finished_at FROM games
           WHERE player_id = $1 AND finished_at IS NOT NULL
           ORDER BY finished_at DESC, id LIMIT {RECENT}) AS g) AS recent
"""


async def player_stats(backend: Backend, player_id: str) -> dict[str, Any]:
    """{"player": {"id", "name"}, "games": {variant: {...}}, "recent": [...]}."""
    pid = parse_id(player_id, "player")
    async with backend.store.connection() as conn:
        row = await conn.fetchrow(STATS, pid, timeout=backend.store.timeout)
    if row is None or row["name"] is None:
        raise NotFound(f"there is no player with id {player_id}")
    return {"player": {"id": pid, "name": row["name"]}, "games": row["games"],
            "recent": row["recent"]}  # fmt: skip
