"""bc_prove.c, Beleaguered Castle's exhaustive prover: it compiles, agrees with the
rules on every legal move and on the automatic moves, proves unsolvable what the table says
Freecell Solver proved unsolvable, and its winning lines win when the engine replays them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import VARIANTS, Card, Position
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE, solve
from service.deals.table import table
from tools.deal_tables import bc_prove, solve_deals

CASTLE = VARIANTS["beleaguered_castle"]
FOUNDATION_RANKS = "0A23456789TJQK"


@pytest.fixture(scope="module")
def exe():
    # no skip without gcc: the tables depend on this program, so its absence is a failure
    return bc_prove.build()


def foundations_text(foundations: dict[str, int]) -> str:
    return " ".join(f"{s}-{FOUNDATION_RANKS[foundations[s]]}" for s in "HCDS")


def engine_view(pos: Position) -> tuple[set[str], str, str]:
    """The engine's legal moves, its foundations once its automatic moves are played, and
    the foundations once the prover's automatic moves are: a card of rank r that fits goes
    up when every foundation holds r - 2 or more (bc_prove.c has the proof)."""
    moves = {str(move) for move in pos.legal_moves}
    after = pos.copy(stack=False)
    while (move := after.auto_move()) is not None:
        after.push(move)
    found = dict(pos.foundations)
    tops = [list(column) for column in pos.tableau]
    while True:
        up = [
            column
            for column in tops
            if column
            and found[column[-1].suit] == column[-1].rank - 1
            and min(found.values()) >= column[-1].rank - 2
        ]
        if not up:
            break
        card = up[0].pop()
        found[card.suit] = card.rank
    return moves, foundations_text(after.foundations), foundations_text(found)


def test_the_prover_lists_the_engines_legal_moves_and_automatic_moves(exe) -> None:
    """On positions along winning lines (where rows empty and cards go up by themselves) and
    a few random moves off them, and on positions of random play from random deals."""
    rng = random.Random(2024)
    positions: list[Position] = []
    for deal in (2, 4, 9, 11):
        pos = CASTLE.deal(deal)
        line = bc_prove.prove(pos, mb=64, exe=exe).moves or ()
        for i, move in enumerate(line):
            if i % 5 == 0:
                off = pos.copy(stack=False)
                for _ in range(rng.randrange(4)):
                    legal = list(off.legal_moves)
                    if legal:
                        off.play(rng.choice(legal))
                positions.append(off)
            pos.play(move)
    for deal in rng.sample(range(1, 32001), 6):
        pos = CASTLE.deal(deal)
        for step in range(100):
            legal = list(pos.legal_moves)
            if step % 5 == 0 or not legal:
                positions.append(pos.copy(stack=False))
            if not legal:
                break
            pos.play(rng.choice(legal))
    empty_rows = autos = more = 0
    for pos in positions:
        moves, rule, search = bc_prove.legal_moves(pos, exe)
        expected_moves, expected_rule, expected_search = engine_view(pos)
        assert len(moves) == len(set(moves)), pos.board_text()
        assert set(moves) == expected_moves, pos.board_text()
        assert (rule, search) == (expected_rule, expected_search), pos.board_text()
        empty_rows += any(not column for column in pos.tableau)
        autos += pos.auto_move() is not None
        more += search != rule
    assert len(positions) > 150 and empty_rows > 20 and autos > 20 and more > 10, (
        len(positions),
        empty_rows,
        autos,
        more,
    )


@pytest.mark.parametrize("deal", [1, 3, 26, 35])
def test_deals_freecell_solver_proved_unsolvable_are_unsolvable(exe, deal: int) -> None:
    assert table("beleaguered_castle").solvable(deal) is False
    found = bc_prove.prove(CASTLE.deal(deal), mb=64, exe=exe)
    assert found.verdict == UNWINNABLE and found.moves is None
    assert found.states > 0 and found.false_seen_bound < 1e-12


@pytest.mark.parametrize("deal", [2, 4, 9, 11])
def test_winning_lines_win_when_the_engine_replays_them(exe, deal: int) -> None:
    assert table("beleaguered_castle").solvable(deal) is True
    opening = CASTLE.deal(deal)
    found = bc_prove.prove(opening, mb=64, exe=exe)
    assert found.verdict == WINNABLE and found.moves
    pos = opening.copy()
    for move in found.moves:  # every move legal, autoplay off, to the last card
        assert move in pos.legal_moves, move
        pos.play(move)
    assert pos.is_won


def test_a_line_that_does_not_win_is_refused() -> None:
    opening = CASTLE.deal(2)
    with pytest.raises(AssertionError):
        bc_prove.replay(opening, [next(iter(opening.legal_moves))])


def test_the_order_of_the_rows_does_not_matter(exe) -> None:
    """Rows are interchangeable: the same deal with its rows in another order has the same
    reachable positions, so the exhaustive search stores as many."""
    for deal in (1, 26):
        opening = CASTLE.deal(deal)
        rows = [column[:] for column in opening.tableau]
        random.Random(deal).shuffle(rows)
        shuffled = CASTLE(rows, foundations=opening.foundations)
        first = bc_prove.prove(opening, mb=64, exe=exe)
        second = bc_prove.prove(shuffled, mb=64, exe=exe)
        assert first.verdict == second.verdict == UNWINNABLE
        assert first.states == second.states


def test_budgets_and_positions_won_at_once(exe) -> None:
    # a budget that runs out gives unknown, never a verdict
    found = bc_prove.prove(CASTLE.deal(26), mb=64, states=1000, exe=exe)
    assert found.verdict == UNKNOWN and found.reason == "states" and found.moves is None
    # rows running down towards their tops: won by putting the cards up
    ranks = "KQJT98765432"
    rows = [[f"{r}{s}" for r in ranks[i * 6 : i * 6 + 6]] for s in "SHDC" for i in range(2)]
    pos = CASTLE.from_board_text(
        "Foundations: H-A C-A D-A S-A\n" + "\n".join(" ".join(row) for row in rows)
    )
    found = bc_prove.prove(pos, mb=64, exe=exe)
    assert found.verdict == WINNABLE and found.moves is not None and len(found.moves) == 48


def test_a_full_table_forgets_positions_and_the_verdicts_stand(exe) -> None:
    """With evict, a table too small for the search makes room by forgetting positions the
    search is done with: the verdicts stay exact (deal 2925 reaches about 3.1 million
    positions, the 24 MB table holds 2.8 million)."""
    opening = CASTLE.deal(2925)
    assert table("beleaguered_castle").solvable(2925) is False
    full = bc_prove.prove(opening, mb=24, exe=exe)
    assert full.verdict == UNKNOWN and full.reason == "memory"
    forgetting = bc_prove.prove(opening, mb=24, evict=True, exe=exe)
    assert forgetting.verdict == UNWINNABLE and forgetting.evicted > 100_000
    assert forgetting.states > full.states and forgetting.false_seen_bound < 1e-9
    # a win found with a table holding half of the positions the search meets
    found = bc_prove.prove(CASTLE.deal(9), mb=0.25, evict=True, exe=exe)
    assert found.verdict == WINNABLE and found.evicted > 0 and found.moves
    assert found.bits == 60


def test_searches_in_threads_share_one_table_and_store_every_position_once(exe) -> None:
    """--threads: searches share a table, the first from the opening, the others from the
    ends of random walks; together they store exactly the positions one search stores (deal
    2925: about 3.1 million, unsolvable), they prove it with a table too small for them too,
    and a win, walk and all, is a line the engine replays."""
    opening = CASTLE.deal(2925)
    one = bc_prove.prove(opening, mb=64, exe=exe)
    two = bc_prove.prove(opening, mb=64, threads=2, exe=exe)
    assert one.verdict == two.verdict == UNWINNABLE
    assert two.states == one.states > 3_000_000 and two.threads == 2
    shares = [int(n) for n in two.per_thread.split(",")]
    assert len(shares) == 2 and sum(shares) == two.states and min(shares) > 0
    forgetting = bc_prove.prove(opening, mb=24, evict=True, threads=2, exe=exe)
    assert forgetting.verdict == UNWINNABLE and forgetting.evicted > 100_000
    assert forgetting.states > one.states
    for deal in (2, 9, 10, 11):
        assert table("beleaguered_castle").solvable(deal) is True
        found = bc_prove.prove(CASTLE.deal(deal), mb=256, evict=True, threads=2, exe=exe)
        assert found.verdict == WINNABLE and found.moves  # replayed by prove()
    # solve_deals.py --prover-threads: the long search in threads
    verdict, how, figures = solve_deals.prover_verdict(CASTLE.deal(26), 64, None, exe, threads=2)
    assert (verdict, how) == (UNWINNABLE, solve_deals.PROVER_TAG) and "threads=2" in figures


def test_the_paths_room_is_its_own_budget(exe) -> None:
    """--stack-mb bounds the path's stacks apart from the table: deal 2856's search runs
    19119 positions deep before a 64 MB table is full, 0.1 MB of stacks stop it sooner."""
    deal = CASTLE.deal(2856)
    roomy = bc_prove.prove(deal, mb=64, exe=exe)
    assert roomy.verdict == UNKNOWN and roomy.reason == "memory" and roomy.max_depth > 15_000
    tight = bc_prove.prove(deal, mb=64, stack_mb=0.1, exe=exe)
    assert tight.verdict == UNKNOWN and tight.reason == "memory"
    assert tight.max_depth < 10_000 and tight.states < roomy.states


def test_a_table_of_gigabytes_takes_1_gb_pages_where_the_machine_has_them(exe) -> None:
    """A table of 1 GB or more lies in reserved 1 GB pages when the machine has free ones
    (fewer TLB misses: the same search, faster), else in the usual pages; the search and
    its verdict are the same either way."""
    free = Path("/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages")
    has_pages = free.exists() and int(free.read_text()) > 0
    small = bc_prove.prove(CASTLE.deal(26), mb=64, exe=exe)
    large = bc_prove.prove(CASTLE.deal(26), mb=1200, exe=exe)
    assert small.verdict == large.verdict == UNWINNABLE
    assert large.states == small.states
    assert small.pages == "" and large.pages == ("1G" if has_pages else "")


def test_only_beleaguered_castle() -> None:
    with pytest.raises(ValueError):
        bc_prove.prove(VARIANTS["freecell"].deal(1))


def test_the_searchs_automatic_moves_keep_the_verdicts_of_the_engines_solver(exe) -> None:
    """Where the prover puts up more cards than RULES.md's rule, its verdicts are still
    those of the engine's exact solver (which follows RULES.md's rule only): on positions a
    few random moves off winning lines (second half of the game), and on positions of random
    play from deals the table calls unsolvable."""
    rng = random.Random(7)
    compared = {WINNABLE: 0, UNWINNABLE: 0}

    def compare(pos: Position) -> bool:
        _, rule, search = bc_prove.legal_moves(pos, exe)
        if rule == search:
            return False
        found = bc_prove.prove(pos, mb=64, exe=exe)
        exact = solve(pos, max_seconds=1)
        if exact.verdict != UNKNOWN:
            assert found.verdict == exact.verdict, pos.board_text()
            compared[found.verdict] += 1
        return True

    for deal in (2, 4, 9, 11):
        pos = CASTLE.deal(deal)
        line = bc_prove.prove(pos, mb=64, exe=exe).moves or ()
        for i, move in enumerate(line):
            pos.play(move)
            if i >= len(line) // 2 and i % 3 == 0:
                off = pos.copy(stack=False)
                for _ in range(rng.randrange(1, 6)):
                    legal = list(off.legal_moves)
                    if legal:
                        off.play(rng.choice(legal))
                compare(off)
    for deal in (93, 98, 101, 111, 120, 123, 198, 339, 364, 369):
        assert table("beleaguered_castle").solvable(deal) is False
        pos = CASTLE.deal(deal)
        for _ in range(20):
            if compare(pos) or not pos.legal_moves:
                break
            pos.play(rng.choice(list(pos.legal_moves)))
    assert compared[WINNABLE] >= 10 and compared[UNWINNABLE] >= 5, compared


def test_a_shuffled_move_order_keeps_the_search_exhaustive(exe) -> None:
    """--seed changes only the order in which moves are tried: an unsolvable deal's search
    stores every reachable position whatever the seed, and a solvable one wins."""
    for deal in (1, 26):
        plain = bc_prove.prove(CASTLE.deal(deal), mb=64, exe=exe)
        for seed, mix in ((1, False), (2, False), (77, False), (3, True)):
            shuffled = bc_prove.prove(CASTLE.deal(deal), mb=64, seed=seed, mix=mix, exe=exe)
            assert shuffled.verdict == plain.verdict == UNWINNABLE
            assert shuffled.states == plain.states and (shuffled.seed, shuffled.mix) == (seed, mix)
    for deal in (2, 9):
        lines = {bc_prove.prove(CASTLE.deal(deal), mb=64, seed=s, exe=exe).moves for s in (1, 2, 3)}
        assert None not in lines and len(lines) > 1  # replayed to a win; other orders, other lines


def test_restarts_find_a_win_the_programs_own_order_reaches_late(exe) -> None:
    """Deal 4032: the program's own order meets its first win after 3.5 billion positions;
    seed 5 after about 2000.  solve_deals.py tries seeds 1, 2, ... with a small
    budget each before the long search, and a line found so is replayed like any other."""
    opening = CASTLE.deal(4032)
    plain = bc_prove.prove(opening, mb=64, states=200_000, exe=exe)
    assert plain.verdict == UNKNOWN and plain.reason == "states"
    lucky = bc_prove.prove(opening, mb=64, states=200_000, seed=5, exe=exe)
    assert lucky.verdict == WINNABLE and lucky.moves and lucky.states < 10_000
    verdict, how, figures = solve_deals.prover_verdict(
        opening, 64, None, exe, restarts=5, restart_states=200_000, exhaustive=False
    )
    assert (verdict, how) == (WINNABLE, solve_deals.PROVER_TAG) and "seed=" in figures
    # no restart: the short budget is not the long search's, which is not run
    verdict, _, figures = solve_deals.prover_verdict(
        opening, 64, None, exe, restarts=0, exhaustive=False
    )
    assert verdict == UNKNOWN and figures == "restarts=0 states=2000000"
    # a restart whose budget holds every reachable position proves a deal unsolvable
    verdict, _, figures = solve_deals.prover_verdict(
        CASTLE.deal(26), 64, None, exe, restarts=1, restart_states=5_000_000, exhaustive=False
    )
    assert verdict == UNWINNABLE and "seed=1" in figures


def test_a_further_shuffle_is_another_family_of_orders(exe) -> None:
    """Deal 6170: seeds 1 to 30 find no win within 2 million positions each; with --mix
    (moves into an empty row among the others) seed 25 wins after 383354."""
    opening = CASTLE.deal(6170)
    plain = bc_prove.prove(opening, mb=64, states=500_000, seed=25, exe=exe)
    assert plain.verdict == UNKNOWN
    mixed = bc_prove.prove(opening, mb=64, states=500_000, seed=25, mix=True, exe=exe)
    assert mixed.verdict == WINNABLE and mixed.moves and "seed=25 mix=1" in mixed.summary()


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
