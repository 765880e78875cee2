"""What the store's tests share: a store on the test's database, a player, a write's
arguments."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from service.database.connections import create_pool
from service.database.store import EventStore


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[EventStore]:
    pool = await create_pool(db_url, 1, 4)
    yield EventStore(pool)
    await pool.close()


async def insert_player(store: EventStore, player_id: uuid.UUID, name: str) -> None:
    """A player as the tests of the store and the boards need one: its row alone."""
    async with store.connection() as conn:
        await player_row(conn, player_id, name)


async def player_row(conn: asyncpg.Connection, player_id: uuid.UUID, name: str) -> None:
    """A player's row as the schema of the moment takes it, with keys of its own in the
    key columns it has (a new player's keys are never NULL from migration 0026 on; these
    tests give several players one name)."""
    keys = [r["column_name"] for r in await conn.fetch(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'players'"
        " AND column_name IN ('name_key', 'shape_key', 'glyph_key')")]  # fmt: skip
    columns = ", ".join(["id", "name", "token_hash", *keys])
    values = ", ".join(["$1", "$2", "$3", *["$4"] * len(keys)])
    await conn.execute(f"INSERT INTO players ({columns}) VALUES ({values})", player_id, name,
                       player_id.bytes, *([f"test {player_id}"] if keys else []))  # fmt: skip


async def new_player(store: EventStore) -> uuid.UUID:
    pid = uuid.uuid4()
    await insert_player(store, pid, "ada")
    return pid


def write_args(game_id: uuid.UUID, player: uuid.UUID, first_seq: int, n: int, **kw: object) -> dict:  # type: ignore[type-arg]
    base = dict(
        game_id=game_id,
        first_seq=first_seq,
        events=[{"type": "CardMoved", "data": {"i": first_seq + i}} for i in range(n)],
        player_id=player,
        variant="freecell",
        deal=1,
        autoplay=True,
        status="playing",
        moves=first_seq,
        undos=0,
        hints=0,
        foundation_cards=0,
        finish="none",
    )
    base.update(kw)
    return base
