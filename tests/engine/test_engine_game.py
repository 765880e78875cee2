"""Game: the line of play, undo/redo and its events."""

from __future__ import annotations

import json
import random

import pytest

from engine import (
    END_STATUSES,
    STATUSES,
    VARIANTS,
    Event,
    Game,
    GameOver,
    IllegalMove,
    InvalidDeal,
    InvalidMove,
    Move,
    NothingToRedo,
    NothingToUndo,
    clock_stopped,
)
from engine.errors import EngineError, UnknownVariant


def test_new_game_events() -> None:
    game, events = Game.new("freecell", 617)
    opening = VARIANTS["freecell"].deal(617).to_dict()
    assert events == [Event("GameCreated", {"variant": "freecell", "deal": 617, "autoplay": True,
                                            "state": opening})]  # fmt: skip
    assert (game.version, game.status, game.moves, game.undos) == (1, "playing", 0, 0)
    assert not game.can_undo and not game.can_redo
    assert game.position == game.position.deal(617)


def test_opening_automatic_moves_are_not_undoable() -> None:
    # Baker's Dozen 617 has all four aces and the 2 of diamonds free at the start
    game, events = Game.new("bakers_dozen", 617)
    auto = events[1:]
    assert [e.type for e in auto] == ["CardMoved"] * 5
    assert all(e.data["auto"] is True and e.data["to"] == "f" for e in auto)
    assert auto[-1].data["card"] == "2D"
    assert game.version == 6 and game.position.foundation_cards == 5
    assert not game.can_undo
    with pytest.raises(NothingToUndo):
        game.undo()
    off, events = Game.new("bakers_dozen", 617, autoplay=False)
    assert len(events) == 1 and off.position.foundation_cards == 0


def test_play_undo_redo_events() -> None:
    game, _ = Game.new("freecell", 1)
    events = game.play(Move("t1", "c"))
    assert events == [
        Event("CardMoved", {"from": "t1", "to": "c1", "count": 1, "card": "6S", "auto": False})
    ]
    assert game.version == 2 and game.moves == 1 and game.can_undo
    undo = game.undo()
    assert undo == [
        Event(
            "MoveUndone",
            {"moves": [{"from": "t1", "to": "c1", "count": 1, "card": "6S", "auto": False}]},
        )
    ]
    assert game.version == 3 and game.moves == 0 and game.undos == 1 and game.can_redo
    assert game.position == game.position.deal(1)
    redo = game.redo()
    assert redo == [Event("MoveRedone", {"from": "t1", "to": "c1", "count": 1, "card": "6S"})]
    assert game.version == 4 and game.moves == 1 and not game.can_redo
    with pytest.raises(NothingToRedo):
        game.redo()
    json.dumps([e.to_dict() for e in [*events, *undo, *redo]])


def test_undo_takes_back_the_automatic_moves_too() -> None:
    from tests.engine.test_engine_solutions import SOLUTIONS

    # follow a solution with autoplay off until a move would set off automatic moves
    game, _ = Game.new("freecell", 1, autoplay=False)
    for text in SOLUTIONS["freecell"]["1"].split():
        move = Move.parse(text)
        trial = game.copy()
        trial.autoplay = True
        events = trial.play(move)
        if len(events) > 1:
            break
        game.play(move)
    else:
        raise AssertionError("no automatic move found")
    assert all(e.data["auto"] for e in events[1:])
    undo = trial.undo()
    taken = undo[0].data["moves"]
    assert len(taken) == len(events)
    assert taken[-1]["auto"] is False and all(m["auto"] for m in taken[:-1])
    assert [m["card"] for m in reversed(taken)] == [e.data["card"] for e in events]
    assert trial.position == game.position
    assert trial.moves == game.moves
    redo = trial.redo()
    assert [e.type for e in redo] == ["MoveRedone"] + ["CardMoved"] * (len(events) - 1)
    assert redo[1:] == events[1:]


def test_new_move_clears_redo() -> None:
    game, _ = Game.new("freecell", 1)
    game.play(Move("t1", "c"))
    game.undo()
    assert game.can_redo
    game.play(Move("t2", "c"))
    assert not game.can_redo


