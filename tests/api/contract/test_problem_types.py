"""Each refusal names its kind by the slug that docs/api-guide.md's table gives it."""

from __future__ import annotations

import uuid

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
    for deal in (0, 8589934592):  # out of range
        body = {"variant": "freecell", "deal": deal}
        assert await slug_of(client, "POST", "/v1/games", 422, json=body,
                             headers=auth(ada)) == "invalid-deal"
    assert await slug_of(client, "GET", "/v1/deals/freecell/0", 422) == "invalid-deal"
    for number in ("9" * 31, "9" * 5000):  # too long to be one: out of range all the same
        r = await client.get(f"/v1/deals/freecell/{number}")
        detail = (await r.json())["detail"]
        assert r.status == 422 and detail.endswith(f"there is no deal of {len(number)} digits")
    r = await client.get(f"/v1/games/{uuid.uuid4()}/events?limit=0")  # (no upper bound to say)
    assert r.status == 400
    assert (await r.json())["detail"] == "query parameter 'limit' must be 1 or more"
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


async def test_a_listed_origin_reads_every_refusal_and_an_options_is_a_405(
    db_url: str,
) -> None:
    """With CORS_ORIGINS set, the answers of no route (a path the service does not serve, a
    method a path does not take) carry the CORS headers too, so a page of a listed origin
    can read their problem; and an OPTIONS that is not a preflight (no
    Access-Control-Request-Method) is a 405 with Allow, as without CORS_ORIGINS."""
    app = "http://app.example"
    async with instance(db_url, cors_origins=app) as client:
        gid = uuid.uuid4()
        for method, url, status, slug in (
            ("GET", "/v1/nope", 404, "not-found"),
            ("GET", f"/v1/games/{gid}/nope", 404, "not-found"),
            ("PUT", "/v1/games", 405, "method-not-allowed"),
            ("GET", f"/v1/games/{gid}", 404, "not-found"),  # (a route's own 404)
        ):
            r = await client.request(method, url, headers={"Origin": app})
            assert r.status == status and (await r.json())["type"] == BASE + slug
            assert r.headers["Access-Control-Allow-Origin"] == app, (method, url)
            if status == 405:  # (not OPTIONS, which is a 405 too but for preflights)
                assert r.headers["Allow"] == "POST"
            assert "ETAG" in r.headers["Access-Control-Expose-Headers"].upper()
        for headers in ({}, {"Origin": app}):
            assert await slug_of(client, "OPTIONS", "/v1/games", 405,
                                 headers=headers) == "method-not-allowed"
            r = await client.options("/v1/games", headers=headers)
            assert r.headers["Allow"] == "POST"
            assert ("Access-Control-Allow-Origin" in r.headers) is bool(headers)
        r = await client.get("/v1/nope", headers={"Origin": "http://evil.example"})
        assert r.status == 404 and "Access-Control-Allow-Origin" not in r.headers
    async with instance(db_url) as client:  # the same OPTIONS without CORS_ORIGINS
        r = await client.options("/v1/games")
        assert r.status == 405 and r.headers["Allow"] == "POST"


async def test_a_401_names_the_scheme_it_needs(client: TestClient) -> None:
    for headers in ({}, {"Authorization": "Bearer not-a-token"}):
        r = await client.get("/v1/players/me", headers=headers)
        assert r.status == 401
        assert r.headers["WWW-Authenticate"] == 'Bearer realm="open-solitaire"'


async def test_writes_that_take_no_body_refuse_one_that_says_something(
    client: TestClient,
) -> None:
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    r = await client.post("/v1/races", json={"variant": "freecell"}, headers=auth(bob))
    race = (await r.json())["id"]
    for method, url, done in (("POST", "/v1/players/me/link-codes", 201),
                              ("POST", f"/v1/races/{race}/join", 200),
                              ("PUT", f"/v1/players/me/friends/{bob['id']}", 204)):
        for body in (b"{{{", b'{"device": "phone"}', b"[]"):
            assert await slug_of(client, method, url, 400, data=body,
                                 headers={**auth(ada), "Content-Type": "application/json"}
                                 ) in ("bad-request", "validation")
        for body in (b"", b"{}"):  # nothing to say, said either way
            r = await client.request(method, url, data=body, headers=auth(ada))
            assert r.status == done, await r.text()


async def test_numbers_too_large_to_read_exactly_are_refused_not_rounded(
    client: TestClient,
) -> None:
    ada = await new_player(client)
    r = await client.post("/v1/games", json={"variant": "freecell", "deal": 617},
                          headers=auth(ada))
    gid = (await r.json())["id"]
    headers = {**auth(ada), "Content-Type": "application/json"}
    for url, body in (
        ("/v1/games", b'{"variant": "freecell", "deal": 18446744073709551617}'),
        (f"/v1/games/{gid}/moves", b'{"from": "t1", "to": "c", "expected_version": '
                                   + b"1" + b"0" * 30 + b"}"),
        (f"/v1/games/{gid}/undo", b'{"expected_version": 2147483648}'),
    ):
        r = await client.post(url, data=body, headers=headers)
        problem = await r.json()
        assert r.status == 400 and problem["type"].endswith("/validation"), problem
        assert "1000000000000000019884624838656" not in problem["detail"]
