"""A hint asked while the game's moves land on another instance: it is searched again on
the position it is written on, within one budget for all its searches, and answered 201
(API.md: 409 only for a game that is over, or a stale `expected_version`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp.test_utils import TestClient

from engine import Game, Move

from ..helpers import auth, get, instance, new_game, new_player, post
from .test_fair_hints import HARD

BUDGET = 0.5  # hint_budget_seconds here; API.md: an answer within it and half a second


async def keep_moving(client: TestClient, player: dict[str, Any], url: str,
                      bodies: list[tuple[str, dict[str, Any]]], stop: asyncio.Event) -> int:
    """Send `bodies` (path, body) round and round until `stop`: each legal whatever the
    hints between them. The writes that landed."""
    landed = 0
    while not stop.is_set():
        for path, body in bodies:
            r = await client.post(f"{url}/{path}", json=body, headers=auth(player))
            assert r.status == 201, await r.text()
            landed += 1
    return landed


async def hints_while(client: TestClient, player: dict[str, Any], url: str,
                      n: int) -> list[tuple[int, float, dict[str, Any]]]:
    """`n` hints, one after another, none with `expected_version`: each one's status, time
    and body."""
    seen = []
    for _ in range(n):
        started = time.monotonic()
        r = await client.post(f"{url}/hint", json={}, headers=auth(player))
        seen.append((r.status, time.monotonic() - started, await r.json()))
    return seen


async def test_a_hint_whose_position_keeps_moving_is_written_within_its_budget(
    db_url: str,
) -> None:
    """A Baker's Dozen opening no search settles: each search takes its whole budget, and
    the other instance's undos and redos move the game meanwhile, every time."""
    settings: dict[str, Any] = {"hint_budget_seconds": BUDGET, "solver_prefetch": False}
    async with instance(db_url, **settings) as a, instance(db_url, **settings) as b:
        ada = await new_player(a)
        game = await new_game(a, ada, variant="bakers_dozen", deal=HARD[0], autoplay=False)
        url = f"/v1/games/{game['id']}"
        first = (await get(a, f"{url}/legal-moves"))["moves"][0]
        await post(a, ada, f"{url}/moves", first)
        stop = asyncio.Event()
        mover = asyncio.create_task(
            keep_moving(a, ada, url, [("undo", {}), ("redo", {})], stop)
        )
        try:
            answers = await hints_while(b, ada, url, 4)
        finally:
            stop.set()
            landed = await mover
        assert [status for status, _, _ in answers] == [201] * 4, answers
        # (each waited for one search's budget at most: not one for each position it met)
        assert max(took for _, took, _ in answers) < BUDGET + 0.5 + 1.0, answers
        assert landed > 4 * 10  # the game moved during every hint
        hinted = [e for e in await whole_log(b, url) if e["type"] == "HintGiven"]
        assert [e["seq"] for e in hinted] == [body["version"] for _, _, body in answers]


async def whole_log(client: TestClient, url: str) -> list[dict[str, Any]]:
    """Every event of the game's log, page after page (a fast machine's undos and redos
    take it past one page's thousand)."""
    events: list[dict[str, Any]] = []
    while True:
        page = (await get(client, f"{url}/events?after={len(events)}&limit=1000"))["events"]
        events += page
        if len(page) < 1000:
            return events


async def test_hints_on_a_game_moved_on_the_other_instance_are_for_their_position(
    db_url: str,
) -> None:
    """FreeCell, whose searches end: each hint recorded names a legal move of the position
    it was written on, whatever moved the game while it was searched."""
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        card = game["state"]["tableau"][0][-1]
        await post(a, ada, f"{url}/moves", {"from": "t1", "to": "c"})
        stop = asyncio.Event()
        mover = asyncio.create_task(
            keep_moving(a, ada, url, [("moves", {"card": card, "to": "c"})], stop)
        )
        try:
            answers = await hints_while(b, ada, url, 8)
        finally:
            stop.set()
            await mover
        assert [status for status, _, _ in answers] == [201] * 8, answers
        log = await whole_log(b, url)
        replayed = Game.replay(log[:1])
        for event in log[1:]:
            if event["type"] == "HintGiven" and event["data"]["move"] is not None:
                assert Move.from_dict(event["data"]["move"]) in replayed.position.legal_moves
            replayed.apply(event)
