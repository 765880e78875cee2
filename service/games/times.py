"""A game's times: when its clock stops, and when its player's own actions were played.

**When the clock stops.** A game's time runs from its creation to its present end: won,
abandoned or blocked (engine.clock_stopped; an undo can revive a blocked game and restart
its clock). The write path tells record_events what a write does to the finish time (its
``p_finish``, :func:`finish`); the catch-up from the log (service/games/live_game.py) and the
log's replay (service/verify/replay.py) compute the same time from the events
(:func:`finished_at_after`). A game's times are counted in whole milliseconds from its
creation (:func:`whole_ms`).

**When the player played.** A move of a batch may say when it was played (`played_ms`:
whole milliseconds since the game's `created_at`, by the client's clock: a phone that
played offline sends its moves at once, later). It is kept in the data of the move's
CardMoved event, and of the automatic moves it set off, which follow it. Any other action
of the player (a move that says nothing, an undo, a redo) was played when it arrived: its
event's `at`.

A batch's times go forward: each move's is at or after the game's previous action (its
`played_ms`, else its arrival) and the batch's move before it (a move that says nothing
counts when the batch is recorded, so no move that says a time may follow it), else the
batch is refused with 422 naming the move (:func:`check`, in the write path). None is
after the moment the batch came by the database's clock, the one that times the game:
record_events refuses such a write (migrations/sql/0019_record_events.sql), and
:func:`played_late` names its move. So a time can be claimed only once it has passed, and
an offline win at a person's pace is verified as an online one is. The pace rule reads the
same times in the database (game_median_move_ms, migrations/sql/0009_pace.sql) and in
`python -m service verify` (service/verify/replay.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from engine import Event, clock_stopped
from engine.game import CARD_MOVED, MOVE_REDONE, MOVE_UNDONE
from service.base.errors import BadMoveTime

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


PLAYED_MS: Final = "played_ms"


def is_players(kind: str, data: Mapping[str, Any]) -> bool:
    """Whether an event is the player's own action: a move, an undo or a redo (automatic
    moves and hints are not)."""
    return kind in (MOVE_UNDONE, MOVE_REDONE) or (kind == CARD_MOVED and not data.get("auto"))


def played_at(created_at: datetime, at: datetime, data: Mapping[str, Any]) -> datetime:
    """When an event of a game created at `created_at`, appended at `at`, was played."""
    given = data.get(PLAYED_MS)
    return at if given is None else created_at + timedelta(milliseconds=given)


def played_ms(created_at: datetime, at: datetime, data: Mapping[str, Any]) -> int:
    """:func:`played_at` in whole milliseconds since the game's creation."""
    given = data.get(PLAYED_MS)
    return whole_ms(created_at, at) if given is None else int(given)


def timed(events: list[Event], ms: int | None) -> list[Event]:
    """A move's events (the move and its automatic moves) saying it was played at `ms`."""
    if ms is None:
        return events
    return [Event(e.type, {**e.data, PLAYED_MS: ms}) if e.type == CARD_MOVED else e
            for e in events]


def last_action_ms(
    last: int, created_at: datetime, at: datetime, events: Iterable[Event]
) -> int:
    """The time of the game's last action once `events`, appended at `at`, follow an
    action played at `last` (ms since the creation)."""
    for e in events:
        if is_players(e.type, e.data):
            last = played_ms(created_at, at, e.data)
    return last


def _players_moves(events: Iterable[Event]) -> Iterable[tuple[int, Event]]:
    """The player's own moves of a write's events, each with its index in the batch."""
    return enumerate(e for e in events if e.type == CARD_MOVED and not e.data.get("auto"))


def check(events: Iterable[Event], last: int, created_at: datetime, arrival: datetime) -> None:
    """Refuse (BadMoveTime, 422 with the move's `index` in the batch) a write whose moves
    say they were played before the game's previous action (played at `last`, ms since
    the creation) or before the move before them. A move that says nothing is timed when
    the write is recorded, by the database's clock (its event's `at`), which bounds the
    times said (:func:`played_late`): no later move of the batch can say a time at or
    after it, so one that says a time after one that says none is refused (`arrival`,
    this machine's estimate of that time, would let it say an earlier one, and a batch
    whose times go back and forth would pass for a game played at a person's pace)."""
    before = "the game's previous action"
    untimed: int | None = None
    for index, e in _players_moves(events):
        given = e.data.get(PLAYED_MS)
        if given is None:  # timed when the batch is recorded
            last, untimed = whole_ms(created_at, arrival), index
        elif untimed is not None:
            raise BadMoveTime(
                f"move {index} of the batch (counting from 0): played_ms {given} follows move"
                f" {untimed}, which says no time and is timed when the batch is recorded, after"
                " any time a move can say: give the moves before it a played_ms too",
                index=index,
            )
        elif given < last:
            raise BadMoveTime(
                f"move {index} of the batch (counting from 0): played_ms {given} is before {before}"
                f" ({last} ms after the game's creation): a batch's times go forward",
                index=index,
            )
        else:
            last, before = given, f"move {index}"


def played_late(events: Iterable[Event], arrived_ms: int) -> BadMoveTime:
    """The refusal of a write that came `arrived_ms` after the game's creation (by the
    database's clock), whose moves say one was played later: it names the first."""
    for index, e in _players_moves(events):
        given = e.data.get(PLAYED_MS)
        if given is not None and given > arrived_ms:
            return BadMoveTime(
                f"move {index} of the batch (counting from 0): played_ms {given} is after the batch"
                f" arrived ({arrived_ms} ms after the game's creation)",
                index=index,
            )
    raise AssertionError(f"no move of the write says it was played after {arrived_ms} ms")
