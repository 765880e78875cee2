"""A request that makes a token, retried with its Idempotency-Key after its answer was
lost, gets the first answer again, token included: one player, one token, the link code
spent once. The token is not stored: the database keeps hashes only."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from typing import Any

from aiohttp.test_utils import TestClient

from ..helpers import OTHER_ADDRESS, auth, db_value, from_address, get, instance, new_player, post


def key() -> str:
    return str(uuid.uuid4())


async def create(client: TestClient, name: str, k: str, status: int = 201) -> Any:
    r = await client.post("/v1/players", json={"name": name}, headers={"Idempotency-Key": k})
    assert r.status == status, await r.text()
    return r


async def test_a_new_players_retry_gets_the_first_answer(client: TestClient, db_url: str) -> None:
    k = key()
    first = await create(client, "ada", k)
    assert "Idempotent-Replayed" not in first.headers
    again = await create(client, "ada", k)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Cache-Control"] == "no-store"
    ada = await first.json()
    assert await again.read() == await first.read()
    # where the new player is, the replay too
    assert first.headers["Location"] == again.headers["Location"] == f"/v1/players/{ada['id']}"
    assert await db_value(db_url, "SELECT count(*) FROM players") == 1
    assert await db_value(db_url, "SELECT count(*) FROM device_tokens") == 1
    me = await get(client, "/v1/players/me", headers=auth(ada))
    assert me["id"] == ada["id"]
    # without the key, the name is another's
    r = await client.post("/v1/players", json={"name": "ada"})
    assert r.status == 409 and (await r.json())["type"].endswith("/name-taken")


async def test_the_database_gives_away_neither_token_nor_key(
    client: TestClient, db_url: str
) -> None:
    """Not even a short key: the key is kept as a keyed hash, under the server's key, which
    a copy of the database does not hold."""
    k = "0123456789abcdef"
    ada = await (await create(client, "ada", k)).json()
    dump = await db_value(
        db_url, "SELECT string_agg(t::text, ' ') FROM token_keys t")
    assert ada["token"] not in dump and k not in dump
    kept = bytes(await db_value(db_url, "SELECT key_hash FROM token_keys"))
    for plain in (k.encode(), b"\0" + k.encode()):
        assert kept != hashlib.sha256(plain).digest()
    assert await db_value(db_url, "SELECT token_hash FROM device_tokens") == hashlib.sha256(
        ada["token"].encode()).digest()


async def test_an_instance_with_another_server_key_does_not_know_the_key(db_url: str) -> None:
    """Every instance must have the same LINK_CODE_KEY (operations.md): one with another
    finds no such key, and the retry is a new request (here, the name is taken)."""
    k = key()
    async with instance(db_url, link_code_key="one key") as a, \
            instance(db_url, link_code_key="another key") as b:
        await create(a, "ada", k)
        r = await create(b, "ada", k, status=409)
        assert (await r.json())["type"].endswith("/name-taken")
        assert await db_value(db_url, "SELECT count(*) FROM players") == 1


async def test_keys_that_come_with_another_body_or_are_short(client: TestClient) -> None:
    k = key()
    await create(client, "ada", k)
    r = await create(client, "bob", k, status=422)
    assert "was used before for another request" in (await r.json())["detail"]
    r = await create(client, "bob", "0123456789abcde", status=400)  # 15 characters
    assert "16 characters" in (await r.json())["detail"]
    for plain in ("a" * 16, "0101010101010101", "abcabcabcabcabca"):  # 1 to 3 characters
        r = await create(client, "bob", plain, status=400)
        assert "4 different ones at least" in (await r.json())["detail"]
    await create(client, "bob", "0123456789abcdef")


async def test_a_key_is_given_again_only_to_the_address_that_sent_it(
    client: TestClient, db_url: str
) -> None:
    """Without a token, a key's scope is the client's address: a retry from another one
    is another request (the name taken, the code spent), and a key guessed from elsewhere
    learns nothing of it, not even that it was used; the first address still gets the
    first answer."""
    k = key()
    ada = await (await create(client, "ada", k)).json()
    code = (await post(client, ada, "/v1/players/me/link-codes"))["code"]
    link, lk = {"code": code, "device": "phone"}, key()
    linked = await client.post("/v1/tokens", json=link, headers={"Idempotency-Key": lk})
    assert linked.status == 201, await linked.text()
    async with from_address(client, OTHER_ADDRESS) as other:
        r = await other.post("/v1/players", json={"name": "ada"}, headers={"Idempotency-Key": k})
        assert r.status == 409 and (await r.json())["type"].endswith("/name-taken")
        r = await other.post("/v1/players", json={"name": "eve"}, headers={"Idempotency-Key": k})
        assert r.status == 201 and (await r.json())["token"] != ada["token"]
        r = await other.post("/v1/tokens", json=link, headers={"Idempotency-Key": lk})
        assert r.status == 422, await r.text()
    again = await create(client, "ada", k)
    assert again.headers["Idempotent-Replayed"] == "true" and await again.json() == ada
    r = await client.post("/v1/tokens", json=link, headers={"Idempotency-Key": lk})
    assert r.headers["Idempotent-Replayed"] == "true" and await r.read() == await linked.read()
    assert await db_value(db_url, "SELECT count(*) FROM players") == 2


async def test_retries_at_once_make_one_player(client: TestClient, db_url: str) -> None:
    k = key()
    answers = await asyncio.gather(*(create(client, "ada", k) for _ in range(6)))
    bodies = {await r.read() for r in answers}
    assert len(bodies) == 1
    assert sorted(r.headers.get("Idempotent-Replayed", "") for r in answers).count("true") == 5
    assert await db_value(db_url, "SELECT count(*) FROM players") == 1


async def test_a_retry_on_another_instance(db_url: str) -> None:
    k = key()
    async with instance(db_url) as a, instance(db_url) as b:
        first = await (await create(a, "ada", k)).json()
        again = await (await create(b, "ada", k)).json()
        assert again == first
        await get(b, "/v1/players/me", headers=auth(again))


async def test_another_device_and_a_linked_device_retried(
    client: TestClient, db_url: str
) -> None:
    ada = await new_player(client)
    bob = await new_player(client, "bob")
    k = key()
    ipad = await post(client, ada, "/v1/players/me/tokens", {"device": "iPad"},
                      **{"Idempotency-Key": k})
    again = await post(client, ada, "/v1/players/me/tokens", {"device": "iPad"},
                       **{"Idempotency-Key": k})
    assert again == ipad
    # the key is the player's own: another player's is another request
    bobs = await post(client, bob, "/v1/players/me/tokens", {"device": "iPad"},
                      **{"Idempotency-Key": k})
    assert bobs["token"] != ipad["token"]
    code = (await post(client, ada, "/v1/players/me/link-codes"))["code"]
    k = key()
    answers = []
    for typed in (code, code.lower().replace("-", " ")):  # the same code, typed otherwise
        r = await client.post("/v1/tokens", json={"code": typed, "device": "phone"},
                              headers={"Idempotency-Key": k})
        assert r.status == 201, await r.text()
        answers.append(await r.json())
    assert answers[0] == answers[1]
    await get(client, "/v1/players/me", headers=auth(answers[1]))
    in_use = await db_value(
        db_url, "SELECT count(*) FROM device_tokens WHERE player_id = $1 AND revoked_at IS NULL",
        uuid.UUID(ada["id"]))
    assert in_use == 3  # the first device, the iPad, the phone
    # the code is spent: without the key, or with another, it is refused
    r = await client.post("/v1/tokens", json={"code": code, "device": "phone"},
                          headers={"Idempotency-Key": key()})
    assert r.status == 422


async def test_another_devices_retries_at_once_make_one_token(
    client: TestClient, db_url: str
) -> None:
    ada = await new_player(client)
    headers = {**auth(ada), "Idempotency-Key": key()}
    answers = await asyncio.gather(*(
        client.post("/v1/players/me/tokens", json={"device": "iPad"}, headers=headers)
        for _ in range(5)))
    assert {r.status for r in answers} == {201}, [await r.text() for r in answers]
    assert len({await r.read() for r in answers}) == 1
    assert await db_value(db_url, "SELECT count(*) FROM device_tokens") == 2


async def test_a_token_signed_out_is_not_given_again(client: TestClient) -> None:
    k = key()
    ada = await (await create(client, "ada", k)).json()
    tokens = await get(client, "/v1/players/me/tokens", headers=auth(ada))
    r = await client.delete(f"/v1/players/me/tokens/{tokens['tokens'][0]['id']}",
                            headers=auth(ada))
    assert r.status == 204
    r = await create(client, "ada", k, status=409)
    assert "signed out" in (await r.json())["detail"]


async def test_keys_are_purged_with_the_others(client: TestClient, db_url: str) -> None:
    from datetime import UTC, datetime, timedelta

    from service.base.keys import BACKEND_KEY

    await create(client, "ada", key())
    store = client.app[BACKEND_KEY].store
    await store.purge_keys(datetime.now(UTC) - timedelta(hours=1))
    assert await db_value(db_url, "SELECT count(*) FROM token_keys") == 1
    await store.purge_keys(datetime.now(UTC) + timedelta(seconds=1))
    assert await db_value(db_url, "SELECT count(*) FROM token_keys") == 0
