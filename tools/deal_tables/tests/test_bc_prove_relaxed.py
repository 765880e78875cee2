"""bc_prove.c's relaxed games (--suitless R: the cards above rank R without suits): the
prover plays the relaxed game a naive search plays, a relaxed game without a win proves a deal
unsolvable (through solve_deals too), and a deal that can be won is won in every relaxed
game."""

from __future__ import annotations

import random

import pytest

from engine import Card, Position
from engine.solver import UNKNOWN, UNWINNABLE, solve
from service.deals.table import table
from tools.deal_tables import bc_prove, solve_deals

from .test_bc_prove import CASTLE, foundations_text


def relaxed_winnable(pos: Position, rank: int, limit: int = 200_000) -> bool | None:
    """The relaxed game of ``bc_prove --suitless rank``, searched naively (every legal move,
    none automatic, nothing pruned): the cards above ``rank`` have no suit and such a card
    of rank r goes up when fewer cards of rank r than of rank r - 1 are up.  None past
    ``limit`` positions.  A position: the rows (sorted), each suit's foundation up to
    ``rank``, and how many cards of each rank above it are up."""

    def key(card: Card) -> tuple[int, str]:
        return (card.rank, card.suit if card.rank <= rank else "")

    start = (
        tuple(sorted(tuple(key(card) for card in column) for column in pos.tableau)),
        tuple(min(pos.foundations[suit], rank) for suit in "HCDS"),
        tuple(sum(pos.foundations[suit] >= r for suit in "HCDS") for r in range(rank, 14)),
    )
    seen = set()
    todo = [start]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        if len(seen) > limit:
            return None
        rows, low, up = state  # up[0]: the suits whose foundation holds `rank` or more
        if not any(rows):
            return True
        for i, row in enumerate(rows):
            if not row:
                continue
            (r, suit), rest = row[-1], row[:-1]
            for j, other in enumerate(rows):  # onto a card a rank higher, or an empty row
                if j != i and (not other or other[-1][0] == r + 1):
                    moved = list(rows)
                    moved[i], moved[j] = rest, other + row[-1:]
                    todo.append((tuple(sorted(moved)), low, up))
            gone = tuple(sorted([*rows[:i], rest, *rows[i + 1 :]]))
            if r <= rank:
                s = "HCDS".index(suit)
                if low[s] == r - 1:
                    raised = list(low)
                    raised[s] = r
                    counts = list(up)
                    counts[0] = sum(level == rank for level in raised)
                    todo.append((gone, tuple(raised), tuple(counts)))
            elif up[r - 1 - rank] > up[r - rank]:
                counts = list(up)
                counts[r - rank] += 1
                todo.append((gone, low, tuple(counts)))
    return False


def test_the_relaxed_game_is_the_one_a_naive_search_plays(exe) -> None:
    """bc_prove --suitless R (its automatic moves, pruning and merged positions) against
    the relaxed game searched naively above, for every R: on unsolvable deals whose relaxed
    games are small (the looser ones can be won), and on random endgames (foundations
    part-way, the other cards dealt at random into the eight rows); and wherever the real
    game can be won (the engine's exact solver), so can the relaxed one."""
    rng = random.Random(13)
    positions = []
    for deal in (1, 3, 18, 54, 56, 57, 59, 64, 65):
        assert table("beleaguered_castle").solvable(deal) is False
        positions.append((CASTLE.deal(deal), UNWINNABLE))
    while len(positions) < 24:
        levels = {s: rng.randrange(8, 13) for s in "HCDS"}
        rest = [Card(r, s) for s in "HCDS" for r in range(levels[s] + 1, 14)]
        rng.shuffle(rest)
        rows: list[list[Card]] = [[] for _ in range(8)]
        for card in rest:
            rows[rng.randrange(8)].append(card)
        text = "Foundations: " + foundations_text(levels) + "\n"
        text += "".join(": " + " ".join(c.text for c in row) + "\n" for row in rows)
        pos = CASTLE.from_board_text(text)
        positions.append((pos, solve(pos, max_seconds=5).verdict))
    outcomes = {True: 0, False: 0}
    looser = 0
    for pos, real in positions:
        assert real != UNKNOWN
        for rank in range(1, 13):
            naive = relaxed_winnable(pos, rank)
            assert naive is not None, (rank, pos.board_text())
            found = bc_prove.prove(pos, mb=64, suitless=rank, exe=exe)
            if naive:
                assert (found.verdict, found.reason) == (UNKNOWN, "relaxed-won"), rank
            else:
                assert found.verdict == UNWINNABLE, (rank, pos.board_text())
            assert naive or real == UNWINNABLE, (rank, pos.board_text())
            outcomes[naive] += 1
            looser += naive and real == UNWINNABLE
    assert outcomes[True] >= 100 and outcomes[False] >= 50 and looser >= 20, (outcomes, looser)


def test_a_relaxed_game_without_a_win_proves_a_deal_unsolvable(exe) -> None:
    """Deal 2925 (unsolvable: 3,083,339 positions) in relaxed games: the cards above 8
    without suits, 497,287 positions and no win; above 6, 87,443; above 4 the relaxed game
    can be won, which says nothing of the deal.  Through solve_deals, R = 4 then 6: the
    second settles it."""
    opening = CASTLE.deal(2925)
    real = bc_prove.prove(opening, mb=256, exe=exe)
    assert real.verdict == UNWINNABLE and real.states == 3_083_339
    eight = bc_prove.prove(opening, mb=64, suitless=8, exe=exe)
    six = bc_prove.prove(opening, mb=64, suitless=6, exe=exe)
    assert (eight.verdict, eight.states) == (UNWINNABLE, 497_287)
    assert (six.verdict, six.states) == (UNWINNABLE, 87_443) and "suitless=6" in six.summary()
    four = bc_prove.prove(opening, mb=64, suitless=4, exe=exe)
    assert (four.verdict, four.reason, four.moves) == (UNKNOWN, "relaxed-won", None)
    verdict, how, figures = solve_deals.prover_verdict(
        opening, 64, None, exe, suitless=(4, 6), exhaustive=False
    )
    assert (verdict, how) == (UNWINNABLE, solve_deals.RELAXED_TAG) and "suitless=6" in figures
    verdict, how, figures = solve_deals.prover_verdict(
        opening, 64, None, exe, suitless=(4,), exhaustive=False
    )
    assert verdict == UNKNOWN and figures.startswith("suitless=4:relaxed-won")


@pytest.mark.parametrize("deal", [2, 4, 9, 11])
def test_a_deal_that_can_be_won_is_won_in_every_relaxed_game(exe, deal: int) -> None:
    opening = CASTLE.deal(deal)
    for rank in range(1, 13):
        found = bc_prove.prove(opening, mb=64, suitless=rank, exe=exe)
        assert (found.verdict, found.reason) == (UNKNOWN, "relaxed-won"), rank
