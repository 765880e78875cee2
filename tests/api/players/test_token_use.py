"""A token's use: `last_used_at` null until its first use, then when it was used (noted at
most once a minute after that); a token signed out does nothing, whatever memory still
trusts: a game's write is refused by its statement, every other request by the database's
word."""

from __future__ import annotations

import uuid

import asyncpg
from aiohttp.test_utils import TestClient

from service.base.keys import BACKEND_KEY
from service.players.tokens import hash_token

from ..helpers import auth, db_value, get, new_game, new_player, post


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
    (401), for a move, an undo, a new game and the retry of a move it made before; so is a
    write refused before that statement (a stale version, an illegal move, no such game)."""
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
        # refused before any statement would append: a stale version, an illegal move, a
        # game that does not exist
        (f"/v1/games/{gid}/moves", {**move, "expected_version": 0}, auth(ada)),
        (f"/v1/games/{gid}/moves", {"from": "c4", "to": "c3"}, auth(ada)),
        (f"/v1/games/{uuid.uuid4()}/moves", move, auth(ada)),
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


async def test_a_token_signed_out_is_refused_by_every_other_request_whatever_memory_trusts(
    client: TestClient, db_url: str
) -> None:
    """Signed out behind the service's back, as by an instance whose notice has not come
    yet (or a broker that lost it): reads of the player's own, their tokens, link codes,
    friends, boards by the player and races are each 401, and change nothing."""
    ada = await new_player(client)
    bob = await new_player(client, "bob")
    tablet = await post(client, ada, "/v1/players/me/tokens", {"device": "tablet"})
    race = await post(client, bob, "/v1/races", {"variant": "freecell", "starts_in_s": 600})
    await get(client, "/v1/players/me", headers=auth(ada))  # memory holds ada's token
    first = await db_value(
        db_url, "UPDATE device_tokens SET revoked_at = now() WHERE id <> $1 AND player_id = $2"
        " RETURNING id", uuid.UUID(tablet["id"]), uuid.UUID(ada["id"]),
    )  # fmt: skip
    assert first is not None
    assert client.app[BACKEND_KEY].players.get(hash_token(ada["token"])) is not None
    board = "/v1/leaderboards/freecell/617"
    requests = [
        ("GET", "/v1/players/me", None),
        ("GET", "/v1/players/me/export", None),
        ("GET", "/v1/players/me/tokens", None),
        ("POST", "/v1/players/me/tokens", {"device": "phone"}),
        ("DELETE", f"/v1/players/me/tokens/{tablet['id']}", None),
        ("POST", "/v1/players/me/link-codes", {}),
        ("PUT", f"/v1/players/me/friends/{bob['id']}", None),
        ("GET", "/v1/players/me/friends", None),
        ("GET", f"{board}?friends=true", None),
        ("GET", f"{board}?around=me", None),
        ("POST", "/v1/races", {"variant": "freecell", "starts_in_s": 600}),
        ("POST", f"/v1/races/{race['id']}/join", None),
    ]
    for method, url, body in requests:
        r = await client.request(method, url, json=body, headers=auth(ada))
        assert r.status == 401, (method, url, r.status, await r.text())
        assert "signed out" in (await r.json())["detail"]
    # the tablet is still signed in, alone, and ada joined and followed nothing
    tokens = await get(client, "/v1/players/me/tokens", headers=auth(tablet))
    assert [t["id"] for t in tokens["tokens"]] == [tablet["id"]]
    assert (await get(client, "/v1/players/me/friends", headers=auth(tablet)))["friends"] == []
    players = (await get(client, f"/v1/races/{race['id']}"))["players"]
    assert [p["player"]["name"] for p in players] == ["bob"]
    assert await db_value(db_url, "SELECT count(*) FROM races") == 1
    assert await db_value(db_url, "SELECT count(*) FROM link_codes") == 0
