"""The event store on asyncpg: append (one round trip, writes grouped in one lane's
statements under load, more lanes when one is slow), read, and the projection.

Its statements get their connections from service/database/sessions.py, which translates
the driver's errors into those of connections.py: a duplicate (game_id, seq) is a
VersionConflict (as is a write record_events finds stale, in _recorded), a lost connection
DatabaseUnavailable."""

from __future__ import annotations

import asyncio
import contextvars
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from service.database.connections import (
    DatabaseUnavailable,
    SignedOut,
    VersionConflict,
    json_text,
    spend_since,
)
from service.database.sessions import Sessions
from service.database.statements import (
    RECORD_MANY_SQL,
    RECORD_SQL,
    Recorded,
    Replayed,
    StoredEvent,
    payloads,
    signed_in,
    stored_answer,
)

__all__ = ["EventStore", "Recorded", "Replayed", "StoredEvent"]

MAX_BATCH = 64  # writes in one statement, at most
# seconds the youngest busy lane must have run before another lane opens: under load one
# lane at a time carries every write that waits (the biggest batches, the least CPU a
# move, here and in PostgreSQL); a statement that takes longer (a lock waited for) lets
# the writes behind it go on another lane
LANE_PATIENCE = 0.02

# what sends a batch's writes one by one instead (so one's refusal is never another's): one
# collided in the insert, or PostgreSQL refused one (a deadlock between batches, a constraint)
_BATCH_FALLBACK: tuple[type[BaseException], ...] = (VersionConflict, asyncpg.PostgresError)


@dataclass(slots=True)
class _Write:
    """A write waiting for a lane: record()'s arguments and the caller's future."""

    args: tuple[Any, ...]
    done: asyncio.Future[Recorded]
    notice: list[str]  # the lines the other instances are told at its commit


def _fail(done: asyncio.Future[Recorded], exc: BaseException) -> None:
    if done.done():
        return
    if isinstance(exc, asyncio.CancelledError):
        done.cancel()
    else:
        done.set_exception(exc)


