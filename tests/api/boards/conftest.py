"""Fixtures of the board tests: the event store on the test's database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from service.database.connections import create_pool
from service.database.store import EventStore


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[EventStore]:
    pool = await create_pool(db_url, 1, 2)
    yield EventStore(pool)
    await pool.close()
