"""Conditional requests (ETag, If-None-Match, 304) and calls from other origins (CORS)."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from aiohttp.test_utils import TestClient
from multidict import CIMultiDict

from service.base.keys import BACKEND_KEY
from service.database.connections import DatabaseUnavailable, current_budget
from service.live.hub import HUB_KEY

from ..helpers import auth, etag_of, instance, new_game, new_player, play_to_win, post, shortest

APP = "https://app.example"


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
        for first in ('"other"', ""):  # a list on two lines (an empty element is none)
            lines = CIMultiDict([("If-None-Match", first), ("If-None-Match", tag)])
            assert (await client.get(url, headers=lines)).status == 304, first
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
                                          "authorization, content-type, idempotency-key,"
                                          " if-match"})
        assert r.status == 200, await r.text()
        assert r.headers["Access-Control-Allow-Origin"] == APP
        assert "POST" in r.headers["Access-Control-Allow-Methods"]
        allowed = r.headers["Access-Control-Allow-Headers"].upper()
        assert {"AUTHORIZATION", "CONTENT-TYPE", "IDEMPOTENCY-KEY", "IF-MATCH"} <= {
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


def without_the_log(client: TestClient) -> list[int]:
    """Every read of a game's log by this instance from now on fails (as with the database
    away): what it answers then, it answered from memory. Returns the count of reads."""
    store = client.app[BACKEND_KEY].store
    reads: list[int] = []

    async def refused(*_args: Any, **_kw: Any) -> Any:
        reads.append(1)
        raise DatabaseUnavailable("the log is not asked in this test")

    store.read_events = refused  # type: ignore[method-assign]
    return reads


async def test_a_304_for_a_current_game_costs_no_read_of_the_log(db_url: str) -> None:
    """Memory read the game from the log while the listener was connected, and nothing
    has been announced since: the 304s of the game, its legal moves and the last page of its
    log come from memory."""
    async with instance(db_url) as a:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        urls = [f"/v1/games/{game['id']}{tail}"
                for tail in ("", "/legal-moves", "/events", "/events?after=1&limit=5")]  # fmt: skip
        tags = [await etag_of(a, url) for url in urls]
        reads = without_the_log(a)
        for url, tag in zip(urls, tags, strict=True):
            assert await not_modified(a, url, tag)
        assert reads == []
        # a tag that is not the current one goes to the log (here: 503, it is away)
        r = await a.get(urls[0], headers={"If-None-Match": '"x.1"'})
        assert r.status == 503 and reads == [1]


async def test_a_full_page_of_the_log_answers_304_for_good(db_url: str) -> None:
    """The log is append-only: a page followed by more events never changes, and its 304
    needs neither the log nor memory's version, however the game moves on."""
    async with instance(db_url) as a:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"

        async def move() -> None:
            legal = (await (await a.get(f"{url}/legal-moves")).json())["moves"]
            assert (await a.post(f"{url}/moves", json=legal[0], headers=auth(ada))).status == 201

        for _ in range(3):
            await move()
        page = f"{url}/events?after=1&limit=2"
        r = await a.get(page)
        assert (await r.json())["next"] == 3
        tag = r.headers["ETag"]
        end = await etag_of(a, f"{url}/events?after=2")  # the last page: it will change
        await move()
        reads = without_the_log(a)
        assert await not_modified(a, page, tag)
        assert reads == []
        r = await a.get(f"{url}/events?after=2", headers={"If-None-Match": end})
        assert r.status == 503 and reads == [1]  # a page that grew: read from the log


async def current_on_b_moved_on_a(
    a: TestClient, b: TestClient, before_the_move: Any = None
) -> tuple[str, str, dict[str, Any]]:
    """A game made on instance a, read on instance b (its 304 from memory there), then
    moved on a (after `before_the_move(a)`, when given): the game's url, b's old tag and
    the game as made."""
    ada = await new_player(a)
    game = await new_game(a, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}"
    tag = await etag_of(b, url)
    assert await not_modified(b, url, tag)
    if before_the_move is not None:
        before_the_move(a)
    legal = (await (await a.get(f"{url}/legal-moves")).json())["moves"]
    assert (await a.post(f"{url}/moves", json=legal[0], headers=auth(ada))).status == 201
    return url, tag, game


