"""Races: several players, one deal, one clock (API.md, "Races").

A race is its own event log (`race_events`: RaceCreated, PlayerJoined, RaceStarted,
Progress, PlayerFinished, RaceEnded) kept by PL/pgSQL functions (migrations/sql/, from
0006_races.sql on: docs/operations.md lists where each function's current body is); a
write to a race's game appends the race's events in its own transaction (record_events).
Here: the service functions on plain values.

The race starts at `starts_at` and ends at `ends_at` without anyone asking: every race
endpoint settles a race that is due before answering, each instance's clock task (`tick`)
settles the due ones every RACE_TICK_S seconds, and a write to one of its games at or
after `ends_at` is refused by record_events, which ends the race then if nobody has.
Each step is one statement on the race's row that only an open (running) race whose time
has come passes, so however many instances ask, a race starts and ends once.
"""

from __future__ import annotations

import uuid
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import Any, Final

from engine import Game
from service.base.backend import Backend
from service.base.errors import Conflict, Forbidden, NotFound, RaceOver
from service.base.once import once, same_request
from service.base.requests import EVENTS_PAGE, Idempotency
from service.database.connections import DatabaseUnavailable, json_text, transaction
from service.database.store import StoredEvent
from service.deals.numbers import checked_deal, random_deal
from service.games.views import event_view
from service.players.accounts import Player

RACE_COLUMNS: Final = (
    "id, variant, deal, autoplay, status, max_players, version, created_at, starts_at,"
    " ends_at, started_at, ended_at"
)
# a race's state, with whether a step of it is due by the database's clock
RACE_SQL: Final = (
    f"SELECT {RACE_COLUMNS},"
    " status = 'open' AND starts_at <= clock_timestamp() AS start_due,"
    " status = 'running' AND ends_at <= clock_timestamp() AS end_due"
    " FROM races WHERE id = $1"
)
PLAYERS_SQL: Final = (
    "SELECT p.player_id, pl.name, g.id AS game_id, g.status, g.moves, g.foundation_cards,"
    # (`verified`: a win at a hand's pace, as its boards judged it, migration 0033)
    " g.elapsed_ms, k.rank, g.verified"
    " FROM race_players p JOIN players pl ON pl.id = p.player_id"
    " LEFT JOIN games g ON g.race_id = p.race_id AND g.player_id = p.player_id"
    " LEFT JOIN race_ranking(p.race_id) k ON k.player_id = p.player_id"
    # ranked as RaceEnded lists them (equal ranks by player id), the others as they joined
    " WHERE p.race_id = $1 ORDER BY k.rank NULLS LAST,"
    " CASE WHEN k.rank IS NULL THEN p.joined_at END, p.player_id"
)
DUE_SQL: Final = (
    "SELECT id FROM races WHERE (status = 'open' AND starts_at <= clock_timestamp())"
    " OR (status = 'running' AND ends_at <= clock_timestamp()) ORDER BY starts_at LIMIT 100"
)
# a running race on a game's deal in which the game's player races (or, with $2, an open
# one they created on it)
RACE_OF_GAMES_PLAYER_SQL: Final = (
    "SELECT r.id FROM games g JOIN race_players p ON p.player_id = g.player_id"
    " JOIN races r ON r.id = p.race_id AND r.variant = g.variant AND r.deal = g.deal"
    " WHERE g.id = $1 AND (r.status = 'running' OR (r.status = 'open'"
    "  AND (r.starts_at <= clock_timestamp() OR ($2 AND r.creator_id = g.player_id))))"
    " LIMIT 1"
)
JOIN_REFUSALS: Final = {
    "started": "the race has started (or is over): join a race before its start",
    "full": "the race is full",
}


# a race made under an Idempotency-Key: the key's record names it (the player's keys)
KEEP_RACE_KEY: Final = """
INSERT INTO idempotency_keys (player_id, key, request_hash, status, response, created_at)
VALUES ($1, $2, $3, 201, $4, clock_timestamp())"""


async def create_race(
    backend: Backend,
    player: Player,
    variant: str,
    deal: int | None,
    autoplay: bool,
    starts_in_s: float,
    max_players: int,
    length_s: float,
    idem: Idempotency | None = None,
) -> tuple[dict[str, Any], bool]:
    """A new race, its creator joined; `deal` None: a random solvable deal at the start.
    Under an Idempotency-Key, a retry gets the race the first request made, as it is now
    (and True: replayed); nothing more is made."""
    if deal is not None:
        checked_deal(variant, deal)

    async def made() -> uuid.UUID | None:
        """The race the key's first request made, if it was made."""
        assert idem is not None
        found = await backend.store.find_key(player.id, idem.key)
        if found is None:
            return None
        same_request(idem, found.request_hash)
        return uuid.UUID(found.response["race_id"])

    async def make() -> uuid.UUID:
        race_id = uuid.uuid4()
        timeout = backend.store.timeout
        async with backend.store.connection() as conn, (
            nullcontext() if idem is None else transaction(conn, timeout)
        ):
            await conn.execute(
                "SELECT race_create($1, $2, $3, $4, $5, $6, $7, $8)",
                race_id, player.id, variant, deal, autoplay, max_players, starts_in_s, length_s,
                timeout=timeout,
            )
            if idem is not None:
                await conn.execute(
                    KEEP_RACE_KEY, player.id, idem.key, idem.request_hash,
                    json_text({"race_id": str(race_id)}), timeout=timeout,
                )
        return race_id

    race_id, replayed = await once(None if idem is None else made, make)
    return await get_race(backend, race_id), replayed


