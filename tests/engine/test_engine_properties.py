"""Properties over random deals and random legal play, in all four games."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import MAX_DEAL, VARIANTS, EngineError, Game, Move, Position

GAMES = st.sampled_from(sorted(VARIANTS))
DEALS = st.one_of(st.integers(1, 32000), st.integers(1, MAX_DEAL))
CHOICES = st.lists(st.integers(0, 2**16), min_size=1, max_size=80)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def count_cards(pos: Position) -> Counter[str]:
    cards: Counter[str] = Counter(c.text for col in pos.tableau for c in col)
    cards.update(c.text for c in pos.cells if c is not None)
    for suit, top in pos.foundations.items():
        cards.update(f"{'A23456789TJQK'[r - 1]}{suit}" for r in range(1, top + 1))
    return cards


def all_moves(cls: type[Position], pos: Position) -> list[Move]:
    """Every syntactically valid move of the game, with counts up to the tallest column + 1."""
    sources = [f"t{i + 1}" for i in range(cls.column_count)]
    sources += [f"c{i + 1}" for i in range(cls.cell_count)] + ["f"]
    targets = [s for s in sources if s != "f"] + ["f"] + (["c"] if cls.cell_count else [])
    top = max((len(col) for col in pos.tableau), default=1) + 1
    counts = range(1, top + 1) if cls.moves_runs else (1, 2)
    return [Move(s, t, n) for s in sources for t in targets if s != t for n in counts]


def accepts(pos: Position, move: Move) -> bool:
    """Whether check() accepts the move."""
    try:
        pos.check(move)
    except EngineError:
        return False
    return True


@SETTINGS
@given(GAMES, DEALS, CHOICES)
def test_random_play(name: str, deal: int, choices: list[int]) -> None:
    cls = VARIANTS[name]
    pos = cls.deal(deal)
    candidates = all_moves(cls, pos)
    for step, choice in enumerate(choices):
        assert sum(count_cards(pos).values()) == 52 and max(count_cards(pos).values()) == 1
        legal = pos.legal_moves
        listed = list(legal)
        assert len(set(listed)) == len(listed) == len(legal)
        for move in listed:
            assert move in legal
            assert pos.check(move) == move
        # a random move that is not listed is refused (or is an equivalent cell move)
        other = candidates[choice % len(candidates)]
        if other not in legal:
            try:
                pos.check(other)
            except EngineError:
                pass
            else:
                raise AssertionError(f"{other} accepted but not in legal moves")
        if step % 10 == 0:
            # exhaustive: check() accepts exactly the moves legal_moves contains
            for move in all_moves(cls, pos):
                assert accepts(pos, move) == (move in legal), move
        # destinations agree with the legal moves
        for i, col in enumerate(pos.tableau):
            if col:
                dest = pos.destinations(col[-1])
                assert all(Move(f"t{i + 1}", d) in legal for d in dest)
        if not listed:
            assert pos.outcome in ("blocked", "won")
            break
        assert pos.outcome == "playing"
        move = listed[choice % len(listed)]
        before = pos.copy()
        key = pos.key()
        assert pos.play(move) == move
        assert pos.key() != key
        undone = pos.undo()
        assert undone == move and pos == before and pos.key() == key
        assert pos.cells == before.cells and pos.foundations == before.foundations
        pos.play(move)
        assert pos.move_stack[-1] == move
        auto = pos.auto_move()
        if auto is not None:
            assert auto in pos.legal_moves and auto.target == "f"
    assert Position.__eq__(pos, pos.copy())
    replayed = cls.deal(deal)
    for move in pos.move_stack:
        replayed.push(move)
    assert replayed == pos


ACTIONS = st.lists(
    st.tuples(st.sampled_from(["play", "play", "play", "undo", "redo"]), st.integers(0, 2**16)),
    min_size=1,
    max_size=80,
)


@SETTINGS
@given(GAMES, DEALS, st.booleans(), ACTIONS)
def test_game_replay_equals_live_game(
    name: str, deal: int, autoplay: bool, actions: list[tuple[str, int]]
) -> None:
    game, log = Game.new(name, deal, autoplay)
    for action, choice in actions:
        if game.is_over:
            break
        if action == "play":
            legal = list(game.position.legal_moves)
            if not legal:
                assert game.status == "blocked"
                continue
            events = game.play(legal[choice % len(legal)])
        elif action == "undo":
            if not game.can_undo:
                continue
            before_moves = game.moves
            events = game.undo()
            assert game.moves == before_moves - 1
        else:
            if not game.can_redo:
                continue
            events = game.redo()
        log += events
        assert game.version == len(log)
    for check in (False, True):
        again = Game.replay(log, check=check)
        assert again.position == game.position
        assert again.position.move_stack == game.position.move_stack
        assert (again.version, again.status, again.moves, again.undos) == (
            game.version,
            game.status,
            game.moves,
            game.undos,
        )
        assert (again.can_undo, again.can_redo) == (game.can_undo, game.can_redo)
    # the copy is independent and behaves the same
    twin = game.copy()
    assert twin.position == game.position
    if twin.can_undo:
        twin.undo()
        assert twin.version == game.version + 1
    # apply one event at a time reaches the same game
    step = Game.replay(log[:1])
    for event in log[1:]:
        step.apply(event)
    assert step.position == game.position
