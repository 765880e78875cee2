"""The counts kept beside the projection, against what they count: each board's bins of
time (board_bins, migration 0011) against its entries, and each player's figures
(player_stats and player_time_bins, migration 0013) against their games. Both are
written by triggers in the transactions that change what they count, so any difference
is a bug or damage. (The streaks depend on the order games ended in, which the games'
table keeps: they are checked by the tests, not here.)"""

from __future__ import annotations

import asyncpg

from service.boards.board import BIN_MS
from service.players.stats import PLAYER_BIN_MS
from service.verify.report import Differ

BOARD_BINS = f"""
SELECT coalesce(e.variant, b.variant) AS variant, coalesce(e.deal, b.deal) AS deal,
       coalesce(e.board, b.board) AS board, coalesce(e.bin, b.bin) AS bin,
       coalesce(e.n, 0) AS counted, coalesce(b.entries, 0) AS kept
FROM (SELECT variant, deal, board, elapsed_ms / {BIN_MS} AS bin, count(*) AS n
      FROM leaderboard_entries GROUP BY 1, 2, 3, 4) AS e
FULL JOIN board_bins b USING (variant, deal, board, bin)
WHERE coalesce(e.n, 0) <> coalesce(b.entries, 0)
"""

PLAYER_STATS = """
SELECT coalesce(g.player_id, s.player_id) AS player_id,
       coalesce(g.variant, s.variant) AS variant,
       (g.played, g.won, g.won_assisted, g.best_ms) AS counted,
       (s.played, s.won, s.won_assisted, s.best_ms) AS kept
FROM (SELECT player_id, variant, count(*) AS played,
             count(*) FILTER (WHERE status = 'won') AS won,
             count(*) FILTER (WHERE status = 'won' AND assisted) AS won_assisted,
             min(elapsed_ms) FILTER (WHERE status = 'won') AS best_ms
      FROM games GROUP BY 1, 2) AS g
FULL JOIN player_stats s USING (player_id, variant)
WHERE (g.played, g.won, g.won_assisted, g.best_ms)
      IS DISTINCT FROM (s.played, s.won, s.won_assisted, s.best_ms)
"""

PLAYER_BINS = f"""
SELECT coalesce(g.player_id, b.player_id) AS player_id,
       coalesce(g.variant, b.variant) AS variant, coalesce(g.bin, b.bin) AS bin,
       coalesce(g.n, 0) AS counted, coalesce(b.wins, 0) AS kept
FROM (SELECT player_id, variant, elapsed_ms / {PLAYER_BIN_MS} AS bin, count(*) AS n FROM games
      WHERE status = 'won' AND elapsed_ms IS NOT NULL GROUP BY 1, 2, 3) AS g
FULL JOIN player_time_bins b USING (player_id, variant, bin)
WHERE coalesce(g.n, 0) <> coalesce(b.wins, 0)
"""


async def check_counts(conn: asyncpg.Connection, differ: Differ) -> None:
    for row in await conn.fetch(BOARD_BINS):
        differ(None, f"board {row['variant']} {row['deal']} {row['board']}: the bin of"
                     f" {row['bin'] * 10} s holds {row['counted']} entries, board_bins says"
                     f" {row['kept']}")  # fmt: skip
    for row in await conn.fetch(PLAYER_STATS):
        differ(None, f"player {row['player_id']} {row['variant']}: played, won, won with"
                     f" help, best time are {tuple(row['counted'] or ())} by the games,"
                     f" {tuple(row['kept'] or ())} in player_stats")  # fmt: skip
    for row in await conn.fetch(PLAYER_BINS):
        differ(None, f"player {row['player_id']} {row['variant']}: {row['counted']} wins"
                     f" in second {row['bin']}, player_time_bins says {row['kept']}")  # fmt: skip
