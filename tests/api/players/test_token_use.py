"""A token's use: `last_used_at` null until its first use, then when it was used (noted at
most once a minute after that); a token signed out writes nothing, whatever memory still
trusts."""

from __future__ import annotations

import asyncpg
from aiohttp.test_utils import TestClient

from service.base.keys import BACKEND_KEY
from service.players.tokens import hash_token

from ..helpers import auth, new_game, new_player


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


async def test_a_token_signed_out_writes_nothing_whatever_memory_trusts(
    client: TestClient, db_url: str
) -> None:
    """Signed out behind the service's back, as by an instance whose notice has not come
    yet: memory still holds the token, and the statement that would append refuses it
    (401), for a move, an undo, a new game and the retry of a move it made before."""
    ada = await new_player(client)
    gid = (await new_game(client, ada, deal=617, autoplay=False))["id"]
    keyed = {**auth(ada), "Idempotency-Key": "first-move-of-ada"}
    move = {"from": "t1", "to": "c1"}
    r = await client.post(f"/v1/games/{gid}/moves", json=move, headers=keyed)
    assert r.status == 201, await r.text()
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("UPDATE device_tokens SET revoked_at = now()")
    finally:
        await conn.close()
    assert client.app[BACKEND_KEY].players.get(hash_token(ada["token"])) is not None
    writes = [
        (f"/v1/games/{gid}/moves", {"from": "t2", "to": "c2"}, auth(ada)),
        (f"/v1/games/{gid}/undo", {}, auth(ada)),
        ("/v1/games", {"variant": "freecell", "deal": 1}, auth(ada)),
        (f"/v1/games/{gid}/moves", move, keyed),
    ]
    for url, body, headers in writes:
        r = await client.post(url, json=body, headers=headers)
        assert r.status == 401, (url, r.status, await r.text())
        assert r.headers["WWW-Authenticate"].startswith("Bearer")
        assert "signed out" in (await r.json())["detail"]
    events = (await (await client.get(f"/v1/games/{gid}/events")).json())["events"]
    assert [e["type"] for e in events] == ["GameCreated", "CardMoved"]
    r = await client.get(f"/v1/players/{ada['id']}/games")
    assert len((await r.json())["games"]) == 1
