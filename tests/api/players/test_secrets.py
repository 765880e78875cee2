"""Answers that carry a secret (a token, a link code) or a player's devices: no cache may
keep them (`Cache-Control: no-store`)."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from ..helpers import auth


async def test_answers_with_tokens_or_link_codes_are_not_stored(client: TestClient) -> None:
    r = await client.post("/v1/players", json={"name": "ada"})
    assert r.status == 201 and r.headers["Cache-Control"] == "no-store"
    ada = await r.json()
    answers = [
        await client.post("/v1/players/me/tokens", json={"device": "tablet"}, headers=auth(ada)),
        await client.get("/v1/players/me/tokens", headers=auth(ada)),
    ]
    r = await client.post("/v1/players/me/link-codes", json={}, headers=auth(ada))
    answers.append(r)
    code = (await r.json())["code"]
    answers.append(await client.post("/v1/tokens", json={"code": code, "device": "phone"}))
    for r in answers:
        assert r.status in (200, 201) and r.headers["Cache-Control"] == "no-store", r.url
    # an answer with no secret in it may be kept
    r = await client.get("/v1/players/me", headers=auth(ada))
    assert r.status == 200 and "Cache-Control" not in r.headers
