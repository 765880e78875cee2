"""A game's statuses, and which of them end play or stop its clock: the one place in Python.

``Game.status`` is one of :data:`STATUSES`:

``"playing"``    a legal move is left;
``"won"``        the 52 cards are on the foundations;
``"blocked"``    no legal move is left (an undo may revive the game);
``"abandoned"``  the player gave the game up.

:data:`OVER_STATUSES` (won, abandoned) are final: nothing more can be played, undone or
redone (``Game.is_over``).  :data:`END_STATUSES` (won, blocked, abandoned) are those at
which the game's clock stops: :func:`clock_stopped`.  A blocked game's clock starts again
if an undo revives it.

What the engine cannot reach says the same again, by these names' values: the database's
players' figures and streaks (migrations/sql/0013_player_stats.sql, 0015_streaks.sql) and
the web page's ``OVER`` (service/webclient/static/app.js).
"""

from __future__ import annotations

from typing import Final

PLAYING: Final = "playing"
WON: Final = "won"
BLOCKED: Final = "blocked"
ABANDONED: Final = "abandoned"
STATUSES: Final = (PLAYING, WON, BLOCKED, ABANDONED)

OVER_STATUSES: Final = frozenset({WON, ABANDONED})
"""Final statuses: nothing more can be played, undone or redone."""
END_STATUSES: Final = frozenset({WON, BLOCKED, ABANDONED})
"""The statuses at which the game's clock stops (every status but ``"playing"``)."""


def clock_stopped(status: str) -> bool:
    """Whether a game of this status (one of :data:`STATUSES`) is at an end, finished or
    blocked, so that its clock stops: won, blocked or abandoned.  An undo can revive a
    blocked game, and its clock then runs again."""
    return status in END_STATUSES
