"""`python -m service verify`: replay every stored game and compare it with what was derived
from it: its `games` row (the projection) and its player's leaderboard entries.

Beyond the rules of each move, the log itself is checked: with autoplay on, every write
left no safe automatic move unplayed; with autoplay off, no move is automatic; every hint
names a legal move of its position. The board entries are checked for the boards each
win belongs on (hinted or not, undone or not, played at a hand's pace or not: the pace is
the median time between the player's own moves, measured on the log, against
MIN_MEDIAN_MOVE_MS as this run is configured).

The event log is the truth; the projection and the leaderboards are written from it in the
same transaction (record_events), so any difference is a bug or damage. Every game is
replayed with the rules checked (a log the rules refuse is a difference too). The whole run
reads one snapshot (REPEATABLE READ), so games being played meanwhile do not show up as
differences. Prints each difference and a summary; exit code 1 when there is any.
"""

from __future__ import annotations

import itertools
import statistics
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import asyncpg

from engine import EngineError, Event, Game
from engine.game import CARD_MOVED, GAME_CREATED, MOVE_REDONE, MOVE_UNDONE
from service.base.backend import LiveGame
from service.database.store import _init_connection, connect_options
from service.games.queries import elapsed_ms, finished_at_after
from service.verify.races import check_races

BATCH = 500
# the projection's columns compared with the replay, in the order they are reported
COLUMNS = (
    "player_id", "variant", "deal", "autoplay", "status", "version", "moves", "undos",
    "hints", "foundation_cards", "created_at", "updated_at", "finished_at", "elapsed_ms",
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
class Write:
    """The game as one write of its log left it (a write's events share their `at`)."""

    at: datetime
    status: str
    moves: int
    foundation_cards: int
    elapsed_ms: int | None  # from the creation to the game's present end, if at one
    ended: bool  # this write brought the game to its present end (record_events' 'now')


@dataclass(frozen=True, slots=True)
class Win:
    game_id: uuid.UUID
    elapsed_ms: int
    moves: int
    undos: int
    finished_at: datetime
    assisted: bool
    pace_ms: float | None  # the median time between the player's own moves

    @property
    def rank_key(self) -> tuple[int, int, datetime]:
        """How the leaderboards order wins (migration 0002): time, moves, finish."""
        return self.elapsed_ms, self.moves, self.finished_at


def pace_ms(events: Sequence[Any]) -> float | None:
    """The median time in milliseconds between the player's own actions (moves, undos,
    redos), counted from the game's creation; None when the player made none (as the
    database's game_median_move_ms measures it)."""
    times = [
        e["at"] for e in events
        if e["seq"] == 1 or e["type"] in (MOVE_UNDONE, MOVE_REDONE)
        or (e["type"] == CARD_MOVED and not e["data"].get("auto"))
    ]
    gaps = [(b - a).total_seconds() * 1000 for a, b in itertools.pairwise(times)]
    return statistics.median(gaps) if gaps else None


def replay(events: Sequence[Any]) -> dict[str, Any]:
    """What the projection of these events (one game's log, by seq) must hold.

    finished_at follows the service's rule (games._after_change): the time of the write
    that brought the game to its present end (won, abandoned, or blocked), kept while it
    stays there, cleared when an undo makes it playable again. A write's events share
    their `at`, so the log's writes are its runs of equal `at`; `writes` holds the game as
    each of them left it, the creation first (what a race's events say of the game,
    service/verify/races.py). Raises ValueError for a log that cannot be replayed.
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
    notes: list[str] = []  # what the log gets wrong beyond the rules of each move
    writes: list[Write] = []

    def end_of_write(at: datetime, seq: int) -> None:
        nonlocal finished, before
        finished = finished_at_after(before, LiveGame(game, None, first["at"], finished), at)  # type: ignore[arg-type]
        before = game.status
        writes.append(Write(
            at, game.status, game.moves, game.position.foundation_cards,
            elapsed_ms(first["at"], finished), finished is not None and finished == at,
        ))
        if game.autoplay and not game.is_over:
            left = game.position.auto_move()
            if left is not None:
                notes.append(
                    f"autoplay is on, but after event {seq} the automatic move {left} was"
                    " not played"
                )

    write_at = first["at"]
    last_seq = 1
    for e in events[1:]:
        if e["at"] != write_at:
            end_of_write(write_at, last_seq)
            write_at = e["at"]
        last_seq = e["seq"]
        if e["type"] == CARD_MOVED and e["data"].get("auto") and not game.autoplay:
            notes.append(f"event {e['seq']} is an automatic move, but autoplay is off")
        try:
            game.apply(Event(e["type"], e["data"]), check=True)
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"event {e['seq']} ({e['type']}) breaks the rules: {exc}") from None
    end_of_write(write_at, last_seq)
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
        "hints": game.hints,
        "foundation_cards": game.position.foundation_cards,
        "created_at": first["at"],
        "updated_at": events[-1]["at"],
        "finished_at": finished,
        "elapsed_ms": elapsed_ms(live.created_at, live.finished_at),
        "pace_ms": pace_ms(events),
        "notes": notes,
        "writes": writes,
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
    def __init__(
        self, conn: asyncpg.Connection, batch: int = BATCH, min_median_move_ms: int = 200
    ) -> None:
        self.conn = conn
        self.batch = batch
        self.min_median_move_ms = min_median_move_ms
        self.report = Report()
        # the won games of each (variant, deal, player), as the log has them
        self.wins: dict[tuple[str, int, uuid.UUID], list[Win]] = {}
        # the boards a win belongs on, by (no undo, assisted, verified): the database's rule
        self.boards: dict[tuple[bool, bool, bool], list[str]] = {}
        # the writes of every race's game, by game id, as the game's log has them
        self.race_writes: dict[uuid.UUID, list[Write]] = {}

    def verified(self, win: Win) -> bool:
        threshold = self.min_median_move_ms
        return threshold <= 0 or (win.pace_ms or 0.0) >= threshold

    async def boards_of(self, win: Win) -> list[str]:
        kind = (win.undos == 0, win.assisted, self.verified(win))
        if kind not in self.boards:
            self.boards[kind] = list(
                await self.conn.fetchval(
                    "SELECT win_boards($1, $2, $3)", 0 if kind[0] else 1, kind[1], kind[2]
                )
            )
        return self.boards[kind]

    def differ(self, game_id: uuid.UUID | None, what: str) -> None:
        self.report.differences.append(Difference(game_id, what))

    async def run(self) -> Report:
        after = uuid.UUID(int=0)
        while True:
            rows = await self.conn.fetch(
                f"SELECT id, race_id, {', '.join(COLUMNS)} FROM games WHERE id > $1"
                " ORDER BY id LIMIT $2",
                after, self.batch,
            )
            if not rows:
                break
            await self._games(rows)
            after = rows[-1]["id"]
        await self._leaderboards()
        await check_races(self.conn, self.differ, self.race_writes)
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
            for what in expected["notes"]:
                self.differ(gid, what)
            if row["race_id"] is not None:
                self.race_writes[gid] = expected["writes"]
            if expected["status"] == "won" and expected["elapsed_ms"] is not None:
                key = (expected["variant"], expected["deal"], expected["player_id"])
                self.wins.setdefault(key, []).append(
                    Win(gid, expected["elapsed_ms"], expected["moves"], expected["undos"],
                        expected["finished_at"], expected["hints"] > 0, expected["pace_ms"])
                )

    async def _leaderboards(self) -> None:
        exists = await self.conn.fetchval("SELECT to_regclass('leaderboard_entries') IS NOT NULL")
        if not exists:
            return
        entries = await self.conn.fetch(
            "SELECT variant, deal, board, player_id, game_id, elapsed_ms, moves, undos,"
            " assisted, verified, finished_at FROM leaderboard_entries"
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
            key = (entry["variant"], entry["deal"], entry["board"], _plain(entry["player_id"]))
            seen.add(key)
            where = (f"leaderboard {entry['variant']} {entry['deal']} ({entry['board']}),"
                     f" player {key[3]}")
            wins = expected.get(key)
            if not wins:
                self.differ(
                    None, f"{where}: an entry, but the log has no won game of that deal"
                    " that belongs on this board",
                )
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
            if game is None:
                continue
            flags = {"undos": game.undos, "assisted": game.assisted,
                     "verified": self.verified(game)}
            for name, value in flags.items():
                if entry[name] != value:
                    self.differ(
                        gid, f"{where}: {name}: the entry says {entry[name]}, the log {value}"
                    )
        for key in expected.keys() - seen:
            self.differ(
                None,
                f"leaderboard {key[0]} {key[1]} ({key[2]}), player {key[3]}: won in the log,"
                " but no entry",
            )


async def verify(
    dsn: str, batch: int = BATCH, min_median_move_ms: int = 200, pooler: bool = False
) -> Report:
    conn = await asyncpg.connect(dsn, **connect_options(pooler))
    try:
        await _init_connection(conn)
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            return await Verifier(conn, batch, min_median_move_ms).run()
    finally:
        await conn.close()


def main(
    dsn: str, min_median_move_ms: int = 200, out: Callable[[str], None] = print,
    pooler: bool = False,
) -> int:  # fmt: skip
    import asyncio

    report = asyncio.run(verify(dsn, min_median_move_ms=min_median_move_ms, pooler=pooler))
    for difference in report.differences:
        out(str(difference))
    out(report.summary())
    return 0 if report.ok else 1
