"""The front (service/serving/front.py): the 304s memory gives are answered before the app's
router and middlewares, with what the app's own 304 carries; every other request reaches
the app as it came."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient
from yarl import URL

from service.app import create_app
from tests.conftest import Served, make_settings

from ..helpers import new_game, new_player, post

APP = "https://app.example"


def spied(db_url: str, **settings: Any) -> tuple[web.Application, list[str]]:
    """The app, with a last middleware noting each request that reaches the app."""
    app = create_app(make_settings(db_url, **settings))
    reached: list[str] = []

    @web.middleware
    async def spy(request: web.Request, handler: Any) -> web.StreamResponse:
        reached.append(request.path_qs)
        return await handler(request)  # type: ignore[no-any-return]

    app.middlewares.append(spy)
    return app, reached


async def tag_of(client: TestClient, url: str) -> str:
    r = await client.get(url)
    assert r.status == 200, await r.text()
    return r.headers["ETag"]


async def test_a_304_memory_knows_never_reaches_the_app(db_url: str) -> None:
    app, reached = spied(db_url)
    async with TestClient(Served(app)) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=617, autoplay=False)
        base = f"/v1/games/{game['id']}"
        await post(c, ada, f"{base}/moves", {"from": "t1", "to": "c"})
        urls = [base, f"{base}/legal-moves", f"{base}/events", f"{base}/events?after=1&limit=1",
                f"{base}/events?limit=1", "/v1/leaderboards/freecell/617",
                "/v1/leaderboards/freecell/617?limit=5&no_undo=true"]  # fmt: skip
        for url in urls:
            tag = await tag_of(c, url)
            reached.clear()
            r = await c.get(url, headers={"If-None-Match": f'"x", {tag}', "X-Request-Id": "r-1"})
            assert r.status == 304, url
            assert reached == [], url
            assert await r.read() == b""
            assert r.headers["ETag"] == tag
            assert r.headers["X-Request-Id"] == "r-1"
            assert r.headers["X-Content-Type-Options"] == "nosniff"
            assert r.headers["Server"] == "open-solitaire"
        # counted as the app counts its own answers, by route
        metrics = await (await c.get("/metrics")).text()
        for route, count in (("/v1/games/{game_id}", 1), ("/v1/games/{game_id}/events", 3),
                             ("/v1/leaderboards/{variant}/{deal}", 2)):  # fmt: skip
            assert (f'solitaire_http_requests_total{{method="GET",route="{route}",status="304"}}'
                    f" {count}.0") in metrics  # fmt: skip


async def test_what_the_front_is_unsure_of_goes_to_the_app(db_url: str) -> None:
    app, reached = spied(db_url, cors_origins=APP)
    async with TestClient(Served(app)) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        tag = await tag_of(c, url)
        reached.clear()
        # the app's 304s: a HEAD, a request from another origin (CORS is the app's), two
        # Authorization headers (a 400)
        r = await c.head(url, headers={"If-None-Match": tag})
        assert r.status == 304 and reached == [url]
        r = await c.get(url, headers={"If-None-Match": tag, "Origin": APP})
        assert r.status == 304 and r.headers["Access-Control-Allow-Origin"] == APP
        assert reached[-1] == url and r.headers["Vary"] == "Origin"
        r = await c.get(url, headers=[("If-None-Match", tag), ("Authorization", "Bearer a"),
                                      ("Authorization", "Bearer b")])  # fmt: skip
        assert r.status == 400 and reached[-1] == url
        # a tag memory does not vouch for, a bad id, a bad query: the app's answers
        assert (await c.get(url, headers={"If-None-Match": '"x.1"'})).status == 200
        r = await c.get("/v1/games/nope", headers={"If-None-Match": tag})
        assert r.status == 404 and reached[-1] == "/v1/games/nope"
        r = await c.get(f"{url}/events?limit=x", headers={"If-None-Match": tag})
        assert r.status == 400 and r.content_type == "application/problem+json"
        r = await c.get("/v1/leaderboards/nogame/617", headers={"If-None-Match": tag})
        assert r.status == 400 and reached[-1] == "/v1/leaderboards/nogame/617"
        # an escaped slash is no slash to the router: no such game, for the front too
        moves = await tag_of(c, f"{url}/legal-moves")
        r = await c.get(URL(f"{url}%2Flegal-moves", encoded=True),
                        headers={"If-None-Match": moves})  # fmt: skip
        assert r.status == 404 and reached[-1] == f"{url}%2Flegal-moves"
        board = await tag_of(c, "/v1/leaderboards/freecell/617")
        r = await c.get(URL("/v1/leaderboards/freecell%2F617", encoded=True),
                        headers={"If-None-Match": board})  # fmt: skip
        assert r.status == 404
        # `*`: the answer's own tag is the app's to say
        r = await c.get(url, headers={"If-None-Match": "*"})
        assert r.status == 304 and r.headers["ETag"] == tag and reached[-1] == url
        # a front 304 says Vary: Origin too when the answers of origins differ
        reached.clear()
        r = await c.get(url, headers={"If-None-Match": tag})
        assert r.status == 304 and reached == [] and r.headers["Vary"] == "Origin"


async def test_with_rate_limits_a_page_of_a_log_is_charged_by_the_app(db_url: str) -> None:
    """A page of a log costs its events from the address's allowance, a 304's too: the
    rate limits are the app's, so the front leaves it to the app; a game's 304 costs
    nothing of them, and the front gives it."""
    app, reached = spied(db_url, rate_limits="on")
    async with TestClient(Served(app)) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=617, autoplay=False)
        for url, to_the_app in ((f"/v1/games/{game['id']}", False),
                                (f"/v1/games/{game['id']}/events", True)):  # fmt: skip
            tag = await tag_of(c, url)
            reached.clear()
            r = await c.get(url, headers={"If-None-Match": tag})
            assert r.status == 304 and reached == ([url] if to_the_app else [])