async def join_race(backend: Backend, race_id: uuid.UUID, player: Player) -> dict[str, Any]:
    await settle(backend, race_id)
    async with backend.store.connection() as conn:
        outcome: str = await conn.fetchval(
            "SELECT race_join($1, $2)", race_id, player.id, timeout=backend.store.timeout
        )
    if outcome == "unknown":
        raise NotFound(f"there is no race with id {race_id}")
    if outcome in JOIN_REFUSALS:
        raise Conflict(JOIN_REFUSALS[outcome])
    backend.wake_race(race_id)  # PlayerJoined, unless the player was in already
    return await get_race(backend, race_id)


async def settle(backend: Backend, race_id: uuid.UUID) -> dict[str, Any]:
    """The race's row, after starting or ending it when its time has come."""
    race = await _race_row(backend, race_id)
    if race["start_due"]:
        if await _start(backend, race):
            backend.wake_race(race_id)
    elif race["end_due"]:
        if await _end(backend, race_id):
            backend.wake_race(race_id)
    else:
        return race
    return await _race_row(backend, race_id)


async def _race_row(backend: Backend, race_id: uuid.UUID) -> dict[str, Any]:
    async with backend.store.connection() as conn:
        row = await conn.fetchrow(RACE_SQL, race_id, timeout=backend.store.timeout)
    if row is None:
        raise NotFound(f"there is no race with id {race_id}")
    return dict(row)


async def _start(backend: Backend, race: dict[str, Any]) -> bool:
    """Every player's game of the deal (drawn now among solvable deals when the race has
    none), the clocks at starts_at: once, whoever else tries at the same time."""
    deal = race["deal"] if race["deal"] is not None else random_deal(race["variant"])
    game, events = Game.new(race["variant"], deal, race["autoplay"])
    async with backend.store.connection() as conn:
        started: bool = await conn.fetchval(
            "SELECT race_start($1, $2, $3, $4, $5, $6, $7, $8)",
            race["id"], deal, [{"type": e.type, "data": e.data} for e in events],
            game.status, game.moves, game.undos, game.hints, game.position.foundation_cards,
            timeout=backend.store.timeout,
        )
    return started


async def _end(backend: Backend, race_id: uuid.UUID) -> bool:
    """The games still in play abandoned, then RaceEnded: once."""
    async with backend.store.connection() as conn:
        ended: bool = await conn.fetchval(
            "SELECT race_end($1)", race_id, timeout=backend.store.timeout
        )
    if ended:
        await games_ended(backend, race_id)
    return ended


async def games_ended(backend: Backend, race_id: uuid.UUID) -> None:
    """The race's end abandoned its games still in play (race_end), a commit that told no
    one: the games' streams, here and on the other instances, are told now, as after a
    write (a stream not told, if the database cannot say, has it at its next sweep)."""
    try:
        async with backend.store.connection() as conn:
            games = await conn.fetch(
                "SELECT id, version FROM games WHERE race_id = $1", race_id,
                timeout=backend.store.timeout,
            )
    except DatabaseUnavailable:
        return
    for game in games:
        backend.committed_untold(game["id"], game["version"])


async def over_if_ended(backend: Backend, race_id: uuid.UUID) -> RaceOver | None:
    """The refusal of a write to one of the race's games when the race is over: ended
    before its time (every game over), or its end passed by the database's clock; else
    None."""
    async with backend.store.connection() as conn:
        ended_at: datetime | None = await conn.fetchval(
            "SELECT least(ends_at, ended_at) FROM races WHERE id = $1"
            " AND (ended_at IS NOT NULL OR ends_at <= clock_timestamp())",
            race_id, timeout=backend.store.timeout,
        )
    return None if ended_at is None else over(race_id, ended_at)


def over(race_id: uuid.UUID, ended_at: datetime) -> RaceOver:
    """The refusal of a write to one of the race's games after the race's end, which was
    at `ended_at` (its ends_at, or earlier when every game was over before)."""
    return RaceOver(
        f"race {race_id} ended at {ended_at.isoformat()}: no move is taken after a race's"
        " end (a game still in play at its ends_at is abandoned then)",
        race_id=str(race_id), ended_at=ended_at.isoformat(),
    )


async def tick(backend: Backend) -> int:
    """Start and end the races whose time has come; how many were due."""
    async with backend.store.connection() as conn:
        due = [r["id"] for r in await conn.fetch(DUE_SQL, timeout=backend.store.timeout)]
    for race_id in due:
        await settle(backend, race_id)
    return len(due)


