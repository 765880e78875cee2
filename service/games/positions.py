"""Where games are kept, and how fresh a copy is: memory is a cache, the log is the truth.

This instance keeps games (service/games/live_game.py: LiveGame) by (game id, version) in
``backend.games`` (service/base/backend.py: GameCache), which only moves forward, so a
read that raced a write never puts an older copy back. :func:`fresh` gives the game in
one call: memory's copy when that is fresh enough for the caller (a write judges on it,
and judges again on the log before it refuses: service/games/write.py), else the log's
latest, in one round trip: what memory holds plus any events appended since. A game's
whole log is read by one request at a time: forty reads at once of a long game memory does
not hold are one replay and thirty-nine reads of what followed it.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable
from typing import Any

from service.base.backend import Backend
from service.base.errors import NotFound
from service.database.connections import DatabaseUnavailable, current_budget
from service.games.live_game import LiveGame, caught_up_slices


def lock(backend: Backend, game_id: uuid.UUID) -> asyncio.Lock:
    """The lock of the game's writes on this instance: one judged and written at a time
    (another instance's write meets the log's key instead: service/games/write.py)."""
    held = backend.locks.get(game_id)
    if held is None:
        if len(backend.locks) > 4 * backend.games.capacity:
            backend.locks = {k: v for k, v in backend.locks.items() if v.locked()}
        held = backend.locks[game_id] = asyncio.Lock()
    return held


async def taken(backend: Backend, game_id: uuid.UUID) -> asyncio.Lock:
    """The game's lock (:func:`lock`), acquired (the caller releases it), the wait for it
    taken from the request's budget as a wait for the database is: the writes before it
    wait for the database, and while that hangs a write queued behind five others still
    answers within DB_TIMEOUT."""
    held = lock(backend, game_id)
    # (free, and no one waiting: taken at once. Right after a release, a waiter that was
    # woken but has not run yet still comes first, so acquire() would wait, unbounded)
    if not held.locked() and not getattr(held, "_waiters", None):
        await held.acquire()
    else:
        await _waited(
            held.acquire(),
            "this game's earlier writes on this instance are still waiting for the database",
        )
    return held


async def _waited(turn: Awaitable[Any], refusal: str) -> None:
    """Wait for `turn`, a wait behind others who wait for the database, taken from the
    request's budget as a wait for the database is (503 `refusal` once it is spent)."""
    if (budget := current_budget()) is None:
        await turn
        return
    start = time.monotonic()
    try:
        async with asyncio.timeout(max(budget.left, 0)):
            await turn
    except TimeoutError:
        raise DatabaseUnavailable(refusal) from None
    finally:
        budget.spend(start)


async def fresh(backend: Backend, game_id: uuid.UUID, from_log: bool = False) -> LiveGame:
    """The game: memory's copy (which may be stale) unless `from_log`, memory has none or
    another instance has announced a later seq; else the log's now, memory's copy caught
    up with the events appended since it (a write then does not meet the log's key)."""
    held = backend.games.get(game_id)
    if held is None and (replay := backend.replays.get(game_id)) is not None:
        # another request is reading the whole log: wait for it (from this request's
        # budget), then read what follows memory's copy (not its answer, which may come
        # from before this request's time)
        await _waited(asyncio.shield(replay), "this game's log is still being read")
        held = backend.games.get(game_id)
    if held is not None and not from_log and not announced_past(backend, game_id, held.version):
        return held  # type: ignore[no-any-return]
    if held is None:
        return await _replayed(backend, game_id)
    return await _read(backend, game_id, held)


