"""The service's solver: Freecell Solver's library or the engine's solver, the verdict cache
by canonical position, lines remapped and remembered along the way."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from engine import VARIANTS, Game, Move, Position
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE
from service.solver import fcsolve
from service.solver.pool import search, search_board
from service.solver.verdicts import Solver


def wins(position: Position, line: tuple[Move, ...] | None) -> bool:
    assert line is not None
    pos = position.copy()
    for move in line:
        pos.play(move)
    return pos.is_won


def test_the_library_when_installed_else_our_solver() -> None:
    for game in ("freecell", "bakers_game", "beleaguered_castle"):
        pos = VARIANTS[game].deal(2)
        verdict, line, _, how = search(pos, 10.0)
        assert verdict == WINNABLE and wins(pos, line)
        assert how == ("fc-solve" if fcsolve.available() else "engine")
        verdict, line, _, how = search(pos, 10.0, library=False)
        assert verdict == WINNABLE and wins(pos, line) and how == "engine"
    pos = VARIANTS["bakers_dozen"].deal(1)
    verdict, line, _, how = search(pos, 10.0)
    assert verdict == WINNABLE and wins(pos, line) and how == "engine"  # 13 columns: ours


def test_the_library_adapter() -> None:
    pos = VARIANTS["freecell"].deal(11982)
    found = fcsolve.solve(pos)
    if not fcsolve.available():
        assert found is None  # the service then uses the engine's solver (above)
        return
    assert found is not None and found.verdict == UNWINNABLE
    short = fcsolve.solve(pos, max_iterations=1000)
    assert short is not None and short.verdict == UNKNOWN  # not "could not solve"
    assert fcsolve.solve(VARIANTS["bakers_dozen"].deal(1)) is None
    for game in ("bakers_game", "beleaguered_castle"):
        pos = VARIANTS[game].deal(6)
        found = fcsolve.solve(pos, max_seconds=10)
        assert found is not None and found.verdict == WINNABLE and wins(pos, found.moves)
        assert all(m.count == 1 for m in found.moves or ())  # atomic moves only


def test_another_build_of_the_library_for_bakers_dozen() -> None:
    """Debian's library takes 10 columns, not Baker's Dozen's 13: the tables' script points
    the adapter at another build (use_library), and without one Baker's Dozen is ours."""
    assert not fcsolve.plays("bakers_dozen") or fcsolve.solve(VARIANTS["bakers_dozen"].deal(1))
    assert fcsolve.plays("freecell") == fcsolve.available()
    try:
        fcsolve.use_library("/nonexistent/libfreecell-solver.so")
        assert not fcsolve.available() and not fcsolve.plays("bakers_dozen")
        assert fcsolve.solve(VARIANTS["bakers_dozen"].deal(1)) is None
    finally:
        fcsolve.use_library(None)
    assert fcsolve.plays("freecell") == fcsolve.available()


def test_a_worker_checks_the_line_and_describes_its_positions() -> None:
    pos = VARIANTS["freecell"].deal(3)
    verdict, texts, _, _, steps = search_board("freecell", pos.board_text(), 10.0, False)
    assert verdict == WINNABLE and texts is not None and len(steps) == len(texts)
    assert wins(pos, tuple(Move.parse(t) for t in texts))


@pytest.fixture
def solver() -> Iterator[Solver]:
    s = Solver(5.0, capacity=1000, executor_factory=lambda: ThreadPoolExecutor(1))
    yield s
    s.close()


async def test_verdicts_are_cached_by_canonical_position(solver: Solver) -> None:
    cls = VARIANTS["freecell"]
    pos = cls.deal(5)
    first = await solver.verdict(pos)
    assert first.verdict == WINNABLE and not first.cached and wins(pos, first.line)
    again = await solver.verdict(pos)
    assert again.cached and again.line == first.line and solver.searches == 1
    # the same cards, columns and cells in another order: one entry, the line remapped
    moved = pos.copy()
    moved.play(Move.parse("t1-c1"))
    order = [5, 0, 7, 1, 6, 2, 3, 4]
    shuffled = cls([moved.tableau[i] for i in order], moved.cells[::-1], moved.foundations)
    await solver.verdict(moved)
    searches = solver.searches
    other = await solver.verdict(shuffled)
    assert other.cached and solver.searches == searches and wins(shuffled, other.line)


