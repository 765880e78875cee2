"""The engine's solver: winning lines replayed through the rules (never trusted), exact
proofs of unwinnable positions, agreement with Freecell Solver, hints that lead to a win."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import VARIANTS, Card, Game, Move, Position
from engine.solver import (
    UNKNOWN,
    UNWINNABLE,
    WINNABLE,
    canonical_key,
    layout,
    remap,
    solve,
)
from service.deals.table import DealTable

DATA = Path(__file__).resolve().parent.parent / "data"


def replays_to_a_win(position: Position, moves: tuple[Move, ...] | None) -> bool:
    """Whether the line, played move by move through the rules (autoplay off), wins."""
    assert moves is not None
    pos = position.copy()
    for move in moves:
        assert move in pos.legal_moves, f"{move} is not legal"
        pos.play(move)
    return pos.is_won


@pytest.mark.parametrize(
    ("game", "deal"),
    [
        ("freecell", 1), ("freecell", 617), ("bakers_game", 1), ("bakers_game", 3),
        ("beleaguered_castle", 2), ("beleaguered_castle", 6), ("bakers_dozen", 1),
        ("bakers_dozen", 4),
    ],
)  # fmt: skip
def test_a_winning_line_wins_when_replayed_with_autoplay_off(game: str, deal: int) -> None:
    opening = VARIANTS[game].deal(deal)
    found = solve(opening, max_seconds=20)
    assert found.verdict == WINNABLE and found.exact
    assert found.moves_to_win == len(found.moves or ())
    assert replays_to_a_win(opening, found.moves)
    g, log = Game.new(game, deal, autoplay=False)
    for move in found.moves or ():
        log += g.play(move)
    assert g.status == "won" and Game.replay(log).status == "won"
    assert opening == VARIANTS[game].deal(deal)  # the position given is left alone


def test_freecell_11982_is_proved_unwinnable() -> None:
    found = solve(VARIANTS["freecell"].deal(11982))
    assert found.verdict == UNWINNABLE and found.moves is None and found.exact
    assert found.states > 10_000  # a proof visits the whole reachable space


def test_a_budget_that_runs_out_gives_unknown() -> None:
    found = solve(VARIANTS["freecell"].deal(11982), max_states=500)
    assert found.verdict == UNKNOWN and found.moves is None and not found.exact
    timed = solve(VARIANTS["freecell"].deal(11982), max_seconds=0.05)
    assert timed.verdict == UNKNOWN and timed.seconds < 1.0


def test_won_and_blocked_positions() -> None:
    pos = VARIANTS["freecell"].deal(1)
    found = solve(pos)
    for move in found.moves or ():
        pos.play(move)
    done = solve(pos)
    assert done.verdict == WINNABLE and done.moves == ()
    # Baker's Dozen: one column left, the ace of spades under the two, and an empty column
    # stays empty: no legal move
    blocked = VARIANTS["bakers_dozen"].from_board_text(
        "Foundations: H-K C-K D-K S-0\n: 2S AS 3S 4S 5S 6S 7S 8S 9S TS JS QS KS\n"
    )
    assert blocked.outcome == "blocked"
    assert solve(blocked).verdict == UNWINNABLE


def test_columns_and_cells_in_another_order_share_a_key_and_a_line() -> None:
    cls = VARIANTS["freecell"]
    pos = cls.deal(5)
    for move in ("t1-c1", "t2-c3"):
        pos.play(Move.parse(move))
    order = [3, 0, 7, 1, 6, 2, 5, 4]
    shuffled = cls([pos.tableau[i] for i in order], list(reversed(pos.cells)), pos.foundations)
    assert canonical_key(shuffled) == canonical_key(pos)
    assert layout(shuffled) != layout(pos)
    found = solve(pos)
    assert found.verdict == WINNABLE
    mapped = remap(found.moves or (), layout(pos), layout(shuffled))
    assert mapped is not None and replays_to_a_win(shuffled, mapped)
    other = cls.deal(6)
    assert remap(found.moves or (), layout(pos), layout(other)) is None


def test_every_hint_leaves_a_position_the_solver_still_wins() -> None:
    rng = random.Random(7)
    for game, deal in (("freecell", 8), ("bakers_game", 2), ("beleaguered_castle", 6)):
        g, _ = Game.new(game, deal, autoplay=bool(rng.getrandbits(1)))
        for _ in range(5):
            found = solve(g.position, max_seconds=10)
            assert found.verdict == WINNABLE and found.moves
            g.play(found.moves[0])
            after = solve(g.position, max_seconds=10)
            assert after.verdict == WINNABLE
            assert replays_to_a_win(g.position, after.moves)


def test_agrees_with_freecell_solver_on_stored_verdicts() -> None:
    """fc-solve's exact (atomic-moves) verdicts, stored by tests/data/make_verdicts.py: ours
    is never the opposite, and is exact on nearly all of them within a small budget."""
    cases = json.loads((DATA / "fcsolve_verdicts.json").read_text())["cases"]
    assert len(cases) >= 200
    assert {c["game"] for c in cases} == {"freecell", "bakers_game", "beleaguered_castle"}
    assert any(c["verdict"] == UNWINNABLE for c in cases)
    exact = 0
    for case in cases:
        pos = VARIANTS[case["game"]].from_board_text(case["board"])
        found = solve(pos, max_states=20_000)
        if found.verdict == WINNABLE:
            assert case["verdict"] == WINNABLE, case
            assert replays_to_a_win(pos, found.moves)
            exact += 1
        elif found.verdict == UNWINNABLE:
            assert case["verdict"] == UNWINNABLE, case
            exact += 1
    assert exact >= 0.8 * len(cases), exact


@pytest.mark.parametrize("game", ["bakers_game", "beleaguered_castle"])
def test_deals_fc_solve_proved_unsolvable_are_never_called_winnable(game: str) -> None:
    table = DealTable.load(game)
    unsolvable = sorted(table.unsolvable)[:25]
    assert len(unsolvable) == 25
    proved = 0
    for deal in unsolvable:
        found = solve(VARIANTS[game].deal(deal), max_states=20_000)
        assert found.verdict != WINNABLE, (game, deal)
        proved += found.verdict == UNWINNABLE
    assert proved >= 5


def test_freecell_deals_1_to_1000_are_winnable() -> None:
    """The stored table (made with Freecell Solver) says so for all of 1-1000; our solver
    finds the win for a sample of 50 of them."""
    table = DealTable.load("freecell")
    assert table.checked >= 1000
    assert all(table.solvable(deal) for deal in range(1, 1001))
    assert table.solvable(11982) is False or table.checked < 11982
    for deal in random.Random(2024).sample(range(1, 1001), 50):
        opening = VARIANTS["freecell"].deal(deal)
        found = solve(opening, max_states=500_000)  # a budget of work, not of time
        assert found.verdict == WINNABLE, deal
        assert replays_to_a_win(opening, found.moves)


def plain_search(position: Position, limit: int = 100_000) -> bool | None:
    """Whether a win is reachable, by a depth-first search over the engine's own legal moves
    with no pruning at all (None past ``limit`` positions): an independent check."""
    seen = {position.key()}
    stack = [position.copy()]
    while stack:
        pos = stack.pop()
        if pos.is_won:
            return True
        for move in pos.legal_moves:
            nxt = pos.copy()
            nxt.push(move)
            key = nxt.key()
            if key not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(key)
                stack.append(nxt)
    return False


@pytest.mark.parametrize(
    ("game", "deal"),
    [("bakers_dozen", 3865), ("bakers_dozen", 2662), ("beleaguered_castle", 3)],
)
def test_proofs_agree_with_a_search_without_pruning(game: str, deal: int) -> None:
    """The pruning (forced automatic moves, columns and cells in any order) loses no win."""
    opening = VARIANTS[game].deal(deal)
    assert solve(opening).verdict == UNWINNABLE
    assert plain_search(opening) is False


def test_endgames_agree_with_a_search_without_pruning() -> None:
    """Positions near the end of won games, stirred by random moves: the two searches give
    the same verdict (both ways: no win lost, no win invented)."""
    solutions = json.loads((DATA / "solutions.json").read_text())["solutions"]
    rng = random.Random(11)
    compared = {True: 0, False: 0}
    for game, deals in solutions.items():
        for deal, text in list(deals.items())[:12]:
            line = [Move.parse(t) for t in text.split()]
            pos = VARIANTS[game].deal(int(deal))
            for move in line[: max(0, len(line) - rng.randint(6, 16))]:
                pos.play(move)
            for _ in range(rng.randint(0, 8)):
                legal = list(pos.legal_moves)
                if legal:
                    pos.play(rng.choice(legal))
            expected = plain_search(pos, 4_000)
            if expected is None:
                continue
            found = solve(pos)
            assert found.verdict == (WINNABLE if expected else UNWINNABLE), (game, deal)
            compared[expected] += 1
    assert compared[True] >= 15, compared  # (the other way: the test above)


def test_bakers_dozen_pruning_never_loses_a_win() -> None:
    """Baker's Dozen's search leaves out moves (a lone card onto another column; a narrow
    first pass): on small random positions its verdicts equal an unpruned search's."""
    cls = VARIANTS["bakers_dozen"]
    rng = random.Random(2026)
    verdicts = set()
    # (cards dealt over few columns make the tall stacks where the narrow pass misses wins)
    for spread in [5] * 80 + [3] * 500:
        up = {suit: rng.randint(8, 13) for suit in "SHCD"}
        cards = [Card(rank, suit) for suit in "SHCD" for rank in range(up[suit] + 1, 14)]
        rng.shuffle(cards)
        columns: list[list[Card]] = [[] for _ in range(13)]
        for card in cards:
            columns[rng.randrange(spread)].append(card)
        pos = cls(columns, [], up)
        expected = plain_search(pos, 1_000_000)
        assert expected is not None
        found = solve(pos)
        assert found.verdict == (WINNABLE if expected else UNWINNABLE), pos.board_text()
        if expected:
            assert replays_to_a_win(pos, found.moves)
        verdicts.add(found.verdict)
    assert verdicts == {WINNABLE, UNWINNABLE}