def test_illegal_move_changes_nothing() -> None:
    game, _ = Game.new("freecell", 1)
    before = game.position.copy()
    with pytest.raises(IllegalMove):
        game.play(Move("t1", "t2"))
    with pytest.raises(InvalidMove):
        game.play(Move("t1", "t9"))
    assert game.position == before and game.version == 1


def test_abandon_and_game_over() -> None:
    game, _ = Game.new("freecell", 1)
    game.play(Move("t1", "c"))
    assert game.abandon() == [Event("GameAbandoned", {})]
    assert game.status == "abandoned" and game.version == 3
    for action in (lambda: game.play(Move("t2", "c")), game.undo, game.redo, game.abandon):
        with pytest.raises(GameOver):
            action()
    assert issubclass(GameOver, EngineError)


def test_won_game() -> None:
    from tests.engine.test_engine_solutions import SOLUTIONS

    moves = SOLUTIONS["freecell"]["1"].split()
    game, _ = Game.new("freecell", 1, autoplay=False)
    events: list[Event] = []
    for text in moves:
        events = game.play(Move.parse(text))
    assert events[-1] == Event("GameWon", {})
    assert game.status == "won" and game.moves == len(moves)
    with pytest.raises(GameOver):
        game.undo()
    with pytest.raises(GameOver):
        game.play(Move("t1", "t2"))


def test_play_card() -> None:
    game, _ = Game.new("freecell", 1)
    events = game.play_card("6S", "auto")
    assert events[0].data == {"from": "t1", "to": "c1", "count": 1, "card": "6S", "auto": False}


def test_replay_and_copy() -> None:
    game, log = Game.new("bakers_game", 3)
    rng = random.Random(3)
    for _ in range(10):
        if game.position.legal_moves:
            log += game.play(rng.choice(list(game.position.legal_moves)))
    log += game.undo()
    log += game.undo()
    log += game.redo()
    again = Game.replay(log)
    assert again.position == game.position
    assert (again.version, again.moves, again.undos, again.can_redo) == (
        game.version,
        game.moves,
        game.undos,
        game.can_redo,
    )
    checked = Game.replay([e.to_dict() for e in log], check=True)
    assert checked.position == game.position
    twin = game.copy()
    twin.undo()
    assert twin.position != game.position and twin.version == game.version + 1
    assert game.moves == twin.moves + 1


def test_replay_rejects_bad_logs() -> None:
    with pytest.raises(InvalidMove):
        Game.replay([])
    with pytest.raises(InvalidMove):
        Game.replay([Event("GameWon", {})])
    _, log = Game.new("freecell", 1)
    with pytest.raises(IllegalMove):
        Game.replay(
            [*log, Event("CardMoved", {"from": "t1", "to": "t2", "count": 1, "auto": False})],
            check=True,
        )
    with pytest.raises(NothingToUndo):
        Game.replay([*log, Event("MoveUndone", {"moves": []})], check=True)
    with pytest.raises(EngineError):
        Game.replay([*log, Event("Nonsense", {})])


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_log_replays_on_the_opening_it_says(variant: str) -> None:
    """GameCreated keeps the layout dealt: a log replays on it without the dealing (and so
    a log older than a change to the dealing keeps its game), while a check of the log
    against the rules says when it is not its deal's; a log without it (older ones)
    replays on its deal's layout."""
    game, log = Game.new(variant, 5, autoplay=False)
    game.play(next(iter(game.position.legal_moves)))
    other = Game.new(variant, 6, autoplay=False)[0].position
    said = Event("GameCreated", {**log[0].data, "state": other.to_dict()})
    assert Game.replay([said]).position == other
    with pytest.raises(IllegalMove, match=f"not {variant} deal 5's"):
        Game.replay([said], check=True)
    assert Game.replay(log, check=True).position == game.position.deal(5)
    plain = {k: v for k, v in log[0].data.items() if k != "state"}
    assert Game.replay([Event("GameCreated", plain)]).position == game.position.deal(5)
    for bad in ({"tableau": [], "cells": [], "foundations": {}},
                {**other.to_dict(), "tableau": [c[:-1] for c in other.to_dict()["tableau"]]},
                {**other.to_dict(), "foundations": {"S": "1", "H": 0, "D": 0, "C": 0}}):
        with pytest.raises(InvalidMove):
            Game.replay([Event("GameCreated", {**plain, "state": bad})])


