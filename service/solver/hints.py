"""Hints: the first move of a winning line from a game's position, the line kept on the
game's record (never shown), a new game's opening searched ahead of its first hint, and
which games a hint (or an analysis) may be read off without a record."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from engine import VARIANTS, Card, Game, Move
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE
from engine.status import BLOCKED
from service.base.errors import Conflict
from service.deals.table import table
from service.solver.lines import as_listed, follow_line, line_from_record
from service.solver.verdicts import ANSWER_SLACK, Owners, Solver


def hint_view(
    game: Game, verdict: str, moves: tuple[Move, ...] | None, solver: str, keep: bool = True
) -> dict[str, Any]:
    """The hint's answer; ``line`` (the player moves to win) is the service's own: it goes
    into the HintGiven event (unless ``keep`` is false) and is never shown."""
    winnable = verdict == WINNABLE and moves is not None
    first = moves[0] if winnable and moves else None
    return {
        "version": game.version,
        "verdict": verdict,
        "move": None if first is None else first.to_dict(),
        "moves_to_win": len(moves) if winnable and moves is not None else None,
        "solver": solver,
        "line": tuple(str(m) for m in moves) if winnable and moves and keep else None,
    }


async def hint(
    solver: Solver, game: Game, owner: Owners = None, deadline: float | None = None
) -> dict[str, Any]:
    """The first move of a winning line from the game's position (the game is not over).

    ``moves_to_win`` counts the moves the player still makes: with autoplay on, the moves
    to the foundations the game plays by itself are not counted. Following the hints is a
    lookup: the line of the last hint is on the game's record.  The answer comes within the
    solver's budget (and its slack), however many searches it takes, or by ``deadline``
    (``time.monotonic()``) when given: what is left of a request's that searched before;
    ``owner`` is who asks (Solver.verdict)."""
    if game.position.is_won:
        return hint_view(game, WINNABLE, (), "none")
    if next(iter(game.position.legal_moves), None) is None:  # blocked: nothing to search
        return hint_view(game, UNWINNABLE, None, "none")
    if opening_known(game) is False:
        return hint_view(game, UNWINNABLE, None, "table")  # an exhaustive search proved it
    recorded = line_from_record(game)
    if recorded is not None:
        return hint_view(game, WINNABLE, recorded, "record")
    if deadline is None:
        deadline = time.monotonic() + solver.budget + ANSWER_SLACK
    found = await solver.verdict(
        game.position, owner=owner, deadline=deadline, winnable=known_winnable(game)
    )
    if game.autoplay:
        solver.remember_after_autoplay(game.position, found)
    if opening(game) and found.verdict != UNKNOWN:  # remember the deal
        table(game.variant).learn(game.deal, found.verdict == WINNABLE)
    if found.verdict != WINNABLE or not found.line:
        return hint_view(game, found.verdict, None, found.solver)
    moves, stuck = follow_line(game.position, found.line, game.autoplay)
    for _attempt in range(8):  # where autoplay took a card the line needed: search on
        if stuck is None:
            break
        more = await solver.verdict(stuck, owner=owner, deadline=deadline)
        if more.verdict != WINNABLE or not more.line:
            break
        tail, stuck = follow_line(stuck, more.line, game.autoplay)
        moves += tail
    if stuck is not None:  # not followable to the end: the first move stands alone
        line = (as_listed(game.position, found.line[0]), *found.line[1:])
        return hint_view(game, WINNABLE, line, found.solver, keep=False)
    return hint_view(game, WINNABLE, moves, found.solver)


def opening(game: Game) -> bool:
    """Whether the game's position is its deal's opening, as far as verdicts go (no move
    of the player's in its line of play; automatic moves change no verdict)."""
    return game.moves == 0


def opening_known(game: Game) -> bool | None:
    """At the deal's opening, whether the tables say it can be won (None: not known, or
    not the opening)."""
    return table(game.variant).solvable(game.deal) if opening(game) else None


def known_winnable(game: Game) -> bool:
    """Whether the game's position is known to be winnable: the opening of a deal the
    tables say is solvable. Asked again, a hint there searches deeper than elsewhere
    (Solver._deeper) rather than stay "unknown"."""
    return opening_known(game) is True


def public_hint(body: dict[str, Any]) -> dict[str, Any]:
    """A hint's answer as a client sees it (without the line)."""
    return {k: v for k, v in body.items() if k != "line"}


def prefetch_opening(
    solver: Solver,
    game: dict[str, Any],
    owner: Owners = None,
    charge: Callable[[], bool] | None = None,
) -> None:
    """A new game (its view): search its position in the background, for the first hint,
    unless the tables proved its deal lost (:func:`hint` says so at once); the search
    counts against ``owner``, the game's creator (Solver.prefetch)."""
    lost = table(game["variant"]).solvable(game["deal"]) is False  # no search can help
    if game.get("status") == "playing" and not lost:
        state = game["state"]
        cls = VARIANTS[game["variant"]]
        cards = [[Card.parse(c) for c in column] for column in state["tableau"]]
        cells = [None if c is None else Card.parse(c) for c in state["cells"]]
        solver.prefetch(cls(cards, cells, state["foundations"]), owner, charge)


def require_over(game: Game, what: str, advice: str) -> None:
    """A hint or an analysis is read off a game (recorded nowhere) only once it is over,
    won or abandoned (``Game.is_over``): Conflict for a game in play or blocked (an undo can
    still revive a blocked game, so a hint on it is part of its record). ``what`` names
    the reading refused, ``advice`` what the caller can do instead."""
    if game.is_over:
        return
    state = "blocked (an undo can still revive it)" if game.status == BLOCKED else "in play"
    raise Conflict(
        f"the game is {state}: {what} is only for a game won or abandoned; {advice}",
        current_version=game.version,
    )
