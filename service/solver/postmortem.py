"""Post-mortem analysis: where a finished game was lost, by the verdicts on the positions
along its log."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from engine import Event, Game, Position
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE
from service.solver.verdicts import ANSWER_SLACK, Solver


async def analysis(
    solver: Solver,
    events: list[tuple[int, str, dict[str, Any]]],
    total_budget: float,
    owner: str | None = None,
) -> dict[str, Any]:
    """Where a finished game was lost: ``events`` is its log as (seq, type, data).

    The positions after each event are judged by the solver.  ``lost_at`` is the seq of the
    first event after which the position stays unwinnable to the end of the log, found by
    binary search over the events: it assumes that once unwinnable, the positions of the
    log stay so.  Along the moves of one line that is true (no move makes a lost position
    winnable again); an undo can return to a winnable position, and then the search still
    ends on an event where the verdict turns from winnable to unwinnable, though maybe not
    the last such event.  The verdicts it used are listed under ``verdicts``.  When a
    verdict is unknown (the search budget ran out) ``complete`` is false and ``lost_at``
    null; ``last_winnable`` and ``first_unwinnable`` then bound the spot.
    """
    started = time.monotonic()
    if len(events) > 200:  # a long log: replayed in a thread, off the event loop
        game, seqs, positions = await asyncio.to_thread(_positions_along, events)
    else:
        game, seqs, positions = _positions_along(events)
    judged: dict[int, str] = {}

    async def judge(i: int) -> str:
        if i not in judged:
            left = total_budget - (time.monotonic() - started)
            if positions[i].is_won:
                judged[i] = WINNABLE
            elif left <= 0.05:
                cached = solver.peek(positions[i])
                judged[i] = cached.verdict if cached is not None else UNKNOWN
            else:
                found = await solver.verdict(
                    positions[i], min(solver.budget, left), owner=owner,
                    deadline=time.monotonic() + min(solver.budget, left) + ANSWER_SLACK,
                )  # fmt: skip
                judged[i] = found.verdict
        return judged[i]

    body: dict[str, Any] = {
        "status": game.status,
        "version": game.version,
        "lost_at": None,
        "complete": True,
    }
    last = len(positions) - 1
    if game.status == "won":
        pass
    elif (end := await judge(last)) != UNWINNABLE:
        body["complete"] = end == WINNABLE
    elif await judge(0) == UNWINNABLE:
        body["lost_at"] = seqs[0]
    else:
        lo, hi = 0, last  # judge(lo) is winnable or unknown, judge(hi) unwinnable
        if judged[0] != WINNABLE:
            body["complete"] = False
        while hi - lo > 1:
            mid = (lo + hi) // 2
            verdict = await judge(mid)
            if verdict == UNWINNABLE:
                hi = mid
            elif verdict == WINNABLE:
                lo = mid
            else:  # unknown: the spot is after it, or the answer is not exact
                body["complete"] = False
                lo = mid
        if body["complete"]:
            body["lost_at"] = seqs[hi]
        else:
            body["last_winnable"] = max(
                (seqs[i] for i, v in judged.items() if v == WINNABLE and i < hi), default=None
            )
            body["first_unwinnable"] = seqs[hi]
    body["verdicts"] = [{"seq": seqs[i], "verdict": judged[i]} for i in sorted(judged)]
    return body


def _positions_along(
    events: list[tuple[int, str, dict[str, Any]]],
) -> tuple[Game, list[int], list[Position]]:
    """The game at the end of the log, the seqs, and the layout after each event (copies
    without history: linear in the log's length)."""
    game = Game.replay([Event(events[0][1], events[0][2])])
    seqs = [events[0][0]]
    positions = [game.position.copy(stack=False)]
    for seq, kind, data in events[1:]:
        game.apply(Event(kind, data))
        seqs.append(seq)
        positions.append(game.position.copy(stack=False))
    return game, seqs, positions