def test_new_game_errors() -> None:
    with pytest.raises(UnknownVariant):
        Game.new("spider", 1)
    with pytest.raises(InvalidDeal):
        Game.new("freecell", 0)


def test_position_undo_with_no_move() -> None:
    from engine import FreeCell

    with pytest.raises(NothingToUndo):
        FreeCell.deal(1).undo()



@pytest.mark.parametrize("autoplay", [False, True])
def test_the_moves_since_the_last_hint(autoplay: bool) -> None:
    """The player's own moves after the last hint (automatic ones left out), undos taken
    into account, the same after a replay of the log."""
    from engine import Game

    game, log = Game.new("freecell", 5, autoplay)
    assert game.moves_since_hint() is None
    log += game.play(game.position.legal_moves[0])  # a move before the hint
    first = game.position.legal_moves[0]
    log += game.give_hint("winnable", first, 80, [str(first)])
    assert game.moves_since_hint() == []
    played = []
    for _ in range(3):
        move = game.position.legal_moves[0]
        log += game.play(move)
        played.append(game.position.move_stack[len(game.position.move_stack) - 1
                                                - _automatic(log)])
        assert game.moves_since_hint() == played
    log += game.undo()
    assert game.moves_since_hint() == played[:2]
    assert Game.replay(log).moves_since_hint() == played[:2]
    log += game.undo()
    log += game.undo()
    assert game.moves_since_hint() == []
    log += game.undo()
    assert game.moves_since_hint() is None  # back past the hint
    # and for good: the moves played after it do not start from the hint's position (a
    # redo, back on it, too: the hint's line is then checked move by move)
    log += game.play(game.position.legal_moves[-1])
    assert game.moves_since_hint() is None
    assert Game.replay(log).moves_since_hint() is None


def _automatic(log: list) -> int:  # type: ignore[type-arg]
    """How many automatic moves the last player move set off (at the end of the log)."""
    n = 0
    for event in reversed(log):
        if event.type == "CardMoved" and event.data.get("auto"):
            n += 1
        else:
            break
    return n


def _blocked_game() -> Game:
    """A game of Beleaguered Castle played at random until no legal move is left."""
    for seed in range(100):
        rng = random.Random(seed)
        game, _ = Game.new("beleaguered_castle", 1 + seed)
        for _ in range(200):
            if game.status != "playing":
                break
            game.play(rng.choice(list(game.position.legal_moves)))
        if game.status == "blocked":
            return game
    raise AssertionError("no blocked game found")


def test_the_clock_stops_when_won_blocked_or_abandoned() -> None:
    assert STATUSES == ("playing", "won", "blocked", "abandoned")
    assert frozenset({"won", "blocked", "abandoned"}) == END_STATUSES
    assert [clock_stopped(status) for status in STATUSES] == [False, True, True, True]
    game, _ = Game.new("freecell", 1)
    assert game.status == "playing" and not clock_stopped(game.status)
    game.abandon()
    assert clock_stopped(game.status) and game.is_over
    blocked = _blocked_game()
    assert clock_stopped(blocked.status) and not blocked.is_over and blocked.can_undo
    blocked.undo()  # an undo revives a blocked game, and its clock runs again
    assert blocked.status == "playing" and not clock_stopped(blocked.status)


def test_a_hint_that_found_nothing_leaves_the_game_unassisted() -> None:
    """Every hint counts in `hints`; the game is assisted once one gave something away (a
    move, or a verdict), not for one that found nothing (`unknown`, no move); a replay of
    the log and a copy say the same."""
    game, log = Game.new("freecell", 5, autoplay=False)
    log += game.give_hint("unknown", None, None)
    for g in (game, game.copy(), Game.replay(log), Game.replay(log, check=True)):
        assert (g.hints, g.assisted) == (1, False)
    first = game.position.legal_moves[0]
    log += game.give_hint("winnable", first, 80, [str(first)])
    for g in (game, game.copy(), Game.replay(log)):
        assert (g.hints, g.assisted) == (2, True)
    lost, lost_log = Game.new("freecell", 5, autoplay=False)
    lost_log += lost.give_hint("unwinnable", None, None)  # a verdict gives something away
    assert (lost.hints, lost.assisted) == (1, True) == (
        Game.replay(lost_log).hints, Game.replay(lost_log).assisted)
