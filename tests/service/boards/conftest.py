"""Fixtures of the board tests: a Backend on the test's database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from service.base.backend import Backend, GameCache
from service.database.connections import create_pool
from service.database.store import EventStore


@pytest.fixture
async def backend(db_url: str) -> AsyncIterator[Backend]:
    pool = await create_pool(db_url, 1, 4)
    yield Backend(store=EventStore(pool), games=GameCache(100))
    await pool.close()
