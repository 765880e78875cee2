"""A token's `last_used_at`: null until its first use, then when it was used (noted at
most once a minute after that)."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from ..helpers import auth


async def test_a_new_tokens_first_use_is_noted(client: TestClient) -> None:
    ada = await (await client.post("/v1/players", json={"name": "ada"})).json()
    r = await client.post("/v1/players/me/tokens", json={"device": "tablet"}, headers=auth(ada))
    tablet = await r.json()
    r = await client.post("/v1/players/me/link-codes", json={}, headers=auth(ada))
    code = (await r.json())["code"]
    phone = await (await client.post("/v1/tokens", json={"code": code, "device": "phone"})).json()
    for token in (tablet, phone):
        r = await client.get("/v1/players/me", headers=auth(token))
        assert r.status == 200
    r = await client.get("/v1/players/me/tokens", headers=auth(ada))
    used = {t["device"]: t["last_used_at"] for t in (await r.json())["tokens"]}
    assert all(used.values()), used
