"""What a request's Idempotency-Key is kept with, spelled out: the hash of the request as it
was understood (service/base/requests.py, request_hash). A retry is the first request only
when its hash is the same, and a key is kept IDEMPOTENCY_HOURS, across upgrades of the
service: a change to what is hashed (the route's name, the way ids or fields are written,
a field added to a body) makes every earlier key's retry a 422 (docs/operations.md,
"Upgrades"). So the form is written out here, once, independently of the code: the method,
the route's pattern and its ids, then the body's fields that are not their defaults, as
compact JSON with sorted keys."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from datetime import datetime, timedelta
from typing import Any

import asyncpg
from aiohttp.test_utils import TestClient

from ..helpers import db_value, new_game, new_player

KEYS = "SELECT request_hash FROM idempotency_keys WHERE key = $1"
TOKEN_KEYS = "SELECT request_hash FROM token_keys ORDER BY created_at DESC LIMIT 1"


def spelled(resource: str, fields: dict[str, Any]) -> str:
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(resource.encode() + b"\0" + text.encode()).hexdigest()


async def test_each_keyed_write_keeps_the_request_as_spelled_here(
    client: TestClient, db_url: str
) -> None:
    ada = await new_player(client)
    bearer = {"Authorization": f"Bearer {ada['token']}"}

    async def kept(url: str, body: dict[str, Any], resource: str, fields: dict[str, Any],
                   key: str | None = None, table: str = KEYS) -> Any:  # fmt: skip
        key = key or str(uuid.uuid4())
        r = await client.post(url, json=body, headers={**bearer, "Idempotency-Key": key})
        assert r.status == 201, (url, await r.text())
        stored = await db_value(db_url, table, key) if table == KEYS else await db_value(
            db_url, table)
        assert stored == spelled(resource, fields), url
        return await r.json()

    # defaults said or not, the same request: only what differs from them is hashed
    await kept("/v1/games", {"variant": "freecell", "deal": 5, "autoplay": True},
               "POST /v1/games", {"variant": "freecell", "deal": 5})  # fmt: skip
    gid = (await new_game(client, ada, deal=617, autoplay=False))["id"]
    game = f"POST /v1/games/{{game_id}}/%s game_id={gid}"
    moved = await kept(f"/v1/games/{gid}/moves", {"from": "t1", "to": "c"},
                       game % "moves", {"from": "t1", "to": "c", "count": 1})  # fmt: skip
    # a batch whose move says it was played 1 ms after the move before it
    created = datetime.fromisoformat(moved["game"]["created_at"])
    played = (datetime.fromisoformat(moved["events"][0]["at"]) - created) // timedelta(
        milliseconds=1) + 1
    await asyncio.sleep(0.05)
    batch = {"moves": [{"from": "c1", "to": "c2", "played_ms": played}], "expected_version": 2}
    await kept(f"/v1/games/{gid}/moves", batch, game % "moves",
               {"moves": [{"from": "c1", "to": "c2", "count": 1, "played_ms": played}],
                "expected_version": 2})  # fmt: skip
    await kept(f"/v1/games/{gid}/undo", {"expected_version": 3}, game % "undo",
               {"expected_version": 3})  # fmt: skip
    await kept(f"/v1/games/{gid}/hint", {}, game % "hint", {})
    await kept("/v1/races", {"variant": "freecell", "deal": 617, "starts_in_s": 20},
               "POST /v1/races", {"variant": "freecell", "deal": 617, "starts_in_s": 20})
    # a write that makes a token keeps its request beside its key, hashed alike
    await kept("/v1/players/me/tokens", {"device": "iPad"}, "POST /v1/players/me/tokens",
               {"device": "iPad"}, table=TOKEN_KEYS)  # fmt: skip
    r = await client.post("/v1/players/me/link-codes", json={}, headers=bearer)
    code = (await r.json())["code"]
    bearer.clear()
    await kept("/v1/tokens", {"code": code.lower(), "device": "phone"}, "POST /v1/tokens",
               {"code": code.replace("-", ""), "device": "phone"}, table=TOKEN_KEYS)
    await kept("/v1/players", {"name": "bea"}, "POST /v1/players", {"name": "bea"},
               table=TOKEN_KEYS)  # fmt: skip


async def test_a_key_kept_by_an_earlier_version_still_gives_its_first_answer(
    client: TestClient, db_url: str
) -> None:
    """Versions before 2026-12-06 hashed every field, defaults written out: their keys, kept
    IDEMPOTENCY_HOURS, still give their first answer after the upgrade, and still refuse
    another request."""
    ada = await new_player(client)
    gid = (await new_game(client, ada, deal=617, autoplay=False))["id"]
    url = f"/v1/games/{gid}/moves"
    headers = {"Authorization": f"Bearer {ada['token']}", "Idempotency-Key": "before"}
    first = await client.post(url, json={"from": "t1", "to": "c"}, headers=headers)
    assert first.status == 201
    earlier = spelled(f"POST /v1/games/{{game_id}}/moves game_id={gid}",
                      {"from": "t1", "card": None, "to": "c", "count": 1,
                       "expected_version": None})  # fmt: skip
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("UPDATE idempotency_keys SET request_hash = $1 WHERE key = 'before'",
                           earlier)  # fmt: skip
    finally:
        await conn.close()
    again = await client.post(url, json={"from": "t1", "to": "c", "count": 1}, headers=headers)
    assert again.status == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert await again.json() == await first.json()
    other = await client.post(url, json={"from": "t2", "to": "c"}, headers=headers)
    assert other.status == 422, await other.text()