async def until_changed(b: TestClient, url: str, tag: str, guard: float = 5) -> None:
    """Until b stops answering 304 to `tag` (a guard of 5 s: an announcement takes
    milliseconds)."""
    deadline = time.monotonic() + guard
    while await not_modified(b, url, tag):
        assert time.monotonic() < deadline, "b kept answering 304 for the old version"
        await asyncio.sleep(0.005)


async def test_a_move_on_another_instance_changes_the_tag_here_at_once(db_url: str) -> None:
    """Instance b answers a game's 304 from memory; a move taken by instance a is
    announced to b (NOTIFY), and b's next answer to the old tag is the new game, read from
    the log, within the announcement's delay."""
    async with instance(db_url) as a, instance(db_url) as b:
        url, tag, game = await current_on_b_moved_on_a(a, b)
        await until_changed(b, url, tag)
        assert await etag_of(b, url) == f'"{game["id"]}.{game["version"] + 1}"'


async def test_without_its_listener_an_instance_asks_the_log(db_url: str) -> None:
    """A listener that lost its connection may have missed announcements: memory then
    knows nothing, and every conditional read goes to the log."""
    async with instance(db_url) as a:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        tag = await etag_of(a, url)
        a.app[HUB_KEY].listening.clear()  # as when its connection is lost
        reads = without_the_log(a)
        r = await a.get(url, headers={"If-None-Match": tag})
        assert r.status == 503 and reads == [1]


def test_an_announcement_during_a_read_keeps_its_copy_unconfirmed() -> None:
    """A read that began before another instance's commit was announced, and ended
    without it, does not make its copy current."""
    from engine import Game
    from service.base.backend import Backend, GameCache
    from service.games.live_game import LiveGame
    from service.games.positions import announce, known_version, settled

    backend = Backend(store=None, games=GameCache(10))  # type: ignore[arg-type]
    backend.epoch = lambda: 1
    gid = uuid.uuid4()
    game, _created = Game.new("freecell", 617)
    live = LiveGame(game, uuid.uuid4(), datetime.now(UTC), None)
    announce(backend, gid, game.version + 1)  # while the read was under way
    settled(backend, gid, live, 1)
    assert known_version(backend, gid) is None
    # a copy read afterwards, with the announced event, is current
    other = uuid.uuid4()
    fresh = LiveGame(game, uuid.uuid4(), datetime.now(UTC), None)
    settled(backend, other, fresh, 1)
    assert known_version(backend, other) == game.version
    announce(backend, other, game.version + 1)  # then another instance moves it
    assert known_version(backend, other) is None
    # a race's game: its race's end abandons it in the database, unannounced
    raced = uuid.uuid4()
    racing = LiveGame(game, uuid.uuid4(), datetime.now(UTC), None, race_id=uuid.uuid4())
    settled(backend, raced, racing, 1)
    assert racing.epoch == 1 and known_version(backend, raced) is None


async def test_a_write_tells_the_other_instances_in_its_own_transaction(
    db_url: str,
) -> None:
    """Instance a's publisher can send nothing: b hears of a's move all the same, from the
    NOTIFY of the move's own statement, delivered at its commit (before a answers)."""

    def no_publisher(a: TestClient) -> None:
        hub = a.app[HUB_KEY]
        hub.store = AllConnectionsFail(hub.store)  # type: ignore[assignment]

    async with instance(db_url) as a, instance(db_url) as b:
        url, tag, game = await current_on_b_moved_on_a(a, b, no_publisher)
        await until_changed(b, url, tag, guard=0.5)
        assert await etag_of(b, url) == f'"{game["id"]}.{game["version"] + 1}"'


