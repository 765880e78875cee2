"""Answers that carry a secret (a token, a link code) or a player's devices: no cache may
keep them (`Cache-Control: no-store`). A player's own reads: only theirs may
(`Cache-Control: private`, `Vary: Authorization`)."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from ..helpers import auth, new_player


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
    r = await client.get(f"/v1/players/{ada['id']}")
    assert r.status == 200 and "Cache-Control" not in r.headers


async def test_a_players_own_reads_are_kept_for_them_alone(client: TestClient) -> None:
    ada = await new_player(client)
    board = "/v1/leaderboards/freecell/617"
    for url, status in [
        ("/v1/players/me", 200), ("/v1/players/me/export", 200),
        ("/v1/players/me/friends", 200), (f"{board}?friends=true", 200),
        (f"{board}?around=me", 404),
    ]:  # fmt: skip
        r = await client.get(url, headers=auth(ada))
        assert r.status == status, (url, await r.text())
        if status == 200:
            assert r.headers["Cache-Control"] == "private", url
            assert r.headers["Vary"] == "Authorization", url
        tag = r.headers.get("ETag")
        if tag is not None:  # and so is its 304
            r = await client.get(url, headers={**auth(ada), "If-None-Match": tag})
            assert r.status == 304 and r.headers["Cache-Control"] == "private", url
