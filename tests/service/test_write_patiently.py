"""A streamed answer's patience with its client (service/base/responses.py,
write_patiently): a client that takes none of what is held back for SEND_TIMEOUT_S is cut
off; one that takes some, however slowly, is waited for, however long a write takes. (The
whole export, 13 MB read at 170 KB/s with SEND_TIMEOUT_S=2 through a real socket, came
through in 78 s; cut off after 4 MB when each write had the patience to itself.)"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from service.base.responses import write_patiently


class Transport:
    """What write_patiently reads of a transport: the bytes it holds back."""

    def __init__(self, held: int) -> None:
        self.held = held

    def get_write_buffer_size(self) -> int:
        return self.held

    def get_extra_info(self, name: str) -> Any:
        return None


class Response:
    """A response whose write waits `takes` seconds (its client's buffers full), while
    the client takes `per_step` bytes of what is held back every 0.05 s."""

    def __init__(self, transport: Transport, takes: float, per_step: int) -> None:
        self.transport, self.takes, self.per_step = transport, takes, per_step

    async def write(self, chunk: bytes) -> None:
        done = time.monotonic() + self.takes
        while time.monotonic() < done:
            await asyncio.sleep(0.05)
            self.transport.held = max(0, self.transport.held - self.per_step)


class Request:
    def __init__(self, transport: Transport) -> None:
        self.transport = transport


async def test_a_client_taking_some_is_waited_for_past_the_patience() -> None:
    transport = Transport(held=1_000_000)
    response = Response(transport, takes=1.0, per_step=1000)  # (ten times the patience)
    await write_patiently(Request(transport), response, b"x", 0.1)  # type: ignore[arg-type]


async def test_a_client_taking_none_is_cut_off_after_the_patience() -> None:
    transport = Transport(held=1_000_000)
    response = Response(transport, takes=10.0, per_step=0)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await write_patiently(Request(transport), response, b"x", 0.2)  # type: ignore[arg-type]
    assert 0.2 <= time.monotonic() - started < 1.0
