"""What the store's tests share: a store on the test's database, a player, a write's
arguments."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from service.database.connections import create_pool
from service.database.store import EventStore


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[EventStore]:
    pool = await create_pool(db_url, 1, 4)
    yield EventStore(pool)
    await pool.close()


async def new_player(store: EventStore) -> uuid.UUID:
    pid = uuid.uuid4()
    await store.create_player(pid, "ada", uuid.uuid4().bytes)
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
