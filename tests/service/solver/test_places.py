"""The solver's places shared fairly (service/solver/places.py): who gets a worker first, and
which running search stops early for a waiting one; then the same with the searches of a
real pool of one process."""

from __future__ import annotations

import asyncio
import time

from engine import VARIANTS, Position
from engine.solver import UNKNOWN, WINNABLE
from service.solver.places import FAIR_SHARE, Places, stopper
from service.solver.verdicts import Solver

HARD = [18, 28]  # Baker's Dozen openings no search settles within seconds
A1, A2 = ("address:a", "player:1"), ("address:a", "player:2")
B = ("address:b", "player:3")


async def test_a_waiting_owner_goes_first_and_the_running_search_gets_half_its_budget() -> None:
    places = Places(1)
    try:
        budget = 0.4
        first = await places.take(A1, budget, True)
        stop = stopper(places.path, first)
        assert stop is not None
        mine = asyncio.create_task(places.take(A2, budget, True))
        await asyncio.sleep(0.01)
        # the address's second search waits behind its first without stopping it
        assert not mine.done() and places.stopped == 0
        theirs = asyncio.create_task(places.take(B, budget, True))
        await asyncio.sleep(0.01)
        assert places.stopped == 1 and not stop()  # told to stop, at half its budget
        await asyncio.sleep(FAIR_SHARE * budget)
        assert stop()
        places.give_back(first)
        await asyncio.sleep(0)
        # the other address goes before the one served last, though it came later
        assert theirs.done() and not mine.done()
        assert theirs.result() == first
        places.give_back(theirs.result())
        assert await mine == first
        places.give_back(first)
    finally:
        places.close()


async def test_a_cancelled_wait_leaves_the_line_and_an_analysis_is_never_stopped() -> None:
    places = Places(1)
    try:
        replay = await places.take(B, 1.0, False)  # an analysis's replay: not stoppable
        gone = asyncio.create_task(places.take(A1, 1.0, True))
        await asyncio.sleep(0.01)
        assert places.stopped == 0
        gone.cancel()
        await asyncio.gather(gone, return_exceptions=True)
        places.give_back(replay)
        assert await places.take(A2, 1.0, True) == replay  # free at once: nobody waits
    finally:
        places.close()


async def test_one_address_keeping_the_only_worker_busy_gives_way_to_another_at_half_a_budget(
) -> None:
    """One worker process: an address has two searches going that no budget settles;
    another address asks after them: the running search stops at half its budget, and the
    other address's search goes next, before the address's second one."""
    budget = 3.0
    solver = Solver(budget, workers=1, capacity=100, prefetch=False)
    try:
        # the pool's process started first, so that its start is nobody's time
        assert (await solver.verdict(VARIANTS["freecell"].deal(1), owner=B)).verdict == WINNABLE
        started = time.monotonic()
        ended: dict[str, float] = {}

        async def ask(name: str, position: Position, owner: tuple[str, ...]) -> str:
            found = await solver.verdict(position, owner=owner)
            ended[name] = time.monotonic() - started
            return found.verdict

        cls = VARIANTS["bakers_dozen"]
        flood = [asyncio.create_task(ask(f"a{i}", cls.deal(d), owner))
                 for i, (d, owner) in enumerate(zip(HARD, (A1, A2), strict=True))]  # fmt: skip
        await asyncio.sleep(0.2)
        assert await ask("b", VARIANTS["freecell"].deal(617), B) == WINNABLE
        assert await asyncio.gather(*flood) == [UNKNOWN, UNKNOWN]
        # without the stop: a0 at 3 s, then a1 (with no time left), then b
        assert ended["a0"] < FAIR_SHARE * budget + 0.7, ended
        assert ended["b"] < ended["a1"], ended
        assert solver.places.stopped >= 1
    finally:
        solver.close()
