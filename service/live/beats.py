"""The listener's proof of life: a beat through the channel, heard back.

Memory answers for the log (a 304 from memory, a board's page) only while
this instance would have heard every other instance's commit: while its listening
connection is up. But a connection can stop delivering without closing (its server process
stuck, a half-open TCP connection, a NAT that silently drops an idle one), which the hub's
LISTEN probe notices only every `check_every` seconds. So each instance sends a beat, a
NOTIFY of its own on the channel, every BEAT_EVERY seconds (and at once on each new
connection), unless a write's payload carried one meanwhile (its statement's NOTIFY takes
one when none went for half that). PostgreSQL sends a listener its notifications in
commit order, so hearing
beat n back proves that every line committed before beat n was sent has been heard: the
hub vouches for memory (StreamHub.epoch) only while its latest proof is younger than
PROOF_FOR. A listener that hangs costs stale answers for PROOF_FOR at most, not until the
probe gives up on it.

The same order makes a 304 from memory exact beside other instances (`heard_since`): a
request that finds memory's tag current asks for a beat at once and answers from memory
only once a beat sent after it came is heard back, so every commit of another instance
acknowledged before the request was heard first (it would have made memory's copy
unknown). The requests that come while a beat is on its way share the next one.

The other instances' beats say who else shares the database: an instance whose listener
has been proven and has heard no other instance for ALONE_AFTER seconds is alone, and its
304s from memory wait for no beat (Beats.caught_up). A new instance answers nothing
before its first beat is heard back (StreamHub.start), by which time the others have heard
it too.

(Through the broker there are no beats: NATS does not send an instance its own messages,
and its client notices a dead connection by itself. Nor does anything prove there that
another instance's commits were heard: its news leaves after the commit, from a task of
the writer, lost when the writer dies first and late while the broker is away, so memory
vouches for no tag that another instance may change (broker_caught_up), and the log
answers those conditional GETs.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Final

BEAT_EVERY: Final = 0.5  # seconds between beats
PROOF_FOR: Final = 1.5  # seconds a beat heard back vouches for the listener
ALONE_AFTER: Final = 5.0  # seconds of a proven listener hearing no other instance
BEAT: Final = "beat"  # the line: 'beat <n>', after the instance's 'from <name>' line
CAUGHT_UP_WAIT: Final = 0.25  # seconds a 304 from memory waits for a beat, else the log answers

log = logging.getLogger("service.stream")


class Beats:
    """This instance's beats sent, and the latest heard back on the current connection."""

    def __init__(self, listening: asyncio.Event) -> None:
        self.listening = listening  # the hub's: set while its listener is connected
        self.now = asyncio.Event()  # set: the next beat goes at once (a new connection)
        self._n = 0
        self._sent: dict[int, float] = {}  # beat number -> time.monotonic() when sent
        self._proven_at = -math.inf  # when the latest beat heard back was sent
        self._last_sent = -math.inf  # when the latest beat was sent (alone or with a write)
        self._since = time.monotonic()  # when the current connection began listening
        self._other_at = -math.inf  # when another instance's line was last heard
        # (since, future) of those waiting for a beat sent at or after `since` (heard_since)
        self._waiting: list[tuple[float, asyncio.Future[bool]]] = []

    @property
    def sent(self) -> int:
        """The beats sent so far (each one its transaction, or a write's)."""
        return self._n

    def next(self) -> str:
        """The next beat's line, its time kept."""
        self._n += 1
        self._sent[self._n] = self._last_sent = time.monotonic()
        if len(self._sent) > 100:  # beats lost with a connection are never heard back
            self._sent.pop(next(iter(self._sent)))
        return f"{BEAT} {self._n}"

    def due(self) -> str | None:
        """A beat's line for a write's payload when none went for BEAT_EVERY / 2, else None."""
        return self.next() if time.monotonic() - self._last_sent >= BEAT_EVERY / 2 else None

    def heard(self, number: str) -> None:
        """A beat of this instance's came back."""
        sent = self._sent.pop(int(number), None) if number.isdigit() else None
        if sent is not None and sent > self._proven_at:
            self._proven_at = sent
            if self._waiting:
                waiting, self._waiting = self._waiting, []
                for since, done in waiting:
                    if since <= sent and not done.done():
                        done.set_result(True)
                    elif not done.done():
                        self._waiting.append((since, done))

    async def heard_since(self, since: float, wait: float) -> bool:
        """Whether a beat sent at or after `since` (a time.monotonic()) is heard back
        within `wait` seconds: then every line committed before `since` has been heard.
        The next beat goes at once (shared by all who wait for it meanwhile)."""
        if self._proven_at >= since:
            return True
        done = asyncio.get_running_loop().create_future()
        self._waiting.append((since, done))
        self.now.set()
        try:
            return await asyncio.wait_for(done, wait)
        except TimeoutError:
            return False
        finally:
            if not done.done():
                done.cancel()
            self._waiting = [(t, f) for t, f in self._waiting if not f.done()]

    def reconnected(self) -> None:
        """A new listening connection: no beat heard on the last one vouches for it."""
        self._proven_at = -math.inf
        self._sent.clear()
        self._since = time.monotonic()

    def heard_other(self) -> None:
        """Another instance's line came (a beat or any other)."""
        self._other_at = time.monotonic()

    def alone(self) -> bool:
        """Whether no other instance shares the database, as far as the beats tell."""
        now = time.monotonic()
        return (self.proven() and now - self._since > ALONE_AFTER
                and now - self._other_at > ALONE_AFTER)

    async def forever(self, send: Callable[[str], Awaitable[None]]) -> None:
        """A beat every BEAT_EVERY seconds while listening (none while writes carry them),
        and one at once when `now`."""
        while True:
            forced = False
            with contextlib.suppress(TimeoutError):
                forced = await asyncio.wait_for(self.now.wait(), BEAT_EVERY)
            self.now.clear()
            if not self.listening.is_set():
                continue
            if not forced and time.monotonic() - self._last_sent < BEAT_EVERY:
                continue
            try:
                await send(self.next())
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the proof lapses: memory answers nothing meanwhile
                log.debug("stream: a beat could not be sent: %s", exc)

    async def caught_up(self, since: float) -> bool:
        """Whether every other instance's line committed before `since` has been heard:
        at once when alone, else once a beat sent after it is heard back (False if none
        is within CAUGHT_UP_WAIT: the database answers instead)."""
        return self.alone() or await self.heard_since(since, CAUGHT_UP_WAIT)

    def proven(self) -> bool:
        """Whether a beat heard back on this connection vouches for the listener now."""
        return time.monotonic() - self._proven_at < PROOF_FOR


async def broker_caught_up(_since: float) -> bool:
    """Beats.caught_up through the broker: never (the module's docstring says why)."""
    return False
