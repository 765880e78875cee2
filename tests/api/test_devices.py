"""Devices, tokens and linking a second device: tokens listed (never shown again), signed
out on every instance within a second, link codes short, readable, once, guesses limited."""

from __future__ import annotations

import asyncio
import re
import time

import asyncpg
from aiohttp.test_utils import TestClient

from service.players import accounts as players_module
from service.players.accounts import LINK_ALPHABET

from .helpers import auth, new_game, new_player
from .test_leaderboards import get
from .test_records import instance, post, two  # noqa: F401  (a fixture)

CODE = re.compile(r"[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_second_token_lists_without_its_secret(client: TestClient) -> None:
    ada = await new_player(client)
    ipad = await post(client, ada, "/v1/players/me/tokens", {"device": "  iPad  "})
    assert ipad["device"] == "iPad" and ipad["token"] != ada["token"]
    listed = await get(client, "/v1/players/me/tokens", headers=bearer(ipad["token"]))
    tokens = listed["tokens"]
    assert [(t["device"], t["current"]) for t in tokens] == [
        ("first device", False), ("iPad", True)]
    assert tokens[1]["id"] == ipad["id"]
    assert ipad["token"] not in str(listed) and ada["token"] not in str(listed)
    # both tokens play the same player's games
    game = await new_game(client, ada, deal=617, autoplay=False)
    await post(client, {"token": ipad["token"]}, f"/v1/games/{game['id']}/moves",
               {"from": "t1", "to": "c"})


async def test_device_names_are_checked(client: TestClient) -> None:
    ada = await new_player(client)
    for body in ({}, {"device": ""}, {"device": "x" * 65}, {"device": "i\u202ePad"},
                 {"device": "iPad", "extra": 1}):
        await post(client, ada, "/v1/players/me/tokens", body, status=400)
    r = await client.post("/v1/players/me/tokens", json={"device": "iPad"})
    assert r.status == 401


async def test_me_is_the_callers_record(client: TestClient) -> None:
    ada = await new_player(client)
    me = await get(client, "/v1/players/me", headers=auth(ada))
    assert me == await get(client, f"/v1/players/{ada['id']}")
    assert me["name"] == "ada" and me["games_played"] == 0
    r = await client.get("/v1/players/me")
    assert r.status == 401
    r = await client.get("/v1/players/me", headers=bearer("nobody"))
    assert r.status == 401


async def test_signing_out_a_device(client: TestClient) -> None:
    ada = await new_player(client)
    ipad = await post(client, ada, "/v1/players/me/tokens", {"device": "iPad"})
    r = await client.delete(f"/v1/players/me/tokens/{ipad['id']}", headers=auth(ada))
    assert r.status == 204 and await r.read() == b""
    r = await client.get("/v1/players/me", headers=bearer(ipad["token"]))
    assert r.status == 401
    listed = await get(client, "/v1/players/me/tokens", headers=auth(ada))
    assert [t["device"] for t in listed["tokens"]] == ["first device"]
    # gone, someone else's, or no id at all: 404
    bob = await new_player(client, "bob")
    bobs = (await get(client, "/v1/players/me/tokens", headers=auth(bob)))["tokens"][0]["id"]
    for token_id in (ipad["id"], bobs, "not-an-id"):
        r = await client.delete(f"/v1/players/me/tokens/{token_id}", headers=auth(ada))
        assert r.status == 404, token_id
    r = await client.delete(f"/v1/players/me/tokens/{ipad['id']}")
    assert r.status == 401
    # the current token signs itself out
    mine = (await get(client, "/v1/players/me/tokens", headers=auth(ada)))["tokens"][0]
    r = await client.delete(f"/v1/players/me/tokens/{mine['id']}", headers=auth(ada))
    assert r.status == 204
    r = await client.get("/v1/players/me/tokens", headers=auth(ada))
    assert r.status == 401


async def test_a_token_signed_out_on_one_instance_is_refused_by_another_within_a_second(
    two: tuple[TestClient, TestClient],  # noqa: F811
) -> None:
    a, b = two
    ada = await new_player(a)
    ipad = await post(a, ada, "/v1/players/me/tokens", {"device": "iPad"})
    await get(b, "/v1/players/me", headers=bearer(ipad["token"]))  # b keeps it in memory
    r = await a.delete(f"/v1/players/me/tokens/{ipad['id']}", headers=auth(ada))
    assert r.status == 204
    revoked = time.monotonic()
    while True:
        r = await b.get("/v1/players/me", headers=bearer(ipad["token"]))
        if r.status == 401:
            break
        assert r.status == 200
        assert time.monotonic() - revoked < 1.0, "b still takes a token signed out on a"
        await asyncio.sleep(0.05)
    assert time.monotonic() - revoked <= 1.0 + 0.2  # the request's own time


async def test_last_use_is_noted_at_most_once_a_minute(client: TestClient, db_url: str) -> None:
    ada = await new_player(client)
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("UPDATE device_tokens SET last_used_at = now() - interval '2 minutes'")
        await asyncio.sleep(players_module.TOKEN_RECHECK)
        await get(client, "/v1/players/me", headers=auth(ada))
        first = await conn.fetchval("SELECT last_used_at FROM device_tokens")
        await asyncio.sleep(players_module.TOKEN_RECHECK)
        await get(client, "/v1/players/me", headers=auth(ada))
        assert await conn.fetchval("SELECT last_used_at FROM device_tokens") == first
    finally:
        await conn.close()


async def test_linking_a_second_device(client: TestClient) -> None:
    ada = await new_player(client)
    code = await post(client, ada, "/v1/players/me/link-codes")
    assert CODE.fullmatch(code["code"]) and not set(code["code"]) & set("01OI")
    assert set(LINK_ALPHABET) == set("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    r = await client.post("/v1/tokens", json={"code": code["code"].lower().replace("-", ""),
                                              "device": "iPad"})
    assert r.status == 201, await r.text()
    linked = await r.json()
    assert linked["player"] == {"id": ada["id"], "name": "ada"} and linked["device"] == "iPad"
    me = await get(client, "/v1/players/me", headers=bearer(linked["token"]))
    assert me["id"] == ada["id"]
    # once only
    r = await client.post("/v1/tokens", json={"code": code["code"], "device": "Phone"})
    assert r.status == 422
    problem = await r.json()
    assert "wrong, used or expired" in problem["detail"]


