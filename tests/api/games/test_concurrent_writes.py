"""Concurrent writers on one game: the key (game id, seq) decides, nothing is lost."""

from __future__ import annotations

import asyncio
import random

from aiohttp.test_utils import TestClient

from engine import Event, Game

from ...conftest import Served, make_settings
from ..helpers import auth, new_game, new_player


async def test_32_moves_at_one_version_exactly_one_wins(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}/moves"
    moves = (await (await client.get(f"/v1/games/{game['id']}/legal-moves")).json())["moves"]
    bodies = [{**moves[i % len(moves)], "expected_version": 1} for i in range(32)]
    answers = await asyncio.gather(*(client.post(url, json=b, headers=auth(ada)) for b in bodies))
    statuses = sorted(a.status for a in answers)
    assert statuses.count(201) == 1
    assert statuses.count(409) == 31
    events = (await (await client.get(f"/v1/games/{game['id']}/events")).json())["events"]
    assert [e["seq"] for e in events] == [1, 2]


async def test_16_requests_with_one_key_append_one_event(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}/moves"
    h = {**auth(ada), "Idempotency-Key": "same"}
    answers = await asyncio.gather(
        *(client.post(url, json={"from": "t1", "to": "c"}, headers=h) for _ in range(16))
    )
    bodies = [await a.json() for a in answers]
    assert all(a.status == 201 for a in answers), [a.status for a in answers]
    assert all(b == bodies[0] for b in bodies)
    events = (await (await client.get(f"/v1/games/{game['id']}/events")).json())["events"]
    assert [e["seq"] for e in events] == [1, 2]


async def _play_randomly(client: TestClient, player: dict, gid: str, n: int, seed: int) -> None:  # type: ignore[type-arg]
    rng = random.Random(seed)
    for _ in range(n):
        seen = await (await client.get(f"/v1/games/{gid}/legal-moves")).json()
        legal, version = seen["moves"], seen["version"]
        if not legal:
            break
        # each write is legal at the version this writer saw; another writer may have
        # written first, which is a 409, never a 422
        if rng.random() < 0.15:
            r = await client.post(
                f"/v1/games/{gid}/undo", json={"expected_version": version},
                headers=auth(player),
            )
        else:
            r = await client.post(
                f"/v1/games/{gid}/moves", json={**rng.choice(legal), "expected_version": version},
                headers=auth(player),
            )
        assert r.status in (201, 409), await r.text()
        if r.status == 409:
            problem = await r.json()
            # nothing to undo at that version, or the game moved on since
            if not problem["type"].endswith("/nothing-to-undo"):
                assert problem["current_version"] > version, problem


async def test_many_games_two_instances_final_state_is_the_replayed_log(db_url: str) -> None:
    from service.app import create_app
    from tests.openapi_check import validating_trace_config

    a = TestClient(Served(create_app(make_settings(db_url))),
                   trace_configs=[validating_trace_config()])
    b = TestClient(Served(create_app(make_settings(db_url))),
                   trace_configs=[validating_trace_config()])
    async with a, b:
        ada = await new_player(a)
        games = [
            await new_game(a, ada, variant=v, deal=d)
            for v in ("freecell", "bakers_game", "bakers_dozen", "beleaguered_castle")
            for d in (5, 6)
        ]
        # every game gets writers on both instances at once
        await asyncio.gather(
            *(
                _play_randomly(c, ada, g["id"], 15, seed)
                for seed, g in enumerate(games)
                for c in (a, b)
            )
        )
        for g in games:
            events = (await (await a.get(f"/v1/games/{g['id']}/events")).json())["events"]
            seqs = [e["seq"] for e in events]
            assert seqs == list(range(1, len(seqs) + 1))
            replayed = Game.replay(Event(e["type"], e["data"]) for e in events)
            for c in (a, b):
                live = await (await c.get(f"/v1/games/{g['id']}")).json()
                assert live["version"] == len(events)
                assert live["state"] == replayed.position.to_dict()