async def refuse_while_its_player_races(
    backend: Backend, game_id: uuid.UUID, what: str, *, read_by_anyone: bool = False
) -> None:
    """Forbidden when the game's player races on its deal (its variant and number) in a
    running race (one whose start has come, even if no clock has started it yet): `what`
    (hints, analyses) of any game of theirs would help them there. Before the start, only
    the race's creator, who chose the deal, is refused, and only what they ask of their own
    games (a hint recorded on one, not `read_by_anyone`): the others are not shown the deal
    until the start, and a refusal anyone may read (a hint or an analysis of the creator's
    finished games) would tell them. One query, which needs no replay of the game."""
    async with backend.store.connection() as conn:
        race: uuid.UUID | None = await conn.fetchval(
            RACE_OF_GAMES_PLAYER_SQL, game_id, not read_by_anyone,
            timeout=backend.store.timeout,
        )
    if race is not None:
        raise Forbidden(
            f"the game's player races on this deal in race {race}: {what} of their games"
            " of the deal are refused until the race is over"
        )


async def get_race(backend: Backend, race_id: uuid.UUID) -> dict[str, Any]:
    race = await settle(backend, race_id)
    async with backend.store.connection() as conn:
        players = await conn.fetch(PLAYERS_SQL, race_id, timeout=backend.store.timeout)
    return race_view(race, [dict(p) for p in players])


def race_view(race: dict[str, Any], players: list[dict[str, Any]]) -> dict[str, Any]:
    """The race as API.md shows it: the deal only once it has started. (asyncpg's ids are
    its own UUID type, which orjson does not take: they go out as text.)"""
    return {
        "id": str(race["id"]),
        "variant": race["variant"],
        "autoplay": race["autoplay"],
        "status": race["status"],
        "created_at": race["created_at"],
        "starts_at": race["starts_at"],
        "ends_at": race["ends_at"],
        "started_at": race["started_at"],
        "ended_at": race["ended_at"],
        "deal": None if race["status"] == "open" else race["deal"],
        "max_players": race["max_players"],
        "version": race["version"],
        "players": [
            {
                "player": {"id": str(p["player_id"]), "name": p["name"]},
                "game_id": None if p["game_id"] is None else str(p["game_id"]),
                "status": p["status"],
                "moves": p["moves"] or 0,
                "foundation_cards": p["foundation_cards"] or 0,
                "elapsed_ms": p["elapsed_ms"],
                "rank": p["rank"],
                "verified": p["verified"],
            }
            for p in players
        ],
    }


async def read_events(
    backend: Backend, race_id: uuid.UUID, after: int, limit: int
) -> list[StoredEvent]:
    """The race's events with seq > after, oldest first."""
    async with backend.store.connection() as conn:
        rows = await conn.fetch(
            "SELECT seq, type, data, at FROM race_events WHERE race_id = $1 AND seq > $2"
            " ORDER BY seq LIMIT $3",
            race_id, after, limit, timeout=backend.store.timeout,
        )
    return [StoredEvent(r["seq"], r["type"], _timed(r["data"]), r["at"]) for r in rows]


_TIMES: Final = ("starts_at", "ends_at")  # the times a race's events carry in their data


def _timed(data: dict[str, Any]) -> dict[str, Any]:
    """An event's data with its times written as the API writes every time, in UTC with
    microseconds: PostgreSQL wrote them into the log's jsonb without trailing zeros."""
    times = [name for name in _TIMES if isinstance(data.get(name), str)]
    if not times:
        return data
    return {**data, **{name: datetime.fromisoformat(data[name]).astimezone(UTC).isoformat(
        timespec="microseconds") for name in times}}  # fmt: skip


async def versions(backend: Backend, race_ids: list[uuid.UUID]) -> dict[uuid.UUID, int]:
    """The seq of the last event of each of these races' logs, in one round trip; unknown
    ids are left out."""
    async with backend.store.connection() as conn:
        rows = await conn.fetch(
            "SELECT id, version FROM races WHERE id = ANY($1::uuid[])", race_ids,
            timeout=backend.store.timeout,
        )  # fmt: skip
    return {r["id"]: r["version"] for r in rows}


async def events_page(
    backend: Backend, race_id: uuid.UUID, after: int, limit: int | None
) -> tuple[dict[str, Any], int]:
    """One page of the race's log after `after`, oldest first, shaped as a game's
    (queries.read_events): `next` is the `after` of the next page, null when this one
    reaches the end. With it, the race's version the page was read at: the page holds no
    event past it, so the version, `after` and `limit` name the answer (its ETag)."""
    limit = min(limit or EVENTS_PAGE, EVENTS_PAGE)
    race = await settle(backend, race_id)  # 404 for an unknown race; a due step first
    version: int = race["version"]
    page: list[StoredEvent] = []
    if after < version:  # seqs run from 1 without gap: up to the version, no further
        page = await read_events(backend, race_id, after, min(limit, version - after))
    more = bool(page) and page[-1].seq < version
    body = {"events": [event_view(e) for e in page], "next": page[-1].seq if more else None}
    return body, version
