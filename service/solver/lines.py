"""Winning lines against the rules: whether a line wins from a position, the moves a player
makes to follow one (with autoplay, less the moves the game plays by itself), and the rest
of the last hint's line kept on a game's record."""

from __future__ import annotations

from collections.abc import Sequence

from engine import Card, Game, Move, Position
from engine.moves import CELL_NAMES


def follows(position: Position, moves: Sequence[Move], autoplay: bool = False) -> bool:
    """Whether playing these moves from ``position`` as a player (the game's automatic
    moves after each, with autoplay on) wins, every move legal."""
    pos = position.copy()
    try:
        for move in moves:
            pos.push(pos.check(move))
            while autoplay and (auto := pos.auto_move()) is not None:
                pos.push(auto)
    except ValueError:
        return False
    return pos.is_won


def player_moves(
    position: Position, line: tuple[Move, ...], autoplay: bool
) -> tuple[Move, ...] | None:
    """The moves a player makes to follow a winning line from ``position`` (see
    :func:`follow_line`); None when the line cannot be followed to the end."""
    moves, stuck = follow_line(position, line, autoplay)
    return moves if stuck is None else None


def follow_line(
    position: Position, line: tuple[Move, ...], autoplay: bool
) -> tuple[tuple[Move, ...], Position | None]:
    """The moves a player makes to follow a winning line from ``position``, and where they
    got stuck (None when they win). With autoplay on, the line less the moves to the
    foundations that the game plays by itself on the way; the game may put a card up
    earlier than the line does, and the line may have needed that card where it was:
    then the player is stuck there, and a new search goes on from that position."""
    raw = position.copy()  # the line as the search played it
    pos = position.copy()  # the game as the player plays it
    moves: list[Move] = []
    cells: dict[str, str] = {}  # the line's cells, by the names they have in the game
    for move in line:
        if pos.is_won:  # the game put the last cards up by itself
            break
        try:
            card = raw.card_at(move.source)
            raw.push(raw.check(move))
            if autoplay and card is not None and move.target == "f" and up(pos, card):
                continue  # the game put it up already
            move = as_listed(pos, move, cells)
            pos.push(pos.check(move))
        except ValueError:
            return tuple(moves), pos
        moves.append(move)
        while autoplay and (auto := pos.auto_move()) is not None:
            pos.push(auto)
    return tuple(moves), (None if pos.is_won else pos)


def as_listed(position: Position, move: Move, cells: dict[str, str] | None = None) -> Move:
    """The line's move as the game lists it (Position.legal_moves): a card into an empty
    cell goes into the first empty one, and a card the line takes from a cell comes from
    the cell it went into (`cells`, kept along the line). The cells are alike, so the line
    wins as it did, as long."""
    cells = {} if cells is None else cells
    source = cells.get(move.source, move.source)
    target = move.target
    if target in CELL_NAMES:
        free = next((i for i, held in enumerate(position.cells) if held is None), None)
        if free is not None:
            cells[target] = target = CELL_NAMES[free]
    if (source, target) == (move.source, move.target):
        return move
    return Move(source, target, move.count)


def up(position: Position, card: Card) -> bool:
    """Whether the card is on its foundation already."""
    return position.foundations[card.suit] >= card.rank


def line_from_record(game: Game) -> tuple[Move, ...] | None:
    """The rest of the last hint's line (kept in the game's log), when the game still lies
    on it: a tail of the line that wins from the present position. A player who
    follows the hints gets the same line one move shorter each time, on any instance and
    after any restart; one who left it gets None (and a new search)."""
    if not game.hint_line:
        return None
    moves = tuple(Move.parse(text) for text in game.hint_line)
    # the player played the line's first moves since the hint (the usual case): the rest
    # of a line that was checked when it was recorded
    after = game.moves_since_hint()
    if after is not None and len(after) < len(moves) and tuple(after) == moves[: len(after)]:
        return _listed(game, moves[len(after) :])
    # most often the hinted move was just played: the line less its first move; else the
    # shortest tail that still wins (a tail may also win from a position the player
    # reached another way, so the longest one would not always be progress)
    for k in (1, *range(len(moves) - 1, -1, -1)):
        tail = moves[k:]
        if tail and follows(game.position, tail, game.autoplay):
            return _listed(game, tail)
    return None


def _listed(game: Game, tail: tuple[Move, ...]) -> tuple[Move, ...]:
    """A tail of the hint's line (the player's moves) that wins from the game's position,
    its moves as legal-moves lists them there (as_listed): the line put a card into the
    cell that was the first empty one where it was made, and a player who came another
    way may hold another cell empty first. The cells are alike: it wins as it did."""
    pos = game.position.copy()
    cells: dict[str, str] = {}
    moves = []
    for move in tail:
        move = as_listed(pos, move, cells)
        pos.push(pos.check(move))
        moves.append(move)
        while game.autoplay and (auto := pos.auto_move()) is not None:
            pos.push(auto)
    return tuple(moves)
