"""`python -m service verify`, for games: replay every stored game and compare it with what
was derived from it: its `games` row (the projection) and its player's leaderboard entries.

Beyond the rules of each move, the log itself is checked: with autoplay on, every write
left no safe automatic move unplayed; with autoplay off, no move is automatic; every hint
names a legal move of its position (service/verify/replay.py). The board entries are
checked for the boards each win belongs on (assisted or not, by the engine's rule,
GameRecord.assisted; undone or not; played at a hand's pace or not: the pace is the median
time between the player's own moves, measured on the log, against MIN_MEDIAN_MOVE_MS as
this run is configured), and each entry is the player's best win of the board by the
boards' order (service/boards/order.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from service.boards import order
from service.database.connections import plain
from service.verify.replay import Win, Write, replay
from service.verify.report import Report

BATCH = 500
# the projection's columns compared with the replay, in the order they are reported
COLUMNS = (
    "player_id", "variant", "deal", "autoplay", "status", "version", "moves", "undos",
    "hints", "assisted", "foundation_cards", "created_at", "updated_at", "finished_at",
    "elapsed_ms",
)


def _described(win: Any) -> str:
    """A win's (or an entry's) values of the better-entry order, for a difference."""
    return ", ".join(
        f"{c.name} {value.isoformat() if isinstance(value, datetime) else value}"
        for c, value in zip(order.BETTER, order.values(win, order.BETTER), strict=True)
    )


def compare(row: asyncpg.Record, expected: dict[str, Any]) -> list[str]:
    """What the projection row gets wrong, one text per column."""
    wrong = []
    for column in COLUMNS:
        stored = plain(row[column])
        if stored != expected[column]:
            wrong.append(f"{column}: the projection says {stored}, the log {expected[column]}")
    return wrong


class GameChecks:
    """Every game's log against its projection, then the board entries against the wins
    of the logs; what the replays gave the races' check stays in `race_writes`."""

    def __init__(
        self, conn: asyncpg.Connection, report: Report, batch: int = BATCH,
        min_median_move_ms: int = 200,
    ) -> None:
        self.conn = conn
        self.report = report
        self.batch = batch
        self.min_median_move_ms = min_median_move_ms
        # the won games of each (variant, deal, player), as the log has them
        self.wins: dict[tuple[str, int, uuid.UUID], list[Win]] = {}
        # the boards a win belongs on, by (no undo, assisted, verified): the database's rule
        self.boards: dict[tuple[bool, bool, bool], list[str]] = {}
        # the writes of every race's game, by game id, as the game's log has them, and its
        # verdict (`verdict`)
        self.race_writes: dict[uuid.UUID, list[Write]] = {}
        self.race_verdicts: dict[uuid.UUID, bool | None] = {}

    def at_pace(self, pace_ms: float | None) -> bool:
        """The pace rule (MIN_MEDIAN_MOVE_MS), on the median time between a player's moves."""
        threshold = self.min_median_move_ms
        return threshold <= 0 or (pace_ms or 0.0) >= threshold

    def verified(self, win: Win) -> bool:
        return self.at_pace(win.pace_ms)

    def verdict(self, expected: dict[str, Any]) -> bool | None:
        """A replayed game's verdict (`games.verified`, record_win's): the pace rule's on a
        win, None on a game not won."""
        return self.at_pace(expected["pace_ms"]) if expected["status"] == "won" else None

    async def boards_of(self, win: Win) -> list[str]:
        kind = (win.undos == 0, win.assisted, self.verified(win))
        if kind not in self.boards:
            self.boards[kind] = list(
                await self.conn.fetchval(
                    "SELECT win_boards($1, $2, $3)", 0 if kind[0] else 1, kind[1], kind[2]
                )
            )
        return self.boards[kind]

    async def games(self) -> None:
        """Replay every game, in batches by id, and compare it with its projection."""
        after = uuid.UUID(int=0)
        while True:
            rows = await self.conn.fetch(
                f"SELECT id, race_id, verified, {', '.join(COLUMNS)} FROM games WHERE id > $1"
                " ORDER BY id LIMIT $2",
                after, self.batch,
            )
            if not rows:
                break
            await self._batch(rows)
            after = rows[-1]["id"]

    async def _batch(self, rows: Sequence[asyncpg.Record]) -> None:
        ids = [r["id"] for r in rows]
        events = await self.conn.fetch(
            "SELECT game_id, seq, type, data, at FROM game_events WHERE game_id = ANY($1::uuid[])"
            " ORDER BY game_id, seq",
            ids,
        )
        logs: dict[uuid.UUID, list[asyncpg.Record]] = {}
        for e in events:
            logs.setdefault(plain(e["game_id"]), []).append(e)
        self.report.events += len(events)
        differ = self.report.differ
        for row in rows:
            gid = plain(row["id"])
            self.report.games += 1
            try:
                expected = replay(logs.get(gid, []))
            except ValueError as exc:
                differ(gid, str(exc))
                continue
            for what in compare(row, expected):
                differ(gid, what)
            for what in expected["notes"]:
                differ(gid, what)
            verdict = self.verdict(expected)
            # (null on a win: one from before migration 0033 whose board entry was gone)
            if row["verified"] is not None and row["verified"] != verdict:
                differ(gid, f"verified: the projection says {row['verified']}, the log {verdict}")
            if row["race_id"] is not None:
                self.race_writes[gid] = expected["writes"]
                # (what the race copies from the row: null there, null in the race too)
                self.race_verdicts[gid] = None if row["verified"] is None else verdict
            if expected["status"] == "won" and expected["elapsed_ms"] is not None:
                key = (expected["variant"], expected["deal"], expected["player_id"])
                self.wins.setdefault(key, []).append(
                    Win(gid, expected["elapsed_ms"], expected["moves"], expected["undos"],
                        expected["finished_at"], expected["assisted"], expected["pace_ms"])
                )

    async def leaderboards(self) -> None:
        """Each board entry against the wins of the logs (run after `games`)."""
        exists = await self.conn.fetchval("SELECT to_regclass('leaderboard_entries') IS NOT NULL")
        if not exists:
            return
        entries = await self.conn.fetch(
            "SELECT variant, deal, board, game_id, undos, assisted, verified,"
            f" {', '.join(c.name for c in order.ORDER)} FROM leaderboard_entries"
        )
        self.report.entries = len(entries)
        # the wins each board should list, by (variant, deal, board, player)
        expected: dict[tuple[str, int, str, uuid.UUID], list[Win]] = {}
        for (variant, deal, player), wins in self.wins.items():
            for w in wins:
                for board in await self.boards_of(w):
                    expected.setdefault((variant, deal, board, player), []).append(w)
        seen = set()
        for entry in entries:
            key = (entry["variant"], entry["deal"], entry["board"], plain(entry["player_id"]))
            seen.add(key)
            self._entry(entry, key, expected.get(key))
        for key in expected.keys() - seen:
            self.report.differ(
                None,
                f"leaderboard {key[0]} {key[1]} ({key[2]}), player {key[3]}: won in the log,"
                " but no entry",
            )

    def _entry(
        self, entry: asyncpg.Record, key: tuple[str, int, str, uuid.UUID],
        wins: list[Win] | None,
    ) -> None:
        """One entry against the player's wins that belong on its board."""
        differ = self.report.differ
        where = f"leaderboard {key[0]} {key[1]} ({key[2]}), player {key[3]}"
        if not wins:
            differ(None, f"{where}: an entry, but the log has no won game of that deal"
                         " that belongs on this board")
            return
        best = min(wins, key=lambda w: w.rank_key)
        gid = plain(entry["game_id"])
        game = next((w for w in wins if w.game_id == gid), None)
        if game is None:
            differ(gid, f"{where}: the entry's game is not one of the player's wins")
        elif game.rank_key != best.rank_key:
            differ(gid, f"{where}: the entry's game is not the player's best win of the deal")
        if order.better_key(entry) != best.rank_key:
            differ(gid, f"{where}: the entry says {_described(entry)}, the log's best is"
                        f" {_described(best)}")
        if game is None:
            return
        flags = {"undos": game.undos, "assisted": game.assisted, "verified": self.verified(game)}
        for name, value in flags.items():
            if entry[name] != value:
                differ(gid, f"{where}: {name}: the entry says {entry[name]}, the log {value}")
