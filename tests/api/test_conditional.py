"""Conditional requests (ETag, If-None-Match, 304) and calls from other origins (CORS)."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from .helpers import auth, new_game, new_player
from .test_leaderboards import play_to_win, shortest
from .test_records import instance, post

APP = "https://app.example"


async def etag_of(client: TestClient, url: str, **kw: Any) -> str:
    r = await client.get(url, **kw)
    assert r.status == 200, await r.text()
    tag = r.headers["ETag"]
    assert tag.startswith('"') and tag.endswith('"')
    return tag


async def not_modified(client: TestClient, url: str, tag: str, **kw: Any) -> bool:
    headers = {**kw.pop("headers", {}), "If-None-Match": tag}
    r = await client.get(url, headers=headers, **kw)
    if r.status == 304:
        assert await r.read() == b"" and r.headers["ETag"] in tag
        assert "Content-Type" not in r.headers or not r.content_length
        return True
    assert r.status == 200 and r.headers["ETag"] != tag
    return False


async def test_a_game_its_legal_moves_and_events_answer_304_until_it_moves(
    client: TestClient,
) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    urls = [f"/v1/games/{game['id']}{tail}" for tail in ("", "/legal-moves", "/events")]
    tags = [await etag_of(client, url) for url in urls]
    assert len(set(tags)) == 3
    assert tags[0] == f'"{game["id"]}.1"'  # a game's tag is its id and version
    for url, tag in zip(urls, tags, strict=True):
        assert await not_modified(client, url, tag)
        assert await not_modified(client, url, f'"other", W/{tag}')  # a list, weak form
        assert not await not_modified(client, url, '"other"')
    await post(client, ada, f"/v1/games/{game['id']}/moves", {"from": "t1", "to": "c"})
    for url, tag in zip(urls, tags, strict=True):
        assert not await not_modified(client, url, tag)
    assert await etag_of(client, urls[0]) == f'"{game["id"]}.2"'
    r = await client.get(urls[0], headers={"If-None-Match": "*"})
    assert r.status == 304
    r = await client.head(urls[0], headers={"If-None-Match": f'"{game["id"]}.2"'})
    assert r.status == 304


async def test_a_tag_from_another_instance_holds(db_url: str) -> None:
    """Every instance gives a game the same tag: a phone behind a balancer still gets 304."""
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        assert await not_modified(b, url, await etag_of(a, url))


async def test_boards_and_records_answer_304_until_they_change(client: TestClient) -> None:
    deal, line = shortest("freecell")
    ada = await new_player(client)
    urls = [f"/v1/leaderboards/freecell/{deal}", f"/v1/players/{ada['id']}"]
    tags = [await etag_of(client, url) for url in urls]
    me = await etag_of(client, "/v1/players/me", headers=auth(ada))
    for url, tag in zip(urls, tags, strict=True):
        assert await not_modified(client, url, tag)
    assert await not_modified(client, "/v1/players/me", me, headers=auth(ada))
    await play_to_win(client, ada, "freecell", deal, line)
    for url, tag in zip(urls, tags, strict=True):
        assert not await not_modified(client, url, tag)
    assert not await not_modified(client, "/v1/players/me", me, headers=auth(ada))


async def test_a_preflight_from_a_listed_origin(db_url: str) -> None:
    async with instance(db_url, cors_origins=f"{APP}, http://localhost:5173") as client:
        r = await client.options("/v1/games/6f0c6a44-32c1-4d8e-8f4e-0a8f6f1b2c3d/moves",
                                 headers={"Origin": APP,
                                          "Access-Control-Request-Method": "POST",
                                          "Access-Control-Request-Headers":
                                          "authorization, content-type, idempotency-key"})
        assert r.status == 200, await r.text()
        assert r.headers["Access-Control-Allow-Origin"] == APP
        assert "POST" in r.headers["Access-Control-Allow-Methods"]
        allowed = r.headers["Access-Control-Allow-Headers"].upper()
        assert {"AUTHORIZATION", "CONTENT-TYPE", "IDEMPOTENCY-KEY"} <= {
            h.strip() for h in allowed.split(",")}
        # the answer itself exposes what a client reads
        ada = await new_player(client)
        r = await client.post("/v1/games", json={"variant": "freecell", "deal": 617},
                              headers={**auth(ada), "Origin": APP})
        game = await r.json()
        assert r.headers["Location"] == f"/v1/games/{game['id']}"
        assert r.headers["Access-Control-Allow-Origin"] == APP
        r = await client.get(f"/v1/games/{game['id']}", headers={"Origin": APP})
        assert r.headers["Access-Control-Allow-Origin"] == APP
        exposed = {h.strip().upper() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
        assert {"ETAG", "RETRY-AFTER", "LOCATION"} <= exposed
        r = await client.options("/v1/players/me/tokens/x", headers={
            "Origin": "http://localhost:5173", "Access-Control-Request-Method": "DELETE"})
        assert r.status == 200 and "DELETE" in r.headers["Access-Control-Allow-Methods"]


async def test_other_origins_get_no_cors_headers(db_url: str) -> None:
    async with instance(db_url, cors_origins=APP) as client:
        r = await client.options("/v1/games", headers={
            "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
        assert r.status == 403
        assert "Access-Control-Allow-Origin" not in r.headers
        r = await client.get("/healthz", headers={"Origin": "https://evil.example"})
        assert r.status == 200 and "Access-Control-Allow-Origin" not in r.headers
    async with instance(db_url) as client:  # CORS_ORIGINS unset: no origin at all
        r = await client.get("/healthz", headers={"Origin": APP})
        assert "Access-Control-Allow-Origin" not in r.headers
        r = await client.options("/v1/games", headers={
            "Origin": APP, "Access-Control-Request-Method": "POST"})
        assert r.status == 405 and "Access-Control-Allow-Origin" not in r.headers
