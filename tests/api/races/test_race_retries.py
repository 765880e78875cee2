"""A race created again with the same Idempotency-Key (its answer lost) is the same race:
nothing more is made, whichever instance the retry reaches, however many come at once."""

from __future__ import annotations

import asyncio
import uuid

from aiohttp.test_utils import TestClient

from ..helpers import auth, db_value, instance, new_player

BODY = {"variant": "freecell", "starts_in_s": 30, "max_players": 3}


async def test_a_retry_is_the_same_race(db_url: str) -> None:
    key = str(uuid.uuid4())
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        headers = {**auth(ada), "Idempotency-Key": key}
        first = await a.post("/v1/races", json=BODY, headers=headers)
        assert first.status == 201, await first.text()
        race = await first.json()
        assert "Idempotent-Replayed" not in first.headers
        answers = await asyncio.gather(
            *(c.post("/v1/races", json=BODY, headers=headers) for c in (a, b, a, b)))
        for r in answers:
            assert r.status == 201, await r.text()
            assert r.headers["Idempotent-Replayed"] == "true"
            assert r.headers["Location"] == f"/v1/races/{race['id']}"
            assert (await r.json())["id"] == race["id"]
        assert await db_value(db_url, "SELECT count(*) FROM races") == 1
        # the same key with another body
        r = await a.post("/v1/races", json={**BODY, "max_players": 4}, headers=headers)
        assert r.status == 422
        assert "used before for another request" in (await r.json())["detail"]


async def test_keys_sent_at_once_make_one_race(client: TestClient, db_url: str) -> None:
    ada = await new_player(client)
    headers = {**auth(ada), "Idempotency-Key": str(uuid.uuid4())}
    answers = await asyncio.gather(
        *(client.post("/v1/races", json=BODY, headers=headers) for _ in range(5)))
    assert {r.status for r in answers} == {201}
    assert len({(await r.json())["id"] for r in answers}) == 1
    assert sorted(r.headers.get("Idempotent-Replayed", "") for r in answers).count("true") == 4
    assert await db_value(db_url, "SELECT count(*) FROM races") == 1
    # without a key, another race
    r = await client.post("/v1/races", json=BODY, headers=auth(ada))
    assert r.status == 201
    assert await db_value(db_url, "SELECT count(*) FROM races") == 2
