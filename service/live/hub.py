"""Live game events for the WebSocket subscribers of one service instance: its feeds
(service/live/feeds.py) and how the instances sharing one database wake each other's.

After each commit the writing instance wakes its own subscribers at once; the others
hear of it at the commit itself: the write's statement sends `NOTIFY game_events` in its
own transaction (service/database/statements.py), lines of '<game id> <last seq>' and, for
a win, 'board <variant> <deal>' (service/boards/known.py), after a 'from <instance>' line
by which an instance knows its own when they come back, whose beats prove the listener
hears (service/live/beats.py). So no other instance answers a 304 from memory for a
version that a client was already told is gone (service/games/positions.py).
PostgreSQL commits notifying transactions one at a time, which group commit makes one
commit a batch of writes. A publisher task sends, as ONE NOTIFY every few milliseconds,
'race <race id>' for every race whose log the instance grew, which wakes the other
instances' readers of that race's stream (service/races/feeds.py); the race readers read
only when woken, and the hub's sweep covers theirs too. A token's sign-out sends 'token
<hash>' in its own transaction (service/players/accounts.py), through the broker after it,
by which the instances forget the token (what it may do is the database's word). The
events themselves are always read from the log. Each instance has ONE dedicated
connection that LISTENs (not one per socket, not from the pool); when it drops, it is
opened again with backoff and every game with subscribers catches up from the log, so a
lost notification delays an event and never loses it. With EVENTS_BROKER set, the
same lines go through NATS instead (service/live/broker.py), all of them from the
publisher (at once after the commit: a few milliseconds later than through PostgreSQL for
the others' memory).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import uuid
from collections.abc import Awaitable, Callable

import asyncpg
from aiohttp import web

from service.base.logs import repeated_level
from service.database.statements import (
    CHANNEL,
    SIGNED_OUT,
    board_line,
    game_line,
    payloads,
)
from service.database.store import EventStore
from service.live.beats import BEAT, Beats
from service.live.broker import Broker
from service.live.feeds import Feeds
from service.live.subscriptions import Subscription

log = logging.getLogger("service.stream")

APPLICATION_NAME = "solitaire-stream-listener"
# seconds a start waits after its first beat came back, by when the others have heard it
SETTLE = 0.05


class StreamHub(Feeds):
    """This instance's feeds, woken by its own commits at once and by the other instances'
    through one listening connection (or the broker)."""

    def __init__(
        self,
        store: EventStore,
        dsn: str,
        *,
        queue_size: int = 1000,
        sweep_every: float = 5.0,
        check_every: float = 10.0,
        retry_first: float = 0.1,
        retry_max: float = 0.5,
        publish_every: float = 0.01,
        broker: str | None = None,
    ) -> None:
        super().__init__(store, queue_size=queue_size, sweep_every=sweep_every)
        self.dsn = dsn
        # nats://host:port: wake-ups go through NATS instead of LISTEN/NOTIFY
        self.broker = broker
        self.check_every = check_every
        self.retry_first = retry_first
        # the longest wait between the listener's tries (the publisher's too): how late its
        # watchers hear the others after the database is back (the race clock's pace too)
        self.retry_max = retry_max
        self.publish_every = publish_every
        # the first line of this instance's payloads: its own come back to it through
        # LISTEN, and are left unread (it woke its feeds and settled its memory at the
        # commit), as NATS does not send them back (no_echo)
        self.sender = f"from {secrets.token_hex(8)}"
        self._broker = None if broker is None else Broker(
            broker, APPLICATION_NAME, self.sender, retry_first, retry_max)
        self._outbox: dict[uuid.UUID, int] = {}
        # races whose log this instance grew since the last publish
        self._race_outbox: set[uuid.UUID] = set()
        # deals ('<variant> <deal>') whose boards a win of this instance changed
        self._board_outbox: set[tuple[str, int]] = set()
        # told (variant, deal) of every board line, set by the app to Backend.board_changed
        self.on_board: Callable[[str, int], None] = lambda _variant, _deal: None
        # told the race of every "race <id>" line: wakes this instance's feed of the race
        # (service/races/feeds.py), set by the app to Backend.wake_race_feed
        self.on_race: Callable[[uuid.UUID], None] = lambda _race: None
        # with every sweep, the race feeds' (service/races/feeds.py: sweep), set by the app
        self.sweep_races: Callable[[], Awaitable[None]] = _nothing
        # told (game, last seq) of every game line another instance sends, set by the app
        # to service/games/positions.py: announce
        self.on_game: Callable[[uuid.UUID, int], None] = lambda _game, _seq: None
        # told the hash of every token signed out (a 'token <hex>' line, which the
        # sign-out's own statement sends), set by the app to players/accounts.py: signed_out
        self.on_signed_out: Callable[[bytes], None] = lambda _digest: None
        self._outbox_ready = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.listening = asyncio.Event()
        # counted for /metrics-style questions and for the tests, as the feeds' reads
        self.connects = 0  # successful LISTEN connections, reconnections included
        self.beats = Beats(self.listening)  # the listener's proof of life (beats.py)

    # ------------------------------------------------------------ lifecycle

    async def start(self, wait: float = 5.0) -> None:
        """Start listening (waiting up to `wait` seconds for the first connection; if the
        database is not there yet, the listener keeps trying in the background)."""
        if not self.broker:  # each write of this instance tells the others itself
            self.store.sender, self.store.beat = self.sender, self.beats.due
        listen = self._listen_nats() if self.broker else self._listen()
        self._tasks = [
            asyncio.create_task(listen, name="stream-listener"),
            asyncio.create_task(self._sweep_forever(), name="stream-sweep"),
            asyncio.create_task(self._publish_forever(), name="stream-publish"),
        ]
        if not self.broker:
            self._tasks.append(asyncio.create_task(self.beats.forever(self._send_beat)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.listening.wait(), wait)
            async with asyncio.timeout(1.0):  # and its first beat heard back, by the
                while self.epoch() is None:  # others too a moment later (beats.py)
                    await asyncio.sleep(0.005)
                await asyncio.sleep(SETTLE)

    async def stop(self) -> None:
        tasks = self._tasks + [f.task for f in self._feeds.values() if f.task is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks = []
        self._feeds.clear()
        if self._broker is not None:
            await self._broker.close()

    async def sweep(self) -> None:
        """The games' feeds that are behind the log woken (Feeds.sweep), then the races'."""
        await super().sweep()
        await self.sweep_races()

    # ------------------------------------------------------------ wake-ups from the others

    def _notified(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        if payload.startswith(self.sender) and payload[len(self.sender):][:1] in ("", "\n"):
            if BEAT in payload:  # this instance's own: only its beats matter
                for line in payload.splitlines():
                    kind, _, number = line.partition(" ")
                    if kind == BEAT:
                        self.beats.heard(number)
            return
        self.beats.heard_other()
        for line in payload.splitlines():
            game, _, seq = line.partition(" ")
            if game in ("from", BEAT):  # another instance's name, or its beat
                continue
            if game == "board":  # 'board <variant> <deal>': a deal's boards changed
                variant, _, deal = seq.partition(" ")
                if deal.isdigit():
                    self.on_board(variant, int(deal))
                else:
                    log.warning("stream: unexpected notification %r", line)
                continue
            if game == SIGNED_OUT:  # 'token <hash in hex>': a token was signed out
                try:
                    digest = bytes.fromhex(seq)
                except ValueError:
                    log.warning("stream: unexpected notification %r", line)
                    continue
                self.on_signed_out(digest)
                continue
            if game == "race":  # 'race <race id>': a race's log grew
                try:
                    race_id = uuid.UUID(seq)
                except ValueError:
                    log.warning("stream: unexpected notification %r", line)
                    continue
                self.on_race(race_id)
                continue
            try:
                game_id, last = uuid.UUID(game), int(seq)
            except ValueError:
                log.warning("stream: unexpected notification %r", line)
                continue
            self.on_game(game_id, last)
            self._wake(game_id, last)

    def epoch(self) -> int | None:
        """Which connection of the listener (or to the broker) is up, None while none is
        or while no beat heard back vouches for it (beats.py): while it stays the same, no
        other instance's line was missed."""
        if not self.listening.is_set() or not (self.broker or self.beats.proven()):
            return None
        return self.connects

    def others(self) -> bool:  # whether other instances may share the database
        return bool(self.broker) or not self.beats.alone()

    # ------------------------------------------------------------ publishing commits

    def committed(self, game_id: uuid.UUID, last: int, told: bool = True) -> None:
        """A write of this instance committed: wake its own subscribers now. Through
        PostgreSQL the write's own statement told the other instances at its commit
        (EventStore.sender), unless not `told` (a race's end abandoning its games:
        race_end); through the broker, or then, they are told with the next batch."""
        self._wake(game_id, last)
        if self.broker or not told:
            self._outbox[game_id] = max(last, self._outbox.get(game_id, 0))
            self._outbox_ready.set()

    def race_committed(self, race_id: uuid.UUID) -> None:
        """A write of this instance grew the race's log: tell the other instances with the
        next batch (this instance's own feed was woken by the caller)."""
        self._race_outbox.add(race_id)
        self._outbox_ready.set()

    def board_committed(self, variant: str, deal: int) -> None:
        """A win of this instance changed the deal's boards (this instance's own memory
        was told by the caller): through the broker the other instances are told now;
        through PostgreSQL the winning write's statement told them (EventStore.sender)."""
        if self.broker:
            self._board_outbox.add((variant, deal))
            self._outbox_ready.set()

    async def token_signed_out(self, digest: bytes) -> None:
        """A token this instance signed out, committed: through PostgreSQL the sign-out's
        statement told the others at its commit; through the broker they are told now.
        Only their memory hears it: what the token may do is the database's word
        (players/accounts.py), so a line lost costs nothing but a refused write's
        statement."""
        if self._broker is None:
            return
        try:
            await self._broker.publish([f"{SIGNED_OUT} {digest.hex()}"])
        except Exception as exc:
            log.warning("stream: could not tell the other instances of a sign-out: %s", exc)

    async def _publish_forever(self) -> None:
        failures = 0  # in a row: the wait before sending again doubles with each
        while True:
            await self._outbox_ready.wait()
            # Let a batch gather: a NOTIFY costs a transaction, so what a few milliseconds
            # commit goes in one. A publish to the broker is a write to its socket, buffered
            # by the client: only what this turn of the event loop committed is batched, and
            # the other instances are told at once (fan-out bench: the 10 ms wait was a
            # third of the delivery to their watchers).
            await asyncio.sleep(0 if self.broker else self.publish_every)
            self._outbox_ready.clear()
            batch, self._outbox = self._outbox, {}
            races, self._race_outbox = self._race_outbox, set()
            boards, self._board_outbox = self._board_outbox, set()
            lines = [game_line(game, seq) for game, seq in batch.items()]
            lines += [f"race {race}" for race in races]
            lines += [board_line(*board) for board in boards]
            try:
                if self._broker is not None:
                    await self._broker.publish(lines)
                else:
                    async with self.store.connection() as conn:
                        for payload in payloads(self.sender, lines):
                            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, payload)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                # sent again with the next batch: the others' memory of those games is
                # known current until they hear of these commits (games/positions.py: announce), and
                # their streams' sweeps would deliver the events only later
                log.warning("stream: could not notify other instances (again soon): %s", exc)
                for game, seq in batch.items():
                    self._outbox[game] = max(seq, self._outbox.get(game, 0))
                self._race_outbox |= races
                self._board_outbox |= boards
                self._outbox_ready.set()
                await asyncio.sleep(min(self.retry_first * 2**failures, self.retry_max))
                failures += 1

    # ------------------------------------------------------------ the broker (NATS)

    async def _listen_nats(self) -> None:
        """Wake-ups through the broker (service/live/broker.py): after each (re)connection
        the sweep catches up from the log."""
        assert self._broker is not None

        def heard(payload: str) -> None:
            self._notified(None, 0, "", payload)

        async def back() -> None:
            self.connects += 1
            self.listening.set()
            await self.sweep()

        async def gone() -> None:
            self.listening.clear()

        await self._broker.listen(heard, back, gone)

    # ------------------------------------------------------------ the listening connection

    async def _listen(self) -> None:
        failures = 0  # in a row: the wait before the next attempt doubles with each
        while True:
            conn: asyncpg.Connection | None = None
            try:
                conn = await asyncpg.connect(
                    self.dsn, timeout=10,
                    server_settings={"application_name": APPLICATION_NAME},
                )
                lost = asyncio.Event()
                conn.add_termination_listener(lambda _c, ev=lost: ev.set())
                self.beats.reconnected()
                await conn.add_listener(CHANNEL, self._notified)
                self.connects += 1
                self.listening.set()
                self.beats.now.set()
                failures = 0
                if self.connects > 1:
                    log.info("stream: listening again; catching up from the log")
                # whatever was committed while nobody listened is in the log
                await self.sweep()
                while not lost.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), self.check_every)
                    if not lost.is_set():
                        # a dead peer shows here; LISTEN again is a no-op on a live one
                        await conn.execute(f'LISTEN "{CHANNEL}"', timeout=self.check_every)
                log.warning("stream: the listening connection was closed")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # (a try each 0.5 s at most: not each one a warning)
                log.log(repeated_level(failures), "stream: listening failed: %r", exc)
            finally:
                self.listening.clear()
                if conn is not None:
                    conn.terminate()
            delay = min(self.retry_first * 2**failures, self.retry_max)
            failures += 1
            log.debug("stream: listening again in %.1f s", delay)
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))

    async def _send_beat(self, line: str) -> None:
        async with self.store.connection() as conn:
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{self.sender}\n{line}")


async def _nothing() -> None:
    pass


HUB_KEY = web.AppKey("stream_hub", StreamHub)
# the open live-event sockets and their subscriptions, closed on shutdown
STREAMS_KEY = web.AppKey("open_streams", dict[web.WebSocketResponse, Subscription])
