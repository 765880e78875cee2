"""Devices, tokens and linking a second device: tokens listed (never shown again), signed
out on every instance at once, link codes short, readable, once, guesses limited."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
from aiohttp.test_utils import TestClient

from service.base.keys import BACKEND_KEY
from service.players import accounts as players_module
from service.players.link_codes import LINK_ALPHABET

from ..helpers import auth, get, instance, new_game, new_player, post

CODE = re.compile(r"[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def link(client: TestClient, code: str, device: str) -> dict[str, Any]:
    """The new device's answer to a link code (no token: the code is the proof)."""
    r = await client.post("/v1/tokens", json={"code": code, "device": device})
    assert r.status == 201, await r.text()
    answer: dict[str, Any] = await r.json()
    return answer


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
    # too long says how long a name may be, however long it is
    for device in ("x" * 65, "x" * 1000):
        problem = await post(client, ada, "/v1/players/me/tokens", {"device": device}, status=400)
        assert "1 to 64 characters" in problem["detail"], problem
    # the characters a player's name refuses (openapi.yaml's DeviceName): invisible ones
    # (a Hangul filler, the Braille blank, a variation selector after a letter), a soft
    # hyphen, a line separator
    for name in ("i\u3164Pad", "i\u2800Pad", "i\ufe0fPad", "i\u00adPad", "i\u2028Pad"):
        problem = await post(client, ada, "/v1/players/me/tokens", {"device": name}, status=400)
        assert f"U+{ord(name[1]):04X}" in problem["detail"], problem
    phone = await post(client, ada, "/v1/players/me/tokens", {"device": "Ada's phone \u2764\ufe0f"})
    assert phone["device"] == "Ada's phone \u2764"  # (an emoji's presentation, dropped)
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


async def test_a_token_signed_out_on_one_instance_is_refused_by_another_at_once(
    two: tuple[TestClient, TestClient],
) -> None:
    a, b = two
    ada = await new_player(a)
    ipad = await post(a, ada, "/v1/players/me/tokens", {"device": "iPad"})
    await get(b, "/v1/players/me", headers=bearer(ipad["token"]))  # b keeps it in memory
    r = await a.delete(f"/v1/players/me/tokens/{ipad['id']}", headers=auth(ada))
    assert r.status == 204
    # b asks the database, whatever its memory holds
    r = await b.get("/v1/players/me", headers=bearer(ipad["token"]))
    assert r.status == 401
    # and a game's write with it (refused by its statement if b's memory still has it)
    r = await b.post("/v1/games", json={"variant": "freecell", "deal": 1},
                     headers=bearer(ipad["token"]))
    assert r.status == 401


async def test_last_use_is_noted_at_most_once_a_minute(client: TestClient, db_url: str) -> None:
    ada = await new_player(client)
    backend = client.app[BACKEND_KEY]
    digest = players_module.hash_token(ada["token"])
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("UPDATE device_tokens SET last_used_at = now() - interval '2 minutes'")
        backend.players.pop(digest)  # forgotten: the next request checks the token
        await get(client, "/v1/players/me", headers=auth(ada))
        first = await conn.fetchval("SELECT last_used_at FROM device_tokens")
        assert await conn.fetchval("SELECT now() - $1::timestamptz", first) < timedelta(
            seconds=30
        )
        backend.players.pop(digest)
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


async def test_code_guesses_are_limited_unless_rate_limits_are_off(db_url: str) -> None:
    async def tries(n: int, **settings: object) -> list[int]:
        async with instance(db_url, **settings) as client:
            # a new minute: the tries the database counted before are forgotten
            await client.app[BACKEND_KEY].store.pool.execute("DELETE FROM link_tries")
            statuses = []
            for _ in range(n):
                r = await client.post("/v1/tokens", json={"code": "AAAA-BBBB", "device": "x"})
                statuses.append(r.status)
                if r.status == 429:
                    assert int(r.headers["Retry-After"]) >= 1
            return statuses

    assert await tries(12, rate_limits="on") == [422] * 10 + [429] * 2
    # where many players share an address, the number is raised (RATE_LINK_TRIES_PER_MINUTE)
    assert await tries(16, rate_limits="on", rate_link_tries_per_minute=15) == [422] * 15 + [429]
    # RATE_LIMITS=off switches every rate limit off (API.md), this one too: for test rigs
    assert await tries(12, rate_limits="off") == [422] * 12


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


