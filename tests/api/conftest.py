"""Fixtures of the API tests (their helpers: helpers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient

from .helpers import instance


@pytest.fixture
async def two(db_url: str) -> AsyncIterator[tuple[TestClient, TestClient]]:
    a, b = instance(db_url), instance(db_url)
    async with a, b:
        yield a, b