async def test_positions_along_a_line_answer_at_once(solver: Solver) -> None:
    game, _ = Game.new("bakers_game", 6, autoplay=False)
    found = await solver.verdict(game.position)
    assert found.line is not None and solver.searches == 1
    for move in found.line[:10]:
        game.play(move)
        step = await solver.verdict(game.position)
        assert step.cached and wins(game.position, step.line)
    assert solver.searches == 1
    game.undo()
    assert (await solver.verdict(game.position)).cached  # undo: at once too


async def test_following_hints_with_autoplay_uses_the_cache(solver: Solver) -> None:
    game, _ = Game.new("freecell", 1, autoplay=True)
    while game.status != "won":
        found = await solver.verdict(game.position)
        assert found.verdict == WINNABLE and found.line
        solver.remember_after_autoplay(game.position, found)
        game.play(found.line[0])
    assert solver.searches <= 3


async def test_one_search_for_concurrent_requests(solver: Solver) -> None:
    pos = VARIANTS["beleaguered_castle"].deal(6)
    a, b, c = await asyncio.gather(*(solver.verdict(pos) for _ in range(3)))
    assert solver.searches == 1
    assert a.line == b.line == c.line and a.verdict == WINNABLE


async def test_the_cache_forgets_the_least_recently_used(solver: Solver) -> None:
    solver.capacity = 5
    game, _ = Game.new("freecell", 3, autoplay=False)
    await solver.verdict(game.position)
    assert len(solver) == 5


async def test_a_busy_solver_answers_unknown_at_once(solver: Solver) -> None:
    solver.max_pending = 0
    found = await solver.verdict(VARIANTS["freecell"].deal(9))
    assert found.verdict == UNKNOWN and found.line is None and solver.searches == 0


@pytest.mark.parametrize("game", ["bakers_game", "beleaguered_castle"])
def test_the_library_runs_are_played_one_card_at_a_time(game: str) -> None:
    """The short-line presets move runs; where the game moves one card at a time, each run
    move becomes the single-card moves it stands for, and the rules check every one."""
    pos = VARIANTS[game].deal(2)
    found = fcsolve.shortest(pos, max_seconds=10)
    if not fcsolve.available():
        assert found is None
        return
    assert found is not None and found.moves is not None
    assert all(m.count == 1 for m in found.moves)
    assert wins(pos, found.moves)


def test_a_run_move_as_single_card_steps() -> None:
    pos = VARIANTS["bakers_game"].from_board_text(
        "Foundations: H-0 C-0 D-0 S-0\nFreecells: - - 2S 3S\n"
        ": 4H KS QS JS\n: KH\n:\n: AH 2H 3H\n: AS 4S 5S 6S 7S 8S 9S TS\n"
        ": AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC\n"
        ": AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD\n: 5H 6H 7H 8H 9H TH JH QH\n"
    )
    # three cards (KS QS JS) to the empty column: 2 free cells, no other empty column
    steps = fcsolve.single_steps(pos, Move("t1", "t3", 3))
    assert [str(m) for m in steps] == ["t1-c1", "t1-c2", "t1-t3", "c2-t3", "c1-t3"]
    for step in steps:
        pos.play(step)
    assert [c.text for c in pos.tableau[2]] == ["KS", "QS", "JS"]


def test_hints_are_no_longer_than_the_library_s_reference_line() -> None:
    """The service's line from an opening is never longer than what Freecell Solver's
    atomic-moves search answers alone (the service shortens what it finds)."""
    if not fcsolve.available():
        pytest.skip("Freecell Solver's library is not installed (make test installs it as root)")
    for game in ("freecell", "bakers_game", "beleaguered_castle"):
        for deal in (2, 4):
            pos = VARIANTS[game].deal(deal)
            verdict, line, _, _ = search(pos, 5.0)
            plain = fcsolve.solve(pos, max_seconds=5.0)
            assert plain is not None and plain.moves is not None
            assert verdict == WINNABLE and line is not None and wins(pos, line)
            assert len(line) <= len(plain.moves), (game, deal)


HARD = [18, 28, 31, 39]  # Baker's Dozen openings no search settles within a second


async def test_every_answer_comes_within_the_budget_however_busy_the_workers() -> None:
    """Four players ask at once about positions that each need more than the budget; one
    worker: each answer still comes within the budget and the slack (a search that waited
    gets only the time left to it)."""
    import time

    from service.solver.verdicts import ANSWER_SLACK

    solver = Solver(1.0, capacity=100, executor_factory=lambda: ThreadPoolExecutor(1))
    try:
        started = time.monotonic()

        async def ask(deal: int) -> float:
            found = await solver.verdict(VARIANTS["bakers_dozen"].deal(deal), owner=str(deal))
            assert found.verdict == UNKNOWN
            return time.monotonic() - started

        took = await asyncio.gather(*(ask(d) for d in HARD))
        assert max(took) <= 1.0 + ANSWER_SLACK + 0.1, took
    finally:
        solver.close()


