"""Shortening a winning line: loops cut, detours replaced by the game's own moves, the result
always legal, winning and never longer."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import VARIANTS, Move, Position
from engine.solver import solve
from engine.solver.shorten import shorten


def play_all(position: Position, line: tuple[Move, ...]) -> Position:
    pos = position.copy()
    for move in line:
        pos.play(move)
    return pos


def line_of(game: str, deal: int) -> tuple[Position, tuple[Move, ...]]:
    pos = VARIANTS[game].deal(deal)
    found = solve(pos, max_seconds=20)
    assert found.moves is not None
    return pos, found.moves


def test_a_card_moved_between_cells_and_back_is_cut() -> None:
    pos, line = line_of("freecell", 1)
    base = shorten(pos, line, depth=0)
    walk = pos.copy()
    k = -1
    while True:
        k += 1
        move = walk.play(base[k])
        if move.target.startswith("c") and None in walk.cells:
            break
    other = f"c{walk.cells.index(None) + 1}"
    detour = (Move(move.target, other), Move(other, move.target)) * 2
    padded = (*base[: k + 1], *detour, *base[k + 1 :])
    assert play_all(pos, padded).is_won
    assert shorten(pos, padded, depth=0) == base


def test_single_card_steps_become_one_move_of_the_run_in_freecell() -> None:
    # FreeCell deal 12 opens with a two-card run that can move: move it the long way, one
    # card through a cell
    pos = VARIANTS["freecell"].deal(12)
    here = pos.copy()
    run = next(m for m in here.legal_moves if m.count == 2)
    cell = next(m for m in here.legal_moves if m.source == run.source and m.target[0] == "c")
    steps = (cell, Move(run.source, run.target), Move(cell.target, run.target))
    after = play_all(pos, steps)
    rest = solve(after, max_seconds=20).moves
    assert rest is not None
    long = steps + rest
    short = shorten(pos, long, depth=1)
    assert play_all(pos, short).is_won
    assert len(short) <= len(long) - 2
    assert short[0] == run or len(short) < len(long) - 2


@pytest.mark.parametrize("game", sorted(VARIANTS))
def test_shortened_lines_win_and_are_never_longer(game: str) -> None:
    for deal in (2, 4, 6):
        pos = VARIANTS[game].deal(deal)
        found = solve(pos, max_seconds=20)
        if found.moves is None:
            continue
        short = shorten(pos, found.moves, depth=2, seconds=5)
        assert len(short) <= len(found.moves)
        assert play_all(pos, short).is_won


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), wander=st.integers(1, 12))
def test_a_wandering_line_is_shortened_and_still_wins(seed: int, wander: int) -> None:
    """Random legal moves from the opening, then a winning line from where they lead: the
    shortened line wins and is never longer."""
    pos = VARIANTS["freecell"].deal(1 + seed % 50)
    rng = random.Random(seed)
    walk = pos.copy()
    for _ in range(wander):
        moves = list(walk.legal_moves)
        if not moves:
            return
        walk.play(rng.choice(moves))
    rest = solve(walk, max_seconds=10).moves
    if rest is None:
        return  # the wandering lost the game, or the search ran out of time
    line = (*walk.move_stack, *rest)
    short = shorten(pos, line, depth=1)
    assert len(short) <= len(line)
    assert play_all(pos, short).is_won
