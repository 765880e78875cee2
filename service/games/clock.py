"""When a game's clock stops: the one rule for a game's finish time.

A game's time runs from its creation to its present end: won, abandoned or blocked
(engine.clock_stopped; an undo can revive a blocked game and restart its clock). The write
path tells record_events what a write does to the finish time (its ``p_finish``); the
catch-up from the log (service/games/positions.py) and the log's replay
(service/verify/replay.py) compute the same time from the events. A game's times are
counted in whole milliseconds from its creation (:func:`whole_ms`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final, Literal

from engine import clock_stopped

Finish = Literal["none", "now", "keep"]
MILLISECOND: Final = timedelta(milliseconds=1)


def whole_ms(since: datetime, until: datetime) -> int:
    """Whole milliseconds from `since` to `until`, never negative (as the database's
    game_elapsed_ms computes them)."""
    return max(0, (until - since) // MILLISECOND)


def finish(before: str, status: str, finished_at: datetime | None) -> Finish:
    """What a write that leaves the game at `status` does to its finish time (`before`,
    its status before the write; `finished_at`, its finish time then): none while it is in
    play; now when the write stopped its clock or changed how it ended; keep the earlier
    time while it stays at the same end."""
    if not clock_stopped(status):
        return "none"
    if status != before or finished_at is None:
        return "now"
    return "keep"


def finished_at_after(
    before: str, status: str, finished_at: datetime | None, at: datetime
) -> datetime | None:
    """The game's finish time once a write at `at` left it at `status` (`before` and
    `finished_at`, its status and finish time before that write), by :func:`finish`."""
    how = finish(before, status, finished_at)
    if how == "none":
        return None
    return at if how == "now" else finished_at