async def test_one_player_cannot_take_every_worker() -> None:
    solver = Solver(1.0, capacity=100, workers=2,
                    executor_factory=lambda: ThreadPoolExecutor(2))
    try:
        cls = VARIANTS["bakers_dozen"]
        mine = [asyncio.create_task(solver.verdict(cls.deal(d), owner="a")) for d in HARD[:2]]
        await asyncio.sleep(0.05)
        assert solver.searches == 2
        third = await solver.verdict(cls.deal(HARD[2]), owner="a")  # answered at once
        assert third.verdict == UNKNOWN and third.solver == "none" and solver.searches == 2
        other = asyncio.create_task(solver.verdict(cls.deal(HARD[3]), owner="b"))
        await asyncio.sleep(0.05)
        assert solver.searches == 3  # another player's search starts
        await asyncio.gather(*mine, other)
        # once the first two end, the player may search again: a search runs (its verdict
        # within the budget, or unknown on a machine too busy for it), where a refusal is
        # answered at once by no solver
        again = await solver.verdict(cls.deal(5), owner="a")
        assert again.solver != "none" and solver.searches == 4, again
    finally:
        solver.close()


async def test_asking_again_about_an_unsettled_position_searches_deeper() -> None:
    """A position no search settled is not "unknown" for good: each ask starts a search of
    twice the last one's budget, which goes on past the answer, up to DEEPEST times the
    budget; asked again after that, the cache answers."""
    from service.solver.verdicts import DEEPEST

    solver = Solver(0.1, capacity=100, library=False,
                    executor_factory=lambda: ThreadPoolExecutor(1))
    try:
        position = VARIANTS["bakers_dozen"].deal(HARD[0])
        deepest = 1 + DEEPEST.bit_length() - 1  # 0.1, 0.2, 0.4 and 0.8 s
        for searches in range(1, deepest + 2):
            assert solver.would_search(position) == (searches <= deepest)
            found = await solver.verdict(position, owner="a")
            assert found.verdict == UNKNOWN
            assert solver.searches == min(searches, deepest)
            while solver.searching:
                await asyncio.sleep(0.02)
    finally:
        solver.close()


async def test_a_position_known_to_be_winnable_is_searched_deeper_still() -> None:
    """A deal's opening the tables say is solvable must not stay "unknown": asked again, it
    is searched deeper than DEEPEST times the budget, up to DEEPEST_WINNABLE times."""
    from service.solver.verdicts import DEEPEST, DEEPEST_WINNABLE

    solver = Solver(0.1, capacity=100, library=False,
                    executor_factory=lambda: ThreadPoolExecutor(1))
    try:
        position = VARIANTS["bakers_dozen"].deal(HARD[0])
        deepest = DEEPEST.bit_length()  # searches of 0.1, 0.2 and 0.4 s for any position
        assert DEEPEST_WINNABLE.bit_length() > deepest + 1
        for searches in range(1, deepest + 2):  # then one of 0.8 s
            assert solver.would_search(position, None, winnable=True)
            found = await solver.verdict(position, owner="a", winnable=True)
            assert found.verdict == UNKNOWN and solver.searches == searches
            while solver.searching:
                await asyncio.sleep(0.02)
        assert not solver.would_search(position)  # (as deep as any position goes)
    finally:
        solver.close()


@pytest.mark.parametrize("asker", ["b", "a"])
async def test_a_deeper_search_gives_its_worker_up_after_half_the_services_budget(
    asker: str,
) -> None:
    """One worker, busy with a search of 5 s (a deeper one, nobody waiting for it): a hint
    of another player, or of its own (players behind one address share an owner), gets
    the worker after half the service's budget, not half of those 5 s, and its answer (a
    budget of 2 s: the hint's search, 0.1 s of CPU here, has the other half, enough on a
    machine loaded threefold; 1 s was not)."""
    solver = Solver(2.0, capacity=100, library=False,
                    executor_factory=lambda: ThreadPoolExecutor(1))
    try:
        cls = VARIANTS["bakers_dozen"]
        deep = asyncio.create_task(solver.verdict(cls.deal(HARD[1]), 5.0, owner="a"))
        await asyncio.sleep(0.05)
        found = await solver.verdict(cls.deal(5), owner=asker)
        assert found.verdict == WINNABLE
        assert (await deep).verdict == UNKNOWN  # stopped: "unknown", as if its time were up
    finally:
        solver.close()