async def test_an_announcement_that_could_not_be_sent_is_sent_again(db_url: str) -> None:
    """Instance a's NOTIFY of a race's line (its log grew) fails, as when its pool had no
    connection for it: the line goes with the next attempt, and b hears it."""
    async with instance(db_url) as a, instance(db_url) as b:
        hub = a.app[HUB_KEY]
        failing = FirstConnectionFails(hub.store)
        hub.store = failing  # type: ignore[assignment]
        heard: list[uuid.UUID] = []
        b.app[HUB_KEY].on_race = heard.append
        race = uuid.uuid4()
        hub.race_committed(race)
        deadline = time.monotonic() + 5
        while race not in heard:
            assert time.monotonic() < deadline, "b never heard of the race"
            await asyncio.sleep(0.01)
        assert failing.failed == 1


class AllConnectionsFail:
    """The store, whose every connection asked for fails."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def connection(self) -> Any:
        raise DatabaseUnavailable("no connection for the publisher in this test")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


class FirstConnectionFails:
    """The store, whose first connection asked for fails as when the pool has none."""

    def __init__(self, store: Any) -> None:
        self.store, self.failed = store, 0

    def connection(self) -> Any:
        if not self.failed:
            self.failed += 1
            raise DatabaseUnavailable("no connection for this one")
        return self.store.connection()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def without_the_database(client: TestClient) -> list[int]:
    """Every connection a request of this instance asks its store for from now on fails
    (background tasks' still go: the beats a 304 beside other instances waits for, the
    race clock's): what it answers then, it answered from memory. The requests' asks."""
    store, asks = client.app[BACKEND_KEY].store, []
    connection = store.connection

    def refused(*args: Any, **kw: Any) -> Any:
        if current_budget() is None:
            return connection(*args, **kw)
        asks.append(1)
        raise DatabaseUnavailable("the database is not asked in this test")

    store.connection = refused  # type: ignore[method-assign]
    return asks


async def test_a_boards_304_comes_from_memory_until_a_win_here_or_there(db_url: str) -> None:
    """A page of a board, read on b, answers its 304 from b's memory (no connection asked
    but by its beat); a win on another instance is announced to b, and b's next answer to
    the old tag is the new page; a win on b itself ends its memory of the page at once."""
    deal, line = shortest("freecell")
    url = f"/v1/leaderboards/freecell/{deal}?limit=5"
    async with instance(db_url) as a, instance(db_url) as b:
        tag = await etag_of(b, url)
        connection = b.app[BACKEND_KEY].store.connection
        asks = without_the_database(b)
        assert await not_modified(b, url, tag)
        assert asks == []
        b.app[BACKEND_KEY].store.connection = connection  # type: ignore[method-assign]

        await play_to_win(a, await new_player(a, "ann"), "freecell", deal, line)
        await until_changed(b, url, tag)
        tag = await etag_of(b, url)
        assert await not_modified(b, url, tag)

        await play_to_win(b, await new_player(b, "bea"), "freecell", deal, line)
        assert not await not_modified(b, url, tag)  # at once: the win was this instance's
        body = await (await b.get(url)).json()
        assert sorted(e["player"]["name"] for e in body["entries"]) == ["ann", "bea"]


async def test_a_full_pages_tag_is_answered_only_where_the_page_is_full(
    client: TestClient,
) -> None:
    """A full page's 304 comes from memory only where memory's copy goes past the page."""
    nobody = uuid.uuid4()
    for tag in (f'"{nobody}.events.0.1000.full"', "*"):  # of an unknown game: 404
        r = await client.get(f"/v1/games/{nobody}/events", headers={"If-None-Match": tag})
        assert r.status == 404 and r.content_type == "application/problem+json", tag
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)  # one event: no full page
    gid, url = game["id"], f"/v1/games/{game['id']}/events"
    page = f"{url}?limit=1"
    assert not await not_modified(client, url, f'"{gid}.events.0.1000.full"')
    assert not await not_modified(client, page, f'"{gid}.events.0.1.full"')
    legal = (await (await client.get(f"/v1/games/{gid}/legal-moves")).json())["moves"]
    r = await client.post(f"/v1/games/{gid}/moves", json=legal[0], headers=auth(ada))
    assert r.status == 201
    tag = await etag_of(client, page)  # now a full page: its 304 from memory, or the log
    assert tag == f'"{gid}.events.0.1.full"'
    assert await not_modified(client, page, tag)
    client.app[BACKEND_KEY].games.drop(uuid.UUID(gid))
    assert await not_modified(client, page, tag)
