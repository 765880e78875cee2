"""The broker: with EVENTS_BROKER set, the instances' wake-up lines (what each says is in
service/live/hub.py) go through NATS on one subject instead of PostgreSQL's
LISTEN/NOTIFY. The client reconnects by itself; the hub catches up from the log after each
(re)connection, so a line lost while the broker was away delays events, never loses them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from service.database.statements import payloads

log = logging.getLogger("service.stream")

SUBJECT = "solitaire.game_events"


class Broker:
    """One instance's connection to NATS: it publishes the instance's lines and hands the
    others' to `heard`."""

    def __init__(self, url: str, name: str, sender: str, retry_first: float,
                 retry_max: float) -> None:  # fmt: skip
        self.url, self.name, self.sender = url, name, sender
        self.retry_first, self.retry_max = retry_first, retry_max
        self._nats: Any = None

    async def listen(
        self,
        heard: Callable[[str], None],
        back: Callable[[], Awaitable[None]],
        gone: Callable[[], Awaitable[None]],
    ) -> None:
        """Connect (trying again until it can), subscribe and call `back`; then `heard`
        for each payload, `gone` and `back` as the client loses and finds the broker."""
        import nats

        async def message(msg: Any) -> None:
            heard(msg.data.decode())

        async def reconnected() -> None:
            log.info("stream: the broker is back; catching up from the log")
            await back()

        async def disconnected() -> None:
            log.warning("stream: the broker connection was lost")
            await gone()

        failures = 0
        while self._nats is None:
            try:
                self._nats = await nats.connect(
                    self.url, name=self.name, max_reconnect_attempts=-1,
                    reconnect_time_wait=self.retry_first, connect_timeout=5,
                    reconnected_cb=reconnected, disconnected_cb=disconnected,
                    allow_reconnect=True,
                    # this instance woke its own feeds at the commit: its own publishes
                    # coming back would only wake them again, for a read that finds nothing
                    no_echo=True,
                )  # fmt: skip
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                delay = min(self.retry_first * 2**failures, self.retry_max)
                failures += 1
                log.warning("stream: broker unreachable (%s); again in %.1f s", exc, delay)
                await asyncio.sleep(delay)
        await self._nats.subscribe(SUBJECT, cb=message)
        await back()
        await asyncio.Event().wait()  # the client runs by itself until close()

    async def publish(self, lines: list[str]) -> None:
        """The lines sent to the other instances, after this instance's name; a
        ConnectionError while the broker is away."""
        if self._nats is None or not self._nats.is_connected:
            raise ConnectionError("not connected to the broker")
        for payload in payloads(self.sender, lines):
            await self._nats.publish(SUBJECT, payload.encode())

    async def close(self) -> None:
        if self._nats is not None:
            with contextlib.suppress(Exception):
                await self._nats.close()
            self._nats = None