async def _replayed(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    """The game's whole log read and replayed, by one request at a time (the others who
    need the game meanwhile wait for it: :func:`fresh`; after a read that failed, each
    reads it, in turn), and a few games' at a time: the event loop is not handed the rows
    of forty long logs at once, and other requests are answered between them."""
    replay = backend.replays.get(game_id)
    mine = replay is None
    if replay is None:
        backend.replays[game_id] = replay = asyncio.get_running_loop().create_future()
    try:
        await _waited(backend.whole_reads.acquire(), "other games' logs are still being read")
        try:
            return await _read(backend, game_id, None)
        finally:
            backend.whole_reads.release()
    finally:
        if mine:
            del backend.replays[game_id]
            replay.set_result(None)


async def _read(backend: Backend, game_id: uuid.UUID, held: LiveGame | None) -> LiveGame:
    """The game as the log has it now: `held`, memory's copy, caught up with the events
    since it, or with `held` None the whole log replayed."""
    epoch = backend.epoch()
    base = held
    while True:
        # (from memory's last event on: a log that does not hold it, a database restored
        # from before it, is replayed whole, not judged on memory's copy that is ahead)
        after = 0 if base is None else base.version - 1
        newer = await backend.store.read_events(game_id, after=after)
        if base is None:
            break
        if newer and newer[0].seq == base.version:
            newer = newer[1:]
            break
        base = None  # the log does not go on from memory's copy: replay it whole
        backend.games.drop(game_id)  # (and keep that, though older than memory's)
    if base is None:
        backend.logs_replayed += 1
    if base is None and not newer:
        raise NotFound(f"there is no game with id {game_id}")
    live = base
    if newer:
        live = await caught_up_slices(base, newer)
    assert live is not None
    # the log's latest under the listener's epoch, taken before the round trip that said
    # so, unless another instance announced more meanwhile (see known_version)
    if not announced_past(backend, game_id, live.version):
        live.epoch = epoch
    return live if live is base else backend.games.put(game_id, live)  # type: ignore[no-any-return]


async def load(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    """The game from memory, or from its log when memory has none (may be stale: writes
    judge by the log before they refuse)."""
    return await fresh(backend, game_id)


async def current(backend: Backend, game_id: uuid.UUID) -> LiveGame:
    """The game as the log has it now (one round trip)."""
    return await fresh(backend, game_id, from_log=True)


def known_version(backend: Backend, game_id: uuid.UUID) -> int | None:
    """The game's version as the log has it now, known without asking the log, or None.

    Known when memory's copy was read from the log (or written to it by this instance)
    while the live-event listener was connected, the listener has stayed connected since,
    and no other instance has announced a later seq: every commit of every instance is
    announced to the others (through PostgreSQL by a NOTIFY in the write's own
    transaction, sent to every listener at the commit, before the writer answers; through
    the broker right after the commit), so the answer is behind a write of another
    instance only while that news is on its way. A listener that
    lost its connection, or was never connected, knows nothing. Nor is a race's game ever
    known: the race's end abandons its games in the database (race_end), announced as the
    race's, not the games'."""
    live = backend.games.get(game_id)
    if live is None or live.epoch is None or live.epoch != backend.epoch():
        return None
    if live.race_id is not None:
        return None
    if announced_past(backend, game_id, live.version):
        return None
    return live.version  # type: ignore[no-any-return]


def announced_past(backend: Backend, game_id: uuid.UUID, version: int) -> bool:
    """Whether another instance has announced a seq of the game past `version`."""
    return (backend.announced.get(game_id) or 0) > version


def announce(backend: Backend, game_id: uuid.UUID, seq: int) -> None:
    """Another instance says the game's log reaches `seq` (the live-event hub's
    on_game): a copy in memory behind it is no longer known to be current, nor one being
    read from the log meanwhile (fresh, settled)."""
    if seq > (backend.announced.get(game_id) or 0):
        backend.announced[game_id] = seq
    held = backend.games.get(game_id)
    if held is not None and held.version < seq:
        held.epoch = None


def settled(
    backend: Backend,
    game_id: uuid.UUID,
    live: LiveGame | None,
    epoch: int | None,
    won: tuple[str, int] | None = None,
    race_id: uuid.UUID | None = None,
) -> None:
    """After a write of this instance: keep `live`, the game as the write committed it
    (the log's latest under the listener's `epoch`, taken before the commit, unless
    another instance announced more since), and tell this instance's live streams; or,
    with `live` None (the outcome unknown, or the race ended by the write),
    forget memory's copy: the next read is the log's. A win (`won`: its variant and deal)
    changed the deal's boards, or may have: their pages in memory are told, here and on
    the other instances (service/boards/known.py); a race's game wakes the race's feeds."""
    if live is None:
        backend.games.drop(game_id)
    else:
        if not announced_past(backend, game_id, live.version):
            live.epoch = epoch
        backend.games.put(game_id, live)
        backend.committed(game_id, live.version)
    if won is not None:
        backend.board_changed(*won, ours=True)
    if race_id is not None:
        backend.wake_race(race_id)
