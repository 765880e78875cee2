"""Following the hints from the opening wins, in every game, with autoplay on and off: each
hinted move is one that legal-moves lists, and played it leaves `moves_to_win` exactly one
less; every hint after the first is read off the game's record (its last HintGiven's
line), so another instance or a restarted one (here: a solver that may not search) answers
the same."""

from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor

import pytest

from engine import VARIANTS, Game, Move
from service.deals.table import table
from service.solver import fcsolve
from service.solver.hints import hint
from service.solver.lines import follows, line_from_record, player_moves
from service.solver.verdicts import Solver

DEALS = 5  # per game and autoplay setting (40 games followed home in all)


class NoSearch(Executor):
    """The pool of an instance that must not search: following a line is a lookup."""

    def submit(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def, override]
        raise AssertionError("a hint along a recorded line searched")


def deals(variant: str) -> list[int]:
    known = table(variant)
    return [d for d in range(1, 400) if known.solvable(d)]


@pytest.mark.parametrize("autoplay", [True, False])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_hints_lead_home_one_move_at_a_time(variant: str, autoplay: bool) -> None:
    searcher = Solver(10.0, prefetch=False, executor_factory=lambda: ThreadPoolExecutor(1))
    other = Solver(10.0, prefetch=False, executor_factory=NoSearch)
    followed = 0
    try:
        for deal in deals(variant):
            if followed == DEALS:
                break
            game, _ = Game.new(variant, deal, autoplay)
            first = await hint(searcher, game)
            if first["verdict"] == "unknown" and not fcsolve.available():
                continue  # the engine's search alone ran out of time on this opening
            assert first["verdict"] == "winnable", (variant, deal, first)
            followed += 1
            h, left, hints = first, first["moves_to_win"], 0
            while game.status != "won":
                assert h["verdict"] == "winnable" and h["moves_to_win"] == left, (deal, h)
                # the move as legal-moves lists it (a card into a cell: the first empty one)
                assert Move.from_dict(h["move"]) in list(game.position.legal_moves), (deal, h)
                game.give_hint(h["verdict"], Move.from_dict(h["move"]), h["moves_to_win"],
                               h["line"])
                game.play(Move.from_dict(h["move"]))
                hints += 1
                left -= 1
                h = await hint(other, game)
                if game.status != "won":
                    assert h["solver"] == "record"
            assert left == 0 and hints == first["moves_to_win"]
        assert followed == DEALS
    finally:
        searcher.close()


def test_with_autoplay_the_player_does_not_count_the_automatic_moves() -> None:
    """A line that moves every card up itself counts, with autoplay on, only the moves the
    game does not make by itself."""
    from engine.solver import solve

    pos = VARIANTS["freecell"].deal(1)
    line = solve(pos, max_seconds=20).moves
    assert line is not None
    off = player_moves(pos, line, False)
    on = player_moves(pos, line, True)
    assert off == line and on is not None
    assert len(on) < len(off)
    assert all(m in line for m in on)


def test_a_lines_cells_are_the_games_first_empty_ones() -> None:
    """A line that puts a card into the third cell while the first is empty gives it to the
    first, as legal-moves lists the move, and takes it from there."""
    from service.solver.lines import follow_line

    pos = VARIANTS["freecell"].deal(617)
    moves, _stuck = follow_line(pos, (Move("t1", "c3"), Move("c3", "c2")), False)
    assert moves == (Move("t1", "c1"), Move("c1", "c2"))


def test_a_deals_opening_is_known_winnable_when_the_tables_say_it_is_solvable() -> None:
    from service.solver.hints import known_winnable

    game, _ = Game.new("bakers_dozen", 107)
    assert known_winnable(game)
    game.play(next(iter(game.position.legal_moves)))  # (no longer the deal's opening)
    assert not known_winnable(game)
    assert not known_winnable(Game.new("bakers_dozen", 2662)[0])  # no solution


def test_a_line_is_not_read_on_after_an_undo_back_past_its_hint() -> None:
    """The move before the hint taken back and another played instead, the hint's first
    move played after it does not put the game on the hint's line: the line is no longer
    read off as it was recorded (its rest would not win, or not even be legal), only a
    tail that wins from the present position, move by move."""
    game, _ = Game.new("freecell", 1, False)
    game.play(Move("t1", "c"))
    line = (Move("t3", "c2"), Move("t4", "c3"))  # (recorded as the hint's line)
    game.give_hint("winnable", line[0], 2, tuple(str(m) for m in line))
    game.undo()
    game.play(Move("t2", "c"))
    game.play(line[0])
    assert line_from_record(game) is None


def test_a_recorded_lines_cells_are_the_games_first_empty_ones_when_read() -> None:
    """The rest of a recorded line read off the record is listed from the present
    position: a card into a cell goes into the first empty one, as legal-moves lists it,
    though the line as recorded named another (a player who reached the line's position
    another way may hold another cell empty first; a line whose cells are all swapped wins
    as well)."""
    from engine.solver import solve

    game, _ = Game.new("freecell", 617, False)
    first = Move("t1", "c1")
    game.play(first)
    game.play(Move("c1", "c2"))  # (c1 empty, the card in c2)
    line = solve(game.position.copy(), max_seconds=20).moves
    assert line is not None
    swap = {"c1": "c3", "c3": "c1"}  # the line with two of its cells' names swapped
    swapped = tuple(Move(swap.get(m.source, m.source), swap.get(m.target, m.target), m.count)
                    for m in line)  # fmt: skip
    assert swapped != line and follows(game.position, swapped)
    game.give_hint("winnable", swapped[0], len(swapped), tuple(str(m) for m in swapped))
    read = line_from_record(game)
    assert read is not None and read != swapped and follows(game.position, read)
    pos = game.position.copy()
    for move in read:
        assert move in list(pos.legal_moves), move
        pos.push(pos.check(move))