async def test_wrong_and_expired_codes_are_422_and_bodies_400(
    client: TestClient, db_url: str
) -> None:
    ada = await new_player(client)
    r = await client.post("/v1/tokens", json={"code": "AAAA-BBBB", "device": "iPad"})
    assert r.status == 422
    code = await post(client, ada, "/v1/players/me/link-codes")
    conn = await asyncpg.connect(db_url)
    try:
        stored = await conn.fetchval("SELECT code_hash FROM link_codes")
        assert code["code"].encode() not in bytes(stored)  # a hash, not the code
        await conn.execute("UPDATE link_codes SET expires_at = now() - interval '1 second'")
    finally:
        await conn.close()
    r = await client.post("/v1/tokens", json={"code": code["code"], "device": "iPad"})
    assert r.status == 422
    for body in ({"code": code["code"]}, {"device": "iPad"}, {"code": "", "device": "iPad"}):
        r = await client.post("/v1/tokens", json=body)
        assert r.status == 400
    r = await client.post("/v1/players/me/link-codes")
    assert r.status == 401


async def test_code_guesses_are_limited_even_with_rate_limits_off(db_url: str) -> None:
    async with instance(db_url, rate_limits="off") as client:
        statuses = []
        for _ in range(12):
            r = await client.post("/v1/tokens", json={"code": "AAAA-BBBB", "device": "x"})
            statuses.append(r.status)
            if r.status == 429:
                assert int(r.headers["Retry-After"]) >= 1
        assert statuses == [422] * 10 + [429] * 2


async def test_tokens_in_use_are_bounded(client: TestClient) -> None:
    ada = await new_player(client)
    for i in range(players_module.MAX_TOKENS - 1):
        await post(client, ada, "/v1/players/me/tokens", {"device": f"d{i}"})
    await post(client, ada, "/v1/players/me/tokens", {"device": "one more"}, status=409)
    await post(client, ada, "/v1/players/me/link-codes", status=409)


async def test_tokens_of_players_made_before_devices_keep_working(db_url: str) -> None:
    """Migration 0005 turns every player's token into their "first device"."""
    from alembic import command

    from service.database.migrate import alembic_config

    config = alembic_config(db_url)
    await asyncio.to_thread(command.downgrade, config, "0004")
    conn = await asyncpg.connect(db_url)
    try:
        token = "an-old-token"
        await conn.execute(
            "INSERT INTO players (id, name, token_hash) VALUES (gen_random_uuid(), 'old', $1)",
            players_module.hash_token(token),
        )
    finally:
        await conn.close()
    await asyncio.to_thread(command.upgrade, config, "head")
    async with instance(db_url) as client:
        me = await get(client, "/v1/players/me", headers=bearer(token))
        assert me["name"] == "old"
        tokens = await get(client, "/v1/players/me/tokens", headers=bearer(token))
        assert [t["device"] for t in tokens["tokens"]] == ["first device"]
