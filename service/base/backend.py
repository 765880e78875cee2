"""What the service functions run against: the :class:`Backend`.

It is not a unit of work: a write's transaction is one call of the PL/pgSQL function
``record_events`` (service/database/store.py), which commits or not by itself; nothing here begins
or commits anything.  The backend holds what the functions share: the event store, the
positions kept in memory by (game id, version), the players' tokens in memory, a lock per
game and the callback told of every commit."""

from __future__ import annotations

import asyncio
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from service.database.store import EventStore

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """A mapping that keeps at most `capacity` items, dropping the least recently used."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)


class Versioned(Protocol):
    """What says its version: copies of one game are ordered by it."""

    @property
    def version(self) -> int: ...


G = TypeVar("G", bound=Versioned)


class GameCache(Lru[uuid.UUID, G]):
    """Games by id, the least recently used dropped first, that only move forward: a put
    never replaces a copy with an older version (a read that raced a write keeps the
    write's). What a game is, the games package says (service/games/positions.py)."""

    def put(self, game_id: uuid.UUID, game: G) -> G:
        """Keep `game` unless a newer version is kept already; returns the one kept."""
        held = self.get(game_id)
        if held is not None and held.version > game.version:
            return held
        self[game_id] = game
        return game

    def drop(self, game_id: uuid.UUID) -> None:
        self.pop(game_id)


async def _nothing(_digest: bytes) -> None:
    pass


async def _never(_since: float) -> bool:
    return False


@dataclass
class Backend:
    """The event store and this instance's memory (caches, locks), passed to every service
    function (the handlers find it under ``BACKEND_KEY``)."""

    store: EventStore
    # the games in memory, as the games package keeps them (service/games/positions.py)
    games: GameCache[Any]
    # players by their token's hash, the most recently used ones, each with the time it
    # was last checked against the database (service/players/accounts.py: CachedToken);
    # create_app sizes it by CACHE_TOKENS, the default here is for tests' own backends
    players: Lru[bytes, Any] = field(default_factory=lambda: Lru(100_000))
    # told the hash of a token this instance signed out, once committed: the live-event
    # hub passes it on through the broker (through PostgreSQL, the statement did)
    token_signed_out: Callable[[bytes], Awaitable[None]] = field(default=_nothing)
    # the most events one game's log may hold (a write past it is refused; abandoning is not)
    max_game_events: int = 5000
    # told (game id, last seq) after every commit of this instance: live streams listen
    committed: Callable[[uuid.UUID, int], None] = field(default=lambda _game, _seq: None)
    # told (game id, last seq) after a commit of this instance that its statement did not
    # announce to the other instances (a race's end abandoning its games): the live-event
    # hub wakes this instance's streams and tells the others
    committed_untold: Callable[[uuid.UUID, int], None] = field(default=lambda _game, _seq: None)
    # the race feeds of this instance, by race (service/races/feeds.py): a commit to a
    # race's log wakes its feed, which reads the log only when woken (or swept)
    race_feeds: dict[uuid.UUID, Any] = field(default_factory=dict)
    # told the race after every commit of this instance to the race's log: the live-event
    # hub passes it on to the other instances (LISTEN/NOTIFY or the broker)
    race_committed: Callable[[uuid.UUID], None] = field(default=lambda _race: None)
    # the lock of each game's writes on this instance (service/games/positions.py: lock)
    locks: dict[uuid.UUID, asyncio.Lock] = field(default_factory=dict)
    # the games whose whole log this instance is reading, each done when read: the others
    # who need the game meanwhile wait for it, then read what follows (positions.fresh)
    replays: dict[uuid.UUID, asyncio.Future[None]] = field(default_factory=dict)
    # held by each read of a game's whole log (positions.fresh): two at a time
    whole_reads: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(2))
    # held by each read of a page of a live stream's log (service/live/sockets.py,
    # in_turn), a few at a time, so that streams opened by the dozen at once leave most of
    # the pool to the other requests, which would otherwise wait for a connection behind
    # every page of theirs (create_app sizes it by POOL_MAX: stream_read_turns)
    stream_reads: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(2))
    # the games read whole from their log since this instance began, found or not (/metrics)
    logs_replayed: int = 0
    # the live-event listener's connection now (a number that changes with every connection
    # and loss of it), None while it is not listening: what memory was confirmed under
    # holds only while it stays the same (service/games/positions.py: known_version)
    epoch: Callable[[], int | None] = field(default=lambda: None)
    # whether every other instance's commit made before a time.monotonic() has been heard
    # (the hub's beats: service/live/beats.py, Beats.caught_up): a 304 from memory waits
    # for it; none heard (the default): the log answers
    caught_up: Callable[[float], Awaitable[bool]] = field(default=_never)
    # whether no other instance shares the database (Beats.alone): caught_up at once
    alone: Callable[[], bool] = field(default=lambda: False)
    # the last seq that another instance announced for a game (its NOTIFY or broker
    # line): service/games/positions.py, announce and known_version
    announced: Lru[uuid.UUID, int] = field(default_factory=lambda: Lru(200_000))
    # the boards' pages this instance answered, as service/boards/known.py keeps them, and
    # how many times each deal's boards changed (a win here or announced) since it began
    boards: Lru[Any, Any] = field(default_factory=lambda: Lru(10_000))
    # the key that signs boards' cursors (service/boards/cursors.py), the same on every
    # instance (made from the link codes' key, LINK_CODE_KEY)
    cursor_key: bytes = b""
    board_changes: dict[tuple[str, int], int] = field(default_factory=dict)
    # told (variant, deal) after a win of this instance: the hub passes it on
    board_committed: Callable[[str, int], None] = field(default=lambda _variant, _deal: None)

    def board_changed(self, variant: str, deal: int, *, ours: bool = False) -> None:
        """The deal's boards changed, or may have (a win of this instance, `ours`, which
        the other instances are told of; or another instance's, announced): the pages of
        them in memory are no longer known current (service/boards/known.py)."""
        if len(self.board_changes) >= 100_000:  # forgotten together, never one without the other
            self.board_changes.clear()
            self.boards = Lru(self.boards.capacity)
        key = (variant, deal)
        self.board_changes[key] = self.board_changes.get(key, 0) + 1
        if ours:
            self.board_committed(variant, deal)

    def wake_race(self, race_id: uuid.UUID) -> None:
        """The race's log grew by a commit of this instance: its feed here reads now, and
        the other instances are told (their feeds read when told, or at their next sweep)."""
        self.wake_race_feed(race_id)
        self.race_committed(race_id)

    def wake_race_feed(self, race_id: uuid.UUID) -> None:
        """The race's feed on this instance, if any, reads the log now."""
        feed = self.race_feeds.get(race_id)
        if feed is not None:
            feed.wake.set()


def stream_read_turns(pool_max: int) -> int:
    """How many statements of live streams' catch-up may hold a pool connection at once
    (Backend.stream_reads): a quarter of the pool, at least 2 (and never more than half):
    the rows a page brings are decoded and sent on the event loop, so more at once would
    not send them sooner."""
    return max(1, min(pool_max // 2, max(2, pool_max // 4)))
