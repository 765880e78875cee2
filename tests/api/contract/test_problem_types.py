"""Each refusal names its kind by the slug that docs/api-guide.md's table gives it."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from ..helpers import auth, instance, new_player

BASE = "https://open-solitaire.example/problems/"


async def slug_of(client: TestClient, method: str, url: str, status: int, **kw: object) -> str:
    r = await client.request(method, url, **kw)  # type: ignore[arg-type]
    assert r.status == status, await r.text()
    assert r.content_type == "application/problem+json"
    kind: str = (await r.json())["type"]
    assert kind.startswith(BASE), kind
    return kind.removeprefix(BASE)


async def test_deals_variants_paths_and_methods_have_their_slugs(client: TestClient) -> None:
    ada = await new_player(client)
    for deal in (0, 8589934592, 11982):  # out of range, out of range, set aside
        body = {"variant": "freecell", "deal": deal}
        assert await slug_of(client, "POST", "/v1/games", 422, json=body,
                             headers=auth(ada)) == "invalid-deal"
    assert await slug_of(client, "GET", "/v1/deals/freecell/0", 422) == "invalid-deal"
    assert await slug_of(client, "GET", "/v1/leaderboards/klondike/1", 400) == "unknown-variant"
    assert await slug_of(client, "GET", "/v1/nothing", 404) == "not-found"
    assert await slug_of(client, "DELETE", "/v1/players", 405) == "method-not-allowed"
    big = b'{"name": "' + b"x" * 70_000 + b'"}'
    assert await slug_of(client, "POST", "/v1/players", 413, data=big) == "too-large"
    assert await slug_of(client, "POST", "/v1/players", 415, data=b"name=ada",
                         headers={"Content-Type": "text/plain"}) == "unsupported-media-type"


async def test_a_move_that_names_no_card_nor_pile_says_so(client: TestClient) -> None:
    ada = await new_player(client)
    r = await client.post("/v1/games", json={"variant": "freecell", "deal": 617},
                          headers=auth(ada))
    gid = (await r.json())["id"]
    for body, says in (({"to": "c"}, "say what moves"), ({"from": "t1", "card": "7D",
                                                          "to": "c"}, "not both")):
        r = await client.post(f"/v1/games/{gid}/moves", json=body, headers=auth(ada))
        problem = await r.json()
        assert r.status == 400 and problem["type"].endswith("/validation"), problem
        assert says in problem["detail"], problem


async def test_a_refused_preflight_is_forbidden(db_url: str) -> None:
    async with instance(db_url, cors_origins="http://app.example") as client:
        headers = {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
        assert await slug_of(client, "OPTIONS", "/v1/games", 403,
                             headers=headers) == "forbidden"
