"""The faults tests' own fixtures (their helpers are in helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.database.embedded import EmbeddedPostgres

from .helpers import private_postgres


@pytest.fixture
def own_postgres() -> Iterator[EmbeddedPostgres]:
    """A PostgreSQL of the test's own, which it may stop, kill or freeze."""
    with private_postgres() as pg:
        yield pg
