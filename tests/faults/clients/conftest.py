"""What the clients' fault tests share: the service as a process of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from ..helpers import ServiceProcess


@pytest.fixture
async def served(db_url: str, tmp_path: Path) -> AsyncIterator[ServiceProcess]:
    """`python -m service run`: aiohttp's server as the service runs it (the test
    client's is aiohttp's own, which answers its parser's refusals in plain text)."""
    svc = ServiceProcess(db_url, tmp_path / "service.log", SOLVER_PREFETCH="false",
                         CORS_ORIGINS="https://app.example", LOG_REQUESTS="true")  # fmt: skip
    try:
        svc.start()
        await svc.ready()
        yield svc
    finally:
        svc.stop()