class EventStore(Sessions):
    """Reads and appends game events; every call is one round trip."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        timeout: float = 5.0,
        min_median_move_ms: int = 200,
        write_lanes: int = 4,
    ) -> None:
        super().__init__(pool, timeout)
        # a win whose player's median time between moves is shorter is unverified
        self.min_median_move_ms = min_median_move_ms
        # Writes go to the database over at most `write_lanes` connections at once. A write
        # that finds no lane busy goes at once, alone; writes that come while one is busy
        # wait, and the next lane to come free takes them all in one statement (group
        # commit): a move costs a fraction of a round trip's CPU. Another lane opens only
        # once the youngest busy one has run LANE_PATIENCE (its statement waits for
        # something): a timer then wakes the writes that wait, which no write waits for
        # when statements take their usual time.
        self.write_lanes = max(1, write_lanes)
        self._busy_lanes = 0
        self._lane_opened = 0.0  # time.monotonic() when the youngest lane opened
        self._wake: asyncio.TimerHandle | None = None
        self._waiting: list[_Write] = []
        self.batched_writes = 0  # writes that went in a batch with others, so far
        self._batches: set[asyncio.Task[None]] = set()  # (the loop keeps weak references)
        # the first line of this instance's NOTIFY payloads, and its next beat line when
        # due (live/beats.py), set by the live-event hub when it listens through PostgreSQL:
        # each write tells the other instances of itself in its own transaction; None:
        self.sender: str | None = None  # they are told otherwise (the broker) or not
        self.beat: Callable[[], str | None] | None = None

    async def record(
        self,
        *,
        game_id: uuid.UUID,
        first_seq: int,
        events: Sequence[dict[str, Any]],
        player_id: uuid.UUID,
        variant: str,
        deal: int,
        autoplay: bool,
        status: str,
        moves: int,
        undos: int,
        hints: int,
        foundation_cards: int,
        finish: str,
        key: str | None = None,
        request_hash: str | None = None,
        http_status: int | None = None,
        response: dict[str, Any] | None = None,
        alone: bool = False,
        assisted: bool | None = None,
        notice: Sequence[str] = (),
        token_id: uuid.UUID | None = None,
    ) -> Recorded:
        """Append events at first_seq… with the projection, the idempotency record, for
        a win the board entries, for a race's game the race's events (record_events,
        migrations/sql/0020_record_events.sql). All or nothing, in one statement.

        `finish` is 'now', 'keep' or 'none' (what the write does to the game's finish
        time). Returns the earlier answer when the key was already used, the race's
        `race_ends_at` when the game is a race's whose time was up (the race ended, its
        games in play abandoned), or `arrived_ms` when a move says it was played after
        that: each appends nothing. VersionConflict: first_seq is taken or not next.

        Writes that wait for a lane (see __init__) go in one statement with others, each
        still all or nothing: a batch is one transaction, where a write on a stale position
        appends nothing and the others commit; if one collides in the insert itself (a
        writer committed after record_events read the version), each goes again alone.
        `alone` keeps a write out of batches (a race's game, whose write may end the race and
        take the locks of its other games), as does the game's locked transaction, which
        the write commits.
        `assisted` is the engine's flag (GameRecord.assisted), which the projection keeps and
        the boards go by; None leaves the game's as it was (false for a new game).
        `notice`, the lines the other instances are told by NOTIFY at the commit (with
        `sender` set): what a 304 of theirs from memory must hear of before it is answered.
        `token_id`, the device token the write came with: SignedOut, and nothing
        appended, when it is signed out by then (statements.signed_in).
        """
        args = (
            game_id, first_seq, list(events), player_id, variant, deal, autoplay, status, moves,
            undos, hints, foundation_cards, finish, key, request_hash, http_status,
            None if response is None else json_text(response), assisted,  # (stored_answer)
            token_id,
        )  # fmt: skip
        if self.locking():  # in the game's locked transaction (Sessions.locked): its COMMIT
            recorded = await self._record_one(args, list(notice))
            await self.commit_locked()
            return recorded
        if alone or (self._lane_free() and not self._waiting):
            self._open_lane()
            try:
                return await self._record_one(args, list(notice))
            finally:
                self._busy_lanes -= 1
                self._next_batch()
        wait = self.timeout  # (none left: DatabaseUnavailable, and nothing waits)
        write = _Write(args, asyncio.get_running_loop().create_future(), list(notice))
        self._waiting.append(write)
        self._next_batch()
        return await self._outcome(write, wait)

    async def _outcome(self, write: _Write, wait: float) -> Recorded:
        """The waiting write's outcome, waited for `wait` seconds at most (the request's
        budget). Past it, DatabaseUnavailable: a write still waiting for a lane is taken
        back (nothing was sent); one already sent in a batch may yet be committed, or not.
        (A timer, not asyncio.wait_for: most writes under load wait here.)"""
        timer = asyncio.get_running_loop().call_later(wait, self._give_up, write, wait)
        start = time.monotonic()
        try:
            return await write.done
        finally:
            timer.cancel()
            spend_since(start)

    def _give_up(self, write: _Write, wait: float) -> None:
        if write.done.done():
            return
        if write in self._waiting:
            self._waiting.remove(write)
        lost = f"no write lane answered within {wait:g} s (DB_TIMEOUT)"
        write.done.set_exception(DatabaseUnavailable(lost))

    def _payloads(self, notices: list[str]) -> list[str]:
        beat = None if self.sender is None or self.beat is None else self.beat()
        lines = notices if beat is None else [*notices, beat]
        return [] if self.sender is None else payloads(self.sender, lines)

    async def _record_one(self, args: tuple[Any, ...], notice: list[str]) -> Recorded:
        """One write, in a statement of its own."""
        async with self.connection() as conn:
            row = await conn.fetchrow(
                RECORD_SQL, *args[:13], self.min_median_move_ms, *args[13:18],
                self._payloads(notice), args[18], timeout=self.timeout,
            )
        return self._recorded(row)

    def _lane_free(self) -> bool:
        """Whether waiting writes may take a lane now: none is busy; or fewer than
        `write_lanes` are, and the youngest has run LANE_PATIENCE or a full batch waits
        (it would gain nothing by waiting)."""
        return self._busy_lanes == 0 or (
            self._busy_lanes < self.write_lanes
            and (
                time.monotonic() - self._lane_opened >= LANE_PATIENCE
                or len(self._waiting) >= MAX_BATCH
            )
        )

    def _open_lane(self) -> None:
        self._busy_lanes += 1
        self._lane_opened = time.monotonic()

    def _woken(self) -> None:
        self._wake = None
        self._next_batch()

    def _next_batch(self) -> None:
        """When a lane is free, the writes waiting for one go, together; while they wait
        behind busy lanes that leave room for another, a timer wakes them when one may
        open."""
        while self._waiting and self._lane_free():
            batch = [w for w in self._waiting[:MAX_BATCH] if not w.done.done()]
            del self._waiting[:MAX_BATCH]
            if batch:
                self._open_lane()
                # (a context of its own: a batch is no one request's, nor its budget)
                task = asyncio.get_running_loop().create_task(
                    self._record_batch(batch), context=contextvars.Context()
                )
                self._batches.add(task)
                task.add_done_callback(self._batches.discard)
        if self._waiting and self._busy_lanes < self.write_lanes and self._wake is None:
            due = self._lane_opened + LANE_PATIENCE - time.monotonic()
            self._wake = asyncio.get_running_loop().call_later(max(due, 0.0), self._woken)

    async def _record_batch(self, batch: list[_Write]) -> None:
        try:
            if len(batch) == 1:
                await self._settle_alone(batch[0])
                return
            # in the order of the games' ids, as every batch takes its rows' locks
            batch.sort(key=lambda w: w.args[0])
            try:
                rows = await self._record_many(
                    [w.args for w in batch], [line for w in batch for line in w.notice]
                )
                self.batched_writes += len(batch)
            except _BATCH_FALLBACK:
                for write in batch:  # (the batch appended nothing: one given up goes not)
                    if not write.done.done():
                        await self._settle_alone(write)
                return
            except BaseException as exc:
                for write in batch:
                    _fail(write.done, exc)
                if not isinstance(exc, Exception):
                    raise
                return
            for write, row in zip(batch, rows, strict=True):
                if not write.done.done():
                    try:  # (a stale one is refused, the batch's others committed)
                        write.done.set_result(self._recorded(row))
                    except (VersionConflict, SignedOut) as exc:
                        write.done.set_exception(exc)
        finally:
            self._busy_lanes -= 1
            self._next_batch()

    async def _settle_alone(self, write: _Write) -> None:
        try:
            recorded = await self._record_one(write.args, write.notice)
        except Exception as exc:
            _fail(write.done, exc)
        else:
            if not write.done.done():
                write.done.set_result(recorded)

    async def _record_many(
        self, writes: list[tuple[Any, ...]], notice: list[str]
    ) -> list[asyncpg.Record | None]:
        """Each write's row in order; None where its token is signed out (its game's line
        went out anyway: other instances read that game from the log until a write)."""
        async with self.connection() as conn:  # (the writes as one jsonb: statements.py)
            rows: list[asyncpg.Record] = await conn.fetch(
                RECORD_MANY_SQL, writes, self.min_median_move_ms, self._payloads(notice),
                timeout=self.timeout,
            )
        if len(rows) == len(writes):
            return list(rows)
        answered: list[asyncpg.Record | None] = [None] * len(writes)
        for row in rows:
            answered[row["ord"] - 1] = row
        return answered

    @staticmethod
    def _recorded(row: asyncpg.Record | None) -> Recorded:
        if row is None:
            raise SignedOut("the write's token was signed out: nothing was appended")
        if row["current_version"] is not None:
            raise VersionConflict(f"the game's log is at seq {row['current_version']}")
        if row["replayed"]:
            found = stored_answer(row["response"])
            replayed = Replayed(row["request_hash"], row["http_status"], found, row["at"])
            return Recorded(replayed, row["at"], None, None, None)
        if row["race_ends_at"] is not None:
            return Recorded(None, row["at"], None, None, None, row["race_ends_at"])
        return Recorded(None, row["at"], row["created_at"], row["finished_at"],
                        row["elapsed_ms"], arrived_ms=row["arrived_ms"])

    async def find_key(
        self, player_id: uuid.UUID, key: str | None, token_id: uuid.UUID | None = None
    ) -> Replayed | None:
        """The key's first answer, if it has one (None for no key: only the token is
        checked); SignedOut when the device token asking (`token_id`) is signed out by
        then: a token signed out gets no answer again."""
        async with self.connection() as conn:
            row = await conn.fetchrow(
                f"SELECT {signed_in('$3::uuid')} AS signed_in,"
                " k.request_hash, k.status, k.response, k.created_at"
                " FROM (SELECT) AS asked LEFT JOIN idempotency_keys k"
                " ON k.player_id = $1 AND k.key = $2",
                player_id, key, token_id, timeout=self.timeout,
            )
        if not row["signed_in"]:
            raise SignedOut("the token asking was signed out")
        if row["request_hash"] is None:
            return None
        found = stored_answer(row["response"])
        return Replayed(row["request_hash"], row["status"], found, row["created_at"])

    async def keep_answer(
        self, player_id: uuid.UUID, key: str, request_hash: str, status: int,
        response: dict[str, Any], token_id: uuid.UUID | None = None,
    ) -> Replayed | None:
        """Keep `response` (a refusal's problem, as JSON text like a write's answer:
        stored_answer) as the key's first answer; or, when the key has one already, that
        one (the key's request committed, or was refused, first). SignedOut, and nothing
        kept, when the device token asking (`token_id`) is signed out by then."""
        async with self.connection() as conn:
            kept = await conn.fetchval(
                "INSERT INTO idempotency_keys"
                " (player_id, key, request_hash, status, response, created_at)"
                " SELECT $1, $2, $3, $4, $5, clock_timestamp()"
                f" WHERE {signed_in('$6::uuid')}"
                " ON CONFLICT (player_id, key) DO NOTHING RETURNING true",
                player_id, key, request_hash, status, json_text(response), token_id,
                timeout=self.timeout,
            )
        return None if kept else await self.find_key(player_id, key, token_id)

    async def read_events(
        self, game_id: uuid.UUID, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        async with self.connection() as conn:
            rows = await conn.fetch(
                "SELECT seq, type, data, at FROM game_events WHERE game_id = $1 AND seq > $2"
                " ORDER BY seq LIMIT $3",
                game_id, after, limit, timeout=self.timeout,
            )
        return [StoredEvent(r["seq"], r["type"], r["data"], r["at"]) for r in rows]

    async def purge_keys(self, older_than: datetime) -> int:
        async with self.connection() as conn:
            status: str = await conn.execute(
                "WITH t AS (DELETE FROM token_keys WHERE created_at < $1)"
                " DELETE FROM idempotency_keys WHERE created_at < $1", older_than,
                timeout=self.timeout,
            )
        return int(status.split()[-1])

    async def versions(self, game_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, int]:
        """The seq of the last event of each of these games (from the projection), in one
        round trip; unknown ids are left out."""
        async with self.connection() as conn:
            rows = await conn.fetch(
                "SELECT id, version FROM games WHERE id = ANY($1::uuid[])", list(game_ids),
                timeout=self.timeout,
            )
        return {r["id"]: r["version"] for r in rows}