async def test_signing_a_device_out_cancels_the_codes_it_made(client: TestClient) -> None:
    ada = await new_player(client)
    ipad = await post(client, ada, "/v1/players/me/tokens", {"device": "iPad"})
    from_ipad = [await post(client, {"token": ipad["token"]}, "/v1/players/me/link-codes")
                 for _ in range(2)]
    from_first = await post(client, ada, "/v1/players/me/link-codes")
    r = await client.delete(f"/v1/players/me/tokens/{ipad['id']}", headers=auth(ada))
    assert r.status == 204
    for code in from_ipad:
        r = await client.post("/v1/tokens", json={"code": code["code"], "device": "Phone"})
        assert r.status == 422, await r.text()
        assert "wrong, used or expired" in (await r.json())["detail"]
    # the codes of the device still signed in are still good
    linked = await link(client, from_first["code"], "TV")
    assert linked["player"]["id"] == ada["id"]


async def test_redeeming_a_code_obeys_the_cap_on_tokens(client: TestClient) -> None:
    ada = await new_player(client)
    code = await post(client, ada, "/v1/players/me/link-codes")
    for i in range(players_module.MAX_TOKENS - 1):
        await post(client, ada, "/v1/players/me/tokens", {"device": f"d{i}"})
    r = await client.post("/v1/tokens", json={"code": code["code"], "device": "one more"})
    assert r.status == 409, await r.text()
    assert "sign one out first" in (await r.json())["detail"]
    listed = await get(client, "/v1/players/me/tokens", headers=auth(ada))
    assert len(listed["tokens"]) == players_module.MAX_TOKENS
    # the code was not spent: with a device signed out, it links one
    r = await client.delete(f"/v1/players/me/tokens/{listed['tokens'][-1]['id']}",
                            headers=auth(ada))
    assert r.status == 204
    linked = await link(client, code["code"], "one more")
    assert linked["player"]["id"] == ada["id"]


async def test_two_redemptions_at_one_below_the_cap_make_one_token(
    client: TestClient, db_url: str
) -> None:
    """Both redemptions wait on the player's row, held here, until both are waiting: the
    one that goes second must count the first one's token."""
    ada = await new_player(client)
    codes = [await post(client, ada, "/v1/players/me/link-codes") for _ in range(2)]
    for i in range(players_module.MAX_TOKENS - 2):
        await post(client, ada, "/v1/players/me/tokens", {"device": f"d{i}"})
    conn, watch = await asyncpg.connect(db_url), await asyncpg.connect(db_url)
    try:
        holding = conn.transaction()
        await holding.start()
        await conn.execute("SELECT 1 FROM players WHERE id = $1 FOR NO KEY UPDATE", ada["id"])
        redeem = [
            asyncio.create_task(client.post("/v1/tokens", json={"code": c["code"],
                                                                "device": f"new {i}"}))
            for i, c in enumerate(codes)
        ]
        # watched from another connection: inside the holding transaction,
        # pg_stat_activity would show the snapshot of its first read
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'" \
                  " AND datname = current_database()"
        deadline = time.monotonic() + 30  # a guard against hanging, not a measure
        while await watch.fetchval(waiting) < 2:
            assert time.monotonic() < deadline, "the redemptions do not wait for the player"
            await asyncio.sleep(0.02)
        await holding.rollback()
        statuses = sorted(r.status for r in await asyncio.gather(*redeem))
        assert statuses == [201, 409]
        in_use = await conn.fetchval(
            "SELECT count(*) FROM device_tokens WHERE revoked_at IS NULL")
        assert in_use == players_module.MAX_TOKENS
    finally:
        await conn.close()
        await watch.close()


async def test_link_codes_are_stored_under_the_servers_key(db_url: str) -> None:
    async with instance(db_url, link_code_key="a server secret") as client:
        ada = await new_player(client)
        code = (await post(client, ada, "/v1/players/me/link-codes"))["code"]
    plain = code.replace("-", "").encode()
    conn = await asyncpg.connect(db_url)
    try:
        stored = bytes(await conn.fetchval("SELECT code_hash FROM link_codes"))
    finally:
        await conn.close()
    assert stored != hashlib.sha256(plain).digest()
    assert stored != hashlib.sha256(b"link-code:" + plain).digest()
    assert stored == hmac.new(b"a server secret", plain, hashlib.sha256).digest()


async def test_without_a_key_set_every_instance_of_a_machine_shares_one(
    db_url: str, tmp_path: Path
) -> None:
    """The key made at the first start is kept beside DATA_DIR: another worker, or the
    same service started again, reads it back and takes the codes made before."""
    data = {"data_dir": tmp_path / "data", "link_code_key": None}
    async with instance(db_url, **data) as first:
        ada = await new_player(first)
        code = (await post(first, ada, "/v1/players/me/link-codes"))["code"]
    kept = tmp_path / ".link-code-key"
    assert kept.stat().st_mode & 0o777 == 0o600
    assert len(kept.read_text().strip()) == 64
    async with instance(db_url, **data) as again:
        linked = await link(again, code, "iPad")
    assert linked["player"]["id"] == ada["id"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".link-code-key"]
