"""A sign-out heard back: its answer (204) waits until the other instances have been told.

PostgreSQL sends a committed NOTIFY to every listening connection, this instance's own
included, each when its server process gets to it: within a millisecond or so of the
commit, but after it, and not at once for all (two listeners of one NOTIFY heard it up
to a few milliseconds apart here). A client told that a token is signed out may use it
at once on another instance, which trusts its memory of the token (players/accounts.py)
until it hears the sign-out's line. So the answer waits until this instance's own
listener hears the line back, then GRACE more, by which time the others have heard it
too: `told`. The wait is bounded (ECHO_WAIT): a listener that lags or is down costs that
at most, never a refusal. Through the broker there is no echo; the hub sends the line
before the answer itself.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import Final

ECHO_WAIT: Final = 0.5  # seconds a sign-out's answer waits for its line, at most
# seconds more, for the other listeners: a few ms apart on a quiet machine, past 10 ms on
# a loaded one (a test signing out 300 tokens saw one slip through with 10 ms); a sign-out
# is rare, and its answer may take that long
GRACE: Final = 0.05
RECENT: Final = 1000  # sign-out lines kept, for an answer that asks after they came


class Echoes:
    """The sign-out lines this instance heard lately, and the answers waiting for one."""

    def __init__(self, listening: Callable[[], bool]) -> None:
        self.listening = listening  # whether this instance's listener is up now
        self._heard: OrderedDict[str, None] = OrderedDict()
        self._waiting: dict[str, asyncio.Future[None]] = {}

    def heard(self, line: str) -> None:
        """A sign-out's line came, from whichever instance."""
        self._heard[line] = None
        if len(self._heard) > RECENT:
            self._heard.popitem(last=False)
        future = self._waiting.pop(line, None)
        if future is not None and not future.done():
            future.set_result(None)

    async def told(self, line: str) -> None:
        """After this instance's sign-out committed: until its line has come back (if
        this instance listens), and GRACE more."""
        if not self.listening():
            return
        if line not in self._heard:
            future = self._waiting[line] = asyncio.get_running_loop().create_future()
            try:
                async with asyncio.timeout(ECHO_WAIT):
                    await future
            except TimeoutError:
                return
            finally:
                if self._waiting.get(line) is future:
                    del self._waiting[line]
        await asyncio.sleep(GRACE)
