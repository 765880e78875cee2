"""The replay of one log by `python -m service verify` (service/verify/replay.py): what
it finds wrong in a log the service would never have written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine import Event, Game, Move
from service.base.errors import BadMoveTime
from service.games.times import check
from service.verify.replay import replay


def timed_event(event: Event, ms: int) -> Event:
    return Event(event.type, {**event.data, "played_ms": ms})


def test_replay_finds_an_automatic_move_left_unplayed() -> None:
    """With autoplay on, a write after which a safe move to the foundations remains is a
    log the service never writes."""
    # a deal whose opening sets off automatic moves: the log loses the last of them
    deal = next(d for d in range(1, 200) if len(Game.new("freecell", d, True)[1]) > 2)
    _game, created = Game.new("freecell", deal, True)
    t0 = datetime(2026, 12, 1, tzinfo=UTC)
    log = [{"seq": i + 1, "type": e.type, "data": e.data, "at": t0}
           for i, e in enumerate(created[:-1])]
    notes = replay(log)["notes"]
    assert len(notes) == 1 and "was not played" in notes[0], notes
    whole = [{"seq": i + 1, "type": e.type, "data": e.data, "at": t0}
             for i, e in enumerate(created)]
    assert replay(whole)["notes"] == []


def test_replay_finds_a_move_said_played_after_it_was_recorded() -> None:
    """A batch's move may say when it was played, never later than its write came: a log
    with such a time is one the database refuses to write (record_events)."""
    game, created = Game.new("freecell", 617, False)
    moved = game.play(Move.parse("t1-c1"))
    t0 = datetime(2026, 12, 1, tzinfo=UTC)

    def log(played_ms: int) -> list[dict[str, Any]]:
        return [{"seq": 1, "type": created[0].type, "data": created[0].data, "at": t0},
                *({"seq": 2 + i, "type": e.type, "data": {**e.data, "played_ms": played_ms},
                   "at": t0 + timedelta(milliseconds=500)} for i, e in enumerate(moved))]

    assert replay(log(500))["notes"] == []
    assert replay(log(501))["notes"] == [
        "event 2 says it was played 501 ms after the game's creation, after it was recorded"]


def test_replay_finds_an_opening_that_is_not_its_deals() -> None:
    """GameCreated keeps the layout dealt; a log whose layout is not its deal number's
    (another deal's, or the deal as an earlier dealing made it) cannot be replayed as that
    deal's game."""
    _game, created = Game.new("bakers_dozen", 3, False)
    other = Game.new("bakers_dozen", 4, False)[1][0].data["state"]
    t0 = datetime(2026, 12, 1, tzinfo=UTC)
    first = {"seq": 1, "type": "GameCreated", "data": created[0].data, "at": t0}
    assert replay([first])["notes"] == []
    with pytest.raises(ValueError, match="not bakers_dozen deal 3's"):
        replay([{**first, "data": {**created[0].data, "state": other}}])


def test_replay_finds_a_players_action_timed_before_the_one_before_it() -> None:
    """The times of the player's actions go forward (games/times.py): a log whose move
    says it was played before the move before it is one the write path refuses."""
    game, created = Game.new("freecell", 617, False)
    first, hop = game.play(Move.parse("t1-c1")), game.play(Move.parse("c1-c2"))
    t0 = datetime(2026, 12, 1, tzinfo=UTC)

    def log(second_ms: int) -> list[dict[str, Any]]:
        return [{"seq": 1, "type": created[0].type, "data": created[0].data, "at": t0},
                {"seq": 2, "type": first[0].type, "data": first[0].data,
                 "at": t0 + timedelta(milliseconds=900)},
                {"seq": 3, "type": hop[0].type, "data": {**hop[0].data, "played_ms": second_ms},
                 "at": t0 + timedelta(milliseconds=900)}]

    assert replay(log(900))["notes"] == []
    assert replay(log(400))["notes"] == [
        "event 3 says it was played 400 ms after the game's creation, before the player's"
        " action before it (900 ms): times go forward"]


def test_no_move_that_says_a_time_follows_one_that_says_none() -> None:
    """A move without `played_ms` is timed when its batch is recorded, by the database's
    clock, later than this machine's estimate of it: a move after it that says a time at
    or after that estimate would still come before it in the log (a batch's times would go
    back and forth, and its pace pass for a person's)."""
    game, _created = Game.new("freecell", 617, False)
    moves = [*game.play(Move.parse("t1-c1")), *game.play(Move.parse("c1-c2"))]
    t0 = datetime(2026, 12, 1, tzinfo=UTC)
    arrival = t0 + timedelta(milliseconds=900)
    timed = [timed_event(moves[0], 100), timed_event(moves[1], 950)]
    check(timed, 0, t0, arrival)  # times said, going forward
    check([moves[0], moves[1]], 0, t0, arrival)  # no time said
    check([timed_event(moves[0], 100), moves[1]], 0, t0, arrival)  # then none
    with pytest.raises(BadMoveTime, match="follows move 0, which says no time") as refused:
        check([moves[0], timed_event(moves[1], 950)], 0, t0, arrival)
    assert refused.value.extra == {"index": 1}
