"""Make a winning line shorter without losing the win.

:func:`shorten` walks the line from its start and, at each position, looks for the farthest
position of the line it can reach in fewer moves than the line takes: at once, when the same
position comes back later (a card that goes somewhere and back, a loop), or by one or two
legal moves of the game's own (so in FreeCell the single-card steps of a run become one move
of the run where the rule allows it).  Positions are compared up to the order of the columns
and of the cells (:func:`engine.solver.encoding.canonical_key`); the rest of the line is
renamed to the piles it then starts from.  Every move of the result is checked by the rules,
and the result wins; the line is never longer than before.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from engine.moves import Move
from engine.position import Position
from engine.solver.encoding import Layout, canonical_key, layout, remap, trace


def shorten(
    position: Position,
    line: Sequence[Move],
    *,
    depth: int = 2,
    seconds: float | None = None,
    passes: int = 3,
) -> tuple[Move, ...]:
    """A line from ``position`` that wins and is at most as long as ``line`` (which must win).

    ``depth`` (0, 1 or 2) is how many moves off the line a shortcut may take; ``seconds``
    bounds the time spent (the line found so far is returned when it runs out)."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    best = tuple(line)
    for _ in range(passes):
        shorter = _one_pass(position, best, depth, deadline)
        if len(shorter) >= len(best):
            break
        best = shorter
        if deadline is not None and time.perf_counter() >= deadline:
            break
    return best


def _one_pass(
    position: Position, line: tuple[Move, ...], depth: int, deadline: float | None
) -> tuple[Move, ...]:
    steps = trace(position, line)
    layouts: list[Layout] = [layout(position)] + [here for _, here in steps]
    last: dict[bytes, int] = {canonical_key(position): 0}
    for i, (key, _) in enumerate(steps, start=1):
        last[key] = i
    n = len(line)
    cur = position.copy(stack=False)
    out: list[Move] = []
    i = 0
    while i < n:
        far = last.get(canonical_key(cur), i)
        path: tuple[Move, ...] = ()
        if depth > 0 and (deadline is None or time.perf_counter() < deadline):
            far, path = _shortcut(cur, last, depth, far)
        if far > i + len(path):
            for move in path:
                out.append(cur.play(move))
            i = far
            continue
        moved = remap((line[i],), layouts[i], layout(cur))
        if moved is None:  # cannot happen for a line that wins; keep what was given
            return line
        out.append(cur.play(moved[0]))
        i += 1
    if not cur.is_won:
        return line
    return tuple(out)


def _shortcut(
    cur: Position, last: dict[bytes, int], depth: int, far: int
) -> tuple[int, tuple[Move, ...]]:
    """The line position reachable from ``cur`` that saves the most moves, and the moves."""
    best_gain = far
    best: tuple[int, tuple[Move, ...]] = (far, ())
    for move in list(cur.legal_moves):
        cur.push(move)
        try:
            j = last.get(canonical_key(cur))
            if j is not None and j - 1 > best_gain:
                best_gain, best = j - 1, (j, (move,))
            if depth > 1:
                for second in list(cur.legal_moves):
                    cur.push(second)
                    j = last.get(canonical_key(cur))
                    if j is not None and j - 2 > best_gain:
                        best_gain, best = j - 2, (j, (move, second))
                    cur.undo()
        finally:
            cur.undo()
    return best
