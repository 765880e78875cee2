"""Post-mortem analysis: where a finished game was lost, by the verdicts on the positions
along its log. The log is replayed in a search process (service/solver/pool.py:
boards_along), which hands back the layouts as board text; only the few positions judged
are made again here."""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final

from engine import VARIANTS
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE
from engine.status import OVER_STATUSES, WON
from service.base.backend import Backend
from service.deals.table import table
from service.solver.pool import boards_along
from service.solver.verdicts import ANSWER_SLACK, Owners, Solver

# a game's log up to a version as one JSON text: [[seq, type, data], …], oldest first
LOG_SQL: Final = (
    "SELECT coalesce(json_agg(json_build_array(seq, type, data) ORDER BY seq), '[]')::text"
    " FROM game_events WHERE game_id = $1 AND seq <= $2"
)


async def version_if_over(backend: Backend, game_id: uuid.UUID) -> int | None:
    """The game's version when its row (the log's projection, written with its events) says
    it is over, won or abandoned (``OVER_STATUSES``: it never changes again); else None.
    One indexed read: nothing of the game is replayed here."""
    async with backend.store.connection() as conn:
        row = await conn.fetchrow(
            "SELECT status, version FROM games WHERE id = $1", game_id,
            timeout=backend.store.timeout,
        )  # fmt: skip
    return row["version"] if row is not None and row["status"] in OVER_STATUSES else None


async def of_game(
    backend: Backend,
    solver: Solver,
    game_id: uuid.UUID,
    version: int,
    total_budget: float,
    owner: Owners = None,
) -> dict[str, Any]:
    """:func:`analysis` of the game's log up to ``version``, read as one JSON text (which the
    search process parses: nothing of the log is decoded here)."""
    async with backend.store.connection() as conn:
        text: str = await conn.fetchval(LOG_SQL, game_id, version, timeout=backend.store.timeout)
    return await analysis(solver, text, total_budget, owner)


async def analysis(
    solver: Solver,
    log: str,
    total_budget: float,
    owner: Owners = None,
) -> dict[str, Any]:
    """Where a finished game was lost: ``log`` is its log as JSON, [[seq, type, data], …].

    The positions after each event are judged by the solver.  ``lost_at`` is the seq of the
    first event after which the position stays unwinnable to the end of the log.  No move
    makes a lost position winnable again; only an undo can (it returns to an earlier
    position).  So the log is read in stretches, each from an undo (or the creation) to the
    next: from the last stretch back, the first whose start is not unwinnable holds the
    spot (the later ones are lost from their start), found by binary search within it,
    where the verdicts only turn from winnable to unwinnable.  The verdicts it used are
    listed under ``verdicts``.  When a
    verdict is unknown (the search budget ran out) ``complete`` is false, and
    ``last_winnable`` and ``first_unwinnable`` bound the spot: ``lost_at`` is then the
    latest it can be (``first_unwinnable``: the game could no longer be won after it),
    never null for a game known to have become unwinnable.
    """
    started = time.monotonic()
    variant, deal, status, version, seqs, boards, undos = await solver.offload(boards_along, log)
    judged: dict[int, str] = {}
    known = table(variant).solvable(deal)  # the deal's opening, by the tables' searches
    if known is not None and boards:
        judged[0] = WINNABLE if known else UNWINNABLE

    async def judge(i: int) -> str:
        if i not in judged:
            left = total_budget - (time.monotonic() - started)
            here = VARIANTS[variant].from_board_text(boards[i])
            if here.is_won:
                judged[i] = WINNABLE
            elif left <= 0.05:
                cached = solver.peek(here)
                judged[i] = cached.verdict if cached is not None else UNKNOWN
            else:
                found = await solver.verdict(
                    here, min(solver.budget, left), owner=owner,
                    deadline=time.monotonic() + min(solver.budget, left) + ANSWER_SLACK,
                )  # fmt: skip
                judged[i] = found.verdict
        return judged[i]

    body: dict[str, Any] = {
        "status": status,
        "version": version,
        "lost_at": None,
        "complete": True,
    }
    last = len(seqs) - 1
    if status == WON:
        pass
    elif judged.get(0) == UNWINNABLE:  # lost from the deal on: no line of play wins it
        body["lost_at"] = seqs[0]
    elif (end := await judge(last)) != UNWINNABLE:
        body["complete"] = end == WINNABLE
    else:
        lo, hi = None, last  # judge(hi) is unwinnable
        for start in reversed([0, *undos]):  # the stretches, the last first
            if start < hi and await judge(start) != UNWINNABLE:
                lo = start  # winnable or unknown: the spot is in (lo, hi]
                break
            hi = min(hi, start)  # lost from the stretch's start on
        if lo is None:  # lost from the deal on: no line of play wins it
            body["lost_at"] = seqs[0]
        else:
            await _narrow(body, judge, judged, seqs, lo, hi)
    body["verdicts"] = [{"seq": seqs[i], "verdict": judged[i]} for i in sorted(judged)]
    return body


async def _narrow(
    body: dict[str, Any],
    judge: Callable[[int], Awaitable[str]],
    judged: dict[int, str],
    seqs: list[int],
    lo: int,
    hi: int,
) -> None:
    """``lost_at`` between the positions ``lo`` (winnable or unknown) and ``hi``
    (unwinnable), with no undo between them: a binary search, the verdicts turning once."""
    if judged[lo] != WINNABLE:
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
    body["lost_at"] = seqs[hi]
    if not body["complete"]:
        body["last_winnable"] = max(
            (seqs[i] for i, v in judged.items() if v == WINNABLE and i < hi), default=None
        )
        body["first_unwinnable"] = seqs[hi]
