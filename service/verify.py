"""`python -m service verify`: replay every stored game and compare it with what was derived
from it: its `games` row (the projection) and its player's leaderboard entry.

The event log is the truth; the projection and the leaderboards are written from it in the
same transaction (record_events), so any difference is a bug or damage. Every game is
replayed with the rules checked (a log the rules refuse is a difference too). The whole run
reads one snapshot (REPEATABLE READ), so games being played meanwhile do not show up as
differences. Prints each difference and a summary; exit code 1 when there is any.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import asyncpg

from engine import EngineError, Event, Game

from .games import FINISHED, elapsed_ms
from .store import _init_connection
from .uow import LiveGame

BATCH = 500
GAME_CREATED = "GameCreated"
# the projection's columns compared with the replay, in the order they are reported
COLUMNS = (
    "player_id", "variant", "deal", "autoplay", "status", "version", "moves", "undos",
    "foundation_cards", "created_at", "updated_at", "finished_at", "elapsed_ms",
)


@dataclass(frozen=True, slots=True)
class Difference:
    game_id: uuid.UUID | None
    what: str

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.what}" if self.game_id else self.what


@dataclass
class Report:
    games: int = 0
    events: int = 0
    entries: int = 0
    differences: list[Difference] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences

    def summary(self) -> str:
        found = len(self.differences)
        return (
            f"verified {self.games} games ({self.events} events) and {self.entries}"
            f" leaderboard entries: {found} difference{'s' if found != 1 else ''}"
        )


@dataclass(frozen=True, slots=True)
class Win:
    game_id: uuid.UUID
    elapsed_ms: int
    moves: int
    undos: int
    finished_at: datetime

    @property
    def rank_key(self) -> tuple[int, int, datetime]:
        """How the leaderboards order wins (migration 0002): time, moves, finish."""
        return self.elapsed_ms, self.moves, self.finished_at


def replay(events: Sequence[asyncpg.Record]) -> dict[str, Any]:
    """What the projection of these events (one game's log, by seq) must hold.

    finished_at follows the service's rule (games._after_change): the time of the write
    that brought the game to its present end (won, abandoned, or blocked), kept while it
    stays there, cleared when an undo makes it playable again. A write's events share
    their `at`, so the log's writes are its runs of equal `at`. Raises ValueError for a
    log that cannot be replayed.
    """
    if not events:
        raise ValueError("the game has no events")
    seqs = [e["seq"] for e in events]
    if seqs != list(range(1, len(events) + 1)):
        raise ValueError(f"the log's seqs are not 1..{len(events)} without gaps")
    first = events[0]
    if first["type"] != GAME_CREATED:
        raise ValueError(f"the log starts with {first['type']}, not {GAME_CREATED}")
    data = first["data"]
    try:
        game = Game.replay([Event(first["type"], data)])
    except (EngineError, KeyError, TypeError) as exc:
        raise ValueError(f"GameCreated cannot be replayed: {exc!r}") from None
    finished: datetime | None = None
    before = "playing"  # the status before the write being replayed

    def end_of_write(at: datetime) -> None:
        nonlocal finished, before
        status = game.status
        if status in FINISHED or status == "blocked":
            if status != before or finished is None:
                finished = at
        else:
            finished = None
        before = status

    write_at = first["at"]
    for e in events[1:]:
        if e["at"] != write_at:
            end_of_write(write_at)
            write_at = e["at"]
        try:
            game.apply(Event(e["type"], e["data"]), check=True)
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"event {e['seq']} ({e['type']}) breaks the rules: {exc}") from None
    end_of_write(write_at)
    live = LiveGame(game, _uuid(data.get("player_id")), first["at"], finished)
    return {
        "player_id": live.player_id,
        "variant": game.variant,
        "deal": game.deal,
        "autoplay": game.autoplay,
        "status": game.status,
        "version": game.version,
        "moves": game.moves,
        "undos": game.undos,
        "foundation_cards": game.position.foundation_cards,
        "created_at": first["at"],
        "updated_at": events[-1]["at"],
        "finished_at": finished,
        "elapsed_ms": elapsed_ms(live),
    }


def _uuid(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def _win(key: tuple[int, int, datetime]) -> str:
    elapsed, moves, finished = key
    return f"{elapsed} ms, {moves} moves, finished {finished.isoformat()}"


def _plain(value: Any) -> Any:
    """asyncpg's UUIDs compare with the standard ones, but print and hash as theirs."""
    return uuid.UUID(str(value)) if isinstance(value, uuid.UUID) else value


def compare(row: asyncpg.Record, expected: dict[str, Any]) -> list[str]:
    """What the projection row gets wrong, one text per column."""
    wrong = []
    for column in COLUMNS:
        stored = _plain(row[column])
        if stored != expected[column]:
            wrong.append(f"{column}: the projection says {stored}, the log {expected[column]}")
    return wrong


class Verifier:
    def __init__(self, conn: asyncpg.Connection, batch: int = BATCH) -> None:
        self.conn = conn
        self.batch = batch
        self.report = Report()
        # the won games of each (variant, deal, player), as the log has them
        self.wins: dict[tuple[str, int, uuid.UUID], list[Win]] = {}

    def differ(self, game_id: uuid.UUID | None, what: str) -> None:
        self.report.differences.append(Difference(game_id, what))

    async def run(self) -> Report:
        after = uuid.UUID(int=0)
        while True:
            rows = await self.conn.fetch(
                f"SELECT id, {', '.join(COLUMNS)} FROM games WHERE id > $1 ORDER BY id LIMIT $2",
                after, self.batch,
            )
            if not rows:
                break
            await self._games(rows)
            after = rows[-1]["id"]
        await self._leaderboards()
        return self.report

    async def _games(self, rows: Sequence[asyncpg.Record]) -> None:
        ids = [r["id"] for r in rows]
        events = await self.conn.fetch(
            "SELECT game_id, seq, type, data, at FROM game_events WHERE game_id = ANY($1::uuid[])"
            " ORDER BY game_id, seq",
            ids,
        )
        logs: dict[uuid.UUID, list[asyncpg.Record]] = {}
        for e in events:
            logs.setdefault(_plain(e["game_id"]), []).append(e)
        self.report.events += len(events)
        for row in rows:
            gid = _plain(row["id"])
            self.report.games += 1
            try:
                expected = replay(logs.get(gid, []))
            except ValueError as exc:
                self.differ(gid, str(exc))
                continue
            for what in compare(row, expected):
                self.differ(gid, what)
            if expected["status"] == "won" and expected["elapsed_ms"] is not None:
                key = (expected["variant"], expected["deal"], expected["player_id"])
                self.wins.setdefault(key, []).append(
                    Win(gid, expected["elapsed_ms"], expected["moves"], expected["undos"],
                        expected["finished_at"])
                )

    async def _leaderboards(self) -> None:
        exists = await self.conn.fetchval("SELECT to_regclass('leaderboard_entries') IS NOT NULL")
        if not exists:
            return
        entries = await self.conn.fetch(
            "SELECT variant, deal, player_id, game_id, elapsed_ms, moves, undos, finished_at"
            " FROM leaderboard_entries"
        )
        self.report.entries = len(entries)
        seen = set()
        for entry in entries:
            key = (entry["variant"], entry["deal"], _plain(entry["player_id"]))
            seen.add(key)
            where = f"leaderboard {entry['variant']} {entry['deal']}, player {key[2]}"
            wins = self.wins.get(key)
            if not wins:
                self.differ(None, f"{where}: an entry, but the log has no won game of that deal")
                continue
            best = min(w.rank_key for w in wins)
            gid = _plain(entry["game_id"])
            game = next((w for w in wins if w.game_id == gid), None)
            if game is None:
                self.differ(gid, f"{where}: the entry's game is not one of the player's wins")
            elif game.rank_key != best:
                self.differ(
                    gid, f"{where}: the entry's game is not the player's best win of the deal"
                )
            got = (entry["elapsed_ms"], entry["moves"], entry["finished_at"])
            if got != best:
                self.differ(
                    gid, f"{where}: the entry says {_win(got)}, the log's best is {_win(best)}"
                )
            if game is not None and entry["undos"] != game.undos:
                self.differ(
                    gid, f"{where}: undos: the entry says {entry['undos']}, the log {game.undos}"
                )
        for key in self.wins.keys() - seen:
            self.differ(
                None,
                f"leaderboard {key[0]} {key[1]}, player {key[2]}: won in the log, but no entry",
            )


async def verify(dsn: str, batch: int = BATCH) -> Report:
    conn = await asyncpg.connect(dsn)
    try:
        await _init_connection(conn)
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            return await Verifier(conn, batch).run()
    finally:
        await conn.close()


def main(dsn: str, out: Callable[[str], None] = print) -> int:
    import asyncio

    report = asyncio.run(verify(dsn))
    for difference in report.differences:
        out(str(difference))
    out(report.summary())
    return 0 if report.ok else 1
