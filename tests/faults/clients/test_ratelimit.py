"""Rate limits: token buckets per token and per address, 429 problem+json with Retry-After."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

from aiohttp.test_utils import TestClient

from service.app import create_app
from service.base.keys import BACKEND_KEY, LINK_GUESSES_KEY
from service.players import tries

from ...api.helpers import auth, instance, new_game, new_player
from ...conftest import Served, make_settings
from ...openapi_check import validating_trace_config


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_link_code_tries_are_at_most_ten_in_any_minute(db_url: str) -> None:
    """API.md: "More than 10 tries a minute from one address: 429". Ten at once, then none
    until the first of them is a minute old (a bucket would let one more in every 6 s)."""
    clock = Clock()

    async def tries(client: TestClient, n: int) -> list[int]:
        statuses = []
        for _ in range(n):
            r = await client.post("/v1/tokens", json={"code": "AAAA-BBBB", "device": "x"})
            statuses.append(r.status)
        return statuses

    async with instance(db_url, rate_limits="on") as client:
        client.app[LINK_GUESSES_KEY].clock = clock
        assert await tries(client, 10) == [422] * 10
        for later in (6.0, 30.0, 59.5):
            clock.now = 1000.0 + later
            r = await client.post("/v1/tokens", json={"code": "AAAA-BBBB", "device": "x"})
            assert r.status == 429 and int(r.headers["Retry-After"]) == 60 - int(later)
        clock.now = 1060.0
        await a_minute_passes_in_the_database(client)
        assert await tries(client, 11) == [422] * 10 + [429]


async def a_minute_passes_in_the_database(client: TestClient) -> None:
    """The tries the database counted (players/tries.py) are a minute older."""
    await client.app[BACKEND_KEY].store.pool.execute(
        "UPDATE link_tries SET tries = ARRAY(SELECT t - interval '1 minute'"
        " FROM unnest(tries) AS t ORDER BY t)"
    )


async def test_link_code_tries_from_one_address_count_on_every_instance(db_url: str) -> None:
    """Two instances on one database: ten tries on one, and the other refuses the
    eleventh (each instance's memory alone would take ten more)."""
    async with instance(db_url, rate_limits="on") as a, instance(db_url, rate_limits="on") as b:
        for _ in range(10):
            r = await a.post("/v1/tokens", json={"code": "AAAA-BBBB", "device": "x"})
            assert r.status == 422
        r = await b.post("/v1/tokens", json={"code": "AAAA-BBBB", "device": "x"})
        body = await too_many(r)
        assert "link-code tries from your address (at most 10 a minute)" in str(body["detail"])
        assert 55 <= int(r.headers["Retry-After"]) <= 60
        await a_minute_passes_in_the_database(b)
        r = await b.post("/v1/tokens", json={"code": "AAAA-BBBB", "device": "x"})
        assert r.status == 422
        # an address quiet for a minute is forgotten
        await a_minute_passes_in_the_database(b)
        await tries.purge(b.app[BACKEND_KEY])
        assert await b.app[BACKEND_KEY].store.pool.fetchval("SELECT count(*) FROM link_tries") == 0


def limited(db_url: str, **limits: object) -> TestClient:
    settings = make_settings(db_url, rate_limits="on", **limits)
    return TestClient(Served(create_app(settings)), trace_configs=[validating_trace_config()])


async def too_many(r: object) -> dict[str, object]:
    from aiohttp import ClientResponse

    assert isinstance(r, ClientResponse)
    assert r.status == 429, await r.text()
    assert r.content_type == "application/problem+json"
    body: dict[str, object] = await r.json(content_type=None)
    assert body["status"] == 429 and body["type"] == (
        "https://open-solitaire.example/problems/rate-limited"
    )
    return body


async def test_player_creations_per_address(db_url: str) -> None:
    async with limited(db_url, rate_players_per_minute=3) as c:
        for i in range(3):
            await new_player(c, f"p{i}")
        r = await c.post("/v1/players", json={"name": "one too many"})
        body = await too_many(r)
        assert r.headers["Retry-After"] == "20"  # 3 a minute: the next in 20 s
        assert "new players" in str(body["detail"])
        # reads (but logs' pages) are not limited
        for _ in range(10):
            assert (await c.get("/healthz")).status == 200


async def test_writes_per_token_and_per_address(db_url: str) -> None:
    async with limited(db_url, rate_writes_per_minute=5, rate_address_writes_per_minute=8) as c:
        ada, bob = await new_player(c, "ada"), await new_player(c, "bob")
        game = await new_game(c, ada, deal=5, autoplay=False)  # ada's write 1
        url = f"/v1/games/{game['id']}/moves"
        for _ in range(3):  # writes 2..4
            r = await c.post(url, json={"from": "t1", "to": "c"}, headers=auth(ada))
            assert r.status == 201
        r = await c.post(f"/v1/games/{game['id']}/undo", json={}, headers=auth(ada))  # 5
        assert r.status == 201
        r = await c.post(url, json={"from": "t2", "to": "c"}, headers=auth(ada))
        body = await too_many(r)
        assert r.headers["Retry-After"] == "12" and "this token" in str(body["detail"])
        # nothing was appended by the refused write, nor by those a phone retrying on its
        # 429 sends: none of them spends the address's allowance
        for _ in range(10):
            await too_many(await c.post(url, json={"from": "t2", "to": "c"}, headers=auth(ada)))
        events = (await (await c.get(f"/v1/games/{game['id']}/events")).json())["events"]
        assert len(events) == game["version"] + 4
        # another token from the same address goes on, until the address's own limit
        await new_game(c, bob, deal=6)  # the address's write 6
        await new_game(c, bob, deal=7)  # 7
        await new_game(c, bob, deal=8)  # 8
        r = await c.post("/v1/games", json={"variant": "freecell"}, headers=auth(bob))
        body = await too_many(r)
        assert "your address" in str(body["detail"])
        assert int(r.headers["Retry-After"]) >= 1
        # both of ada's limits spent: the wait is the longer one's (the token's, 12 s), after
        # which both have room
        r = await c.post(url, json={"from": "t2", "to": "c"}, headers=auth(ada))
        body = await too_many(r)
        assert r.headers["Retry-After"] == "12" and "this token" in str(body["detail"])


async def test_a_write_another_limit_refuses_spends_nothing(db_url: str) -> None:
    """A hint refused for the searches it would start (429) is no write: the token's
    writes are as they were."""
    async with limited(db_url, rate_writes_per_minute=4, rate_searches_per_minute=1,
                       solver_prefetch=False) as c:  # fmt: skip
        ada = await new_player(c)
        one = await new_game(c, ada, deal=1, autoplay=False)  # write 1
        two = await new_game(c, ada, deal=2, autoplay=False)  # 2
        r = await c.post(f"/v1/games/{one['id']}/hint", json={}, headers=auth(ada))  # 3
        assert r.status == 201, await r.text()
        for _ in range(3):  # a search each: refused, and no write
            r = await c.post(f"/v1/games/{two['id']}/hint", json={}, headers=auth(ada))
            assert "searches" in str((await too_many(r))["detail"])
        r = await c.post(f"/v1/games/{two['id']}/moves", json={"from": "t1", "to": "c"},
                         headers=auth(ada))  # 4  # fmt: skip
        assert r.status == 201, await r.text()


async def test_pages_of_a_log_cost_the_events_they_send_per_address(db_url: str) -> None:
    """1,500 a minute. A page takes its `limit` (1,000 by default and at most) before it is
    read and gives back what it did not send: a page of 702 events, then one that may send
    1,000 is refused and a small one is not; a 304 sends nothing and costs nothing, so a
    client polling a log with its tag is never refused for it."""
    async with limited(db_url, rate_events_per_minute=1500) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=5, autoplay=False)
        url = f"/v1/games/{game['id']}"
        await c.post(f"{url}/moves", json={"from": "t1", "to": "c1"}, headers=auth(ada))
        moves = [{"from": "c1", "to": "c2"}, {"from": "c2", "to": "c1"}] * 175
        for _ in range(2):  # 700 events: cell to cell and back
            r = await c.post(f"{url}/moves", json={"moves": moves}, headers=auth(ada))
            assert r.status == 201, await r.text()
        last = await c.get(f"{url}/events?after=700")  # the log's last 2 events
        assert last.status == 200 and len((await last.json())["events"]) == 2
        for _ in range(30):  # 30 pages' worth asked, none sent
            r = await c.get(f"{url}/events?after=700",
                            headers={"If-None-Match": last.headers["ETag"]})
            assert r.status == 304
        r = await c.get(f"{url}/events")
        assert r.status == 200 and len((await r.json())["events"]) == 702
        body = await too_many(await c.get(f"{url}/events?limit=5000"))  # asks 1,000
        assert "events read" in str(body["detail"])
        assert (await c.get(f"{url}/events?limit=10")).status == 200
        # the rest is not charged: the game itself, its legal moves
        for _ in range(5):
            assert (await c.get(url)).status == 200
            assert (await c.get(f"{url}/legal-moves")).status == 200


async def test_a_streams_stored_events_cost_as_pages_do(db_url: str) -> None:
    """A game's stream sends its stored events a page at a time, each charged to the
    address: its first page past the rate is a 429 before the upgrade."""
    async with limited(db_url, rate_events_per_minute=1500) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=5, autoplay=False)
        url = f"/v1/games/{game['id']}"
        await c.post(f"{url}/moves", json={"from": "t1", "to": "c1"}, headers=auth(ada))
        for _ in range(3):  # 1,200 more events: cell to cell and back
            moves = [{"from": "c1", "to": "c2"}, {"from": "c2", "to": "c1"}] * 200
            r = await c.post(f"{url}/moves", json={"moves": moves}, headers=auth(ada))
            assert r.status == 201, await r.text()
        seen = 0
        async with c.ws_connect(f"{url}/stream?after=0") as ws:  # 1,000 then 202 events
            while seen < 1202:
                message = await ws.receive_json(timeout=5)
                seen = message["seq"]
        r = await c.get(f"{url}/stream?after=0", headers={
            "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        body = await too_many(r)
        assert "events read" in str(body["detail"])



async def test_an_export_costs_its_games_events_as_pages_do(db_url: str) -> None:
    """An export charges each game's events to the address: past the rate, its first
    game is a 429 before the answer begins; within it, the rest of the export waits for
    the rate rather than reading past it (40 events a second here: the bucket takes 2.6 s
    to hold a game's 102 again, however slow the machine)."""
    async with limited(db_url, rate_events_per_minute=2400) as c:
        ada = await new_player(c)
        moves = [{"from": "t1", "to": "c1"}] + [{"from": "c1", "to": "c2"},
                                                 {"from": "c2", "to": "c1"}] * 50
        games = []
        for deal in (1, 2, 3):  # 102 events each
            game = await new_game(c, ada, deal=deal, autoplay=False)
            r = await c.post(f"/v1/games/{game['id']}/moves", json={"moves": moves},
                             headers=auth(ada))  # fmt: skip
            assert r.status == 201, await r.text()
            games.append(game["id"])
        spent, pages = time.monotonic(), 0
        while True:  # whole logs read until the address's bucket (2,400) holds less than one
            r = await c.get(f"/v1/games/{games[pages % 3]}/events?limit=102")
            if r.status == 429:
                break
            assert r.status == 200 and len((await r.json())["events"]) == 102
            pages += 1
        body = await too_many(await c.get("/v1/players/me/export", headers=auth(ada)))
        assert "events read" in str(body["detail"])
        await asyncio.sleep(2.7)  # 108 events again at least: the first game's
        r = await c.get("/v1/players/me/export", headers=auth(ada))
        assert r.status == 200, await r.text()
        lines = (await r.text()).splitlines()
        assert [len(json.loads(line)["events"]) for line in lines] == [102, 102, 102]
        # the pages' events and the export's 306 came at the rate, 40 a second past the
        # bucket's 2,400: the export ends that long after the first page at the earliest
        took = time.monotonic() - spent
        assert took > (102 * pages + 306 - 2400) / 40 - 0.1, (took, pages)


async def test_rate_limits_off_lets_a_load_test_through(db_url: str) -> None:
    settings = make_settings(db_url, rate_limits="off", rate_players_per_minute=1,
                             rate_writes_per_minute=1, rate_address_writes_per_minute=1)
    async with TestClient(Served(create_app(settings))) as c:
        ada = await new_player(c)
        await new_player(c, "bob")
        game = await new_game(c, ada, deal=5, autoplay=False)
        for _ in range(4):  # the four cells fill up
            r = await c.post(f"/v1/games/{game['id']}/moves", json={"from": "t1", "to": "c"},
                             headers=auth(ada))
            assert r.status == 201, await r.text()
        r = await c.post(f"/v1/games/{game['id']}/undo", json={}, headers=auth(ada))
        assert r.status == 201, await r.text()


async def test_searches_of_the_solver_per_player_and_lookups_are_free(db_url: str) -> None:
    """Each hint that starts a new search costs one of the player's searches a minute;
    hints along the line on the game's record cost nothing, so following hints is never
    refused. Past the rate: 429 with Retry-After, and nothing recorded."""
    from tests.api.helpers import auth, new_game, new_player

    async with limited(db_url, rate_searches_per_minute=2, solver_prefetch=False) as c:
        ada = await new_player(c)
        games = [await new_game(c, ada, deal=d, autoplay=False) for d in (1, 2, 3)]
        for g in games[:2]:  # two openings never seen: two searches
            r = await c.post(f"/v1/games/{g['id']}/hint", json={}, headers=auth(ada))
            assert r.status == 201, await r.text()
        r = await c.post(f"/v1/games/{games[2]['id']}/hint", json={}, headers=auth(ada))
        body = await too_many(r)
        assert "searches" in str(body["detail"]) and int(r.headers["Retry-After"]) >= 1
        assert (await (await c.get(f"/v1/games/{games[2]['id']}")).json())["hints"] == 0
        # following the first game's hints: lookups on its record, never refused
        gid = games[0]["id"]
        for _ in range(5):
            r = await c.post(f"/v1/games/{gid}/hint", json={}, headers=auth(ada))
            assert r.status == 201, await r.text()
            hint = await r.json()
            r = await c.post(f"/v1/games/{gid}/moves", json=hint["move"], headers=auth(ada))
            assert r.status == 201, await r.text()


async def test_two_workers_count_one_client_together(db_url: str, tmp_path: Path) -> None:
    """WORKERS=2: each request on a new connection (the kernel spreads them over both
    workers), yet the limits hold as one: 4 players a minute, then 429 on every worker;
    10 link-code guesses a minute, then 429."""
    import aiohttp

    from ..helpers import ServiceProcess, until

    svc = ServiceProcess(db_url, tmp_path / "workers.log", WORKERS="2", RATE_LIMITS="on",
                         RATE_PLAYERS_PER_MINUTE="4")  # fmt: skip
    try:
        svc.start()
        await svc.ready()
        await until(lambda: len(svc.group()) >= 3, 20, "the supervisor and two workers")
        connector = aiohttp.TCPConnector(force_close=True)  # a new connection per request
        async with aiohttp.ClientSession(connector=connector) as session:
            statuses = []
            for i in range(12):
                async with session.post(f"{svc.base}/v1/players", json={"name": f"p{i}"}) as r:
                    statuses.append(r.status)
            assert statuses == [201] * 4 + [429] * 8
            guesses = []
            for _ in range(16):
                async with session.post(f"{svc.base}/v1/tokens",
                                        json={"code": "AAAA-BBBB", "device": "x"}) as r:
                    guesses.append(r.status)
            assert guesses == [422] * 10 + [429] * 6
        assert svc.proc is not None
        table = Path(f"/dev/shm/solitaire-limits-{svc.proc.pid}")
        assert table.exists()
        svc.signal(signal.SIGTERM)
        await svc.exited(20)
        assert not table.exists()  # the supervisor removes the table when it stops
    finally:
        svc.stop()


def test_default_workers_leave_half_the_cores_to_a_local_database() -> None:
    import os

    from service.workers import MAX_DEFAULT_WORKERS, database_is_local, default_workers

    assert database_is_local(None)  # the embedded server
    assert database_is_local("postgresql://postgres@127.0.0.1:5432/postgres")
    assert database_is_local("postgresql://u@localhost/x")
    assert database_is_local("postgresql://u@/x?host=/run/postgresql")
    assert database_is_local("postgresql://u@127.0.0.2/x")  # (the loopback network's)
    assert database_is_local("postgresql://u@[::1]:5432/x")
    assert not database_is_local("postgresql://u@10.0.0.7/x")
    assert database_is_local("postgresql://%2Frun%2Fpostgresql/db")  # a socket as the host
    assert database_is_local("postgresql://u@db.example/x?host=127.0.0.1")  # host= decides
    assert database_is_local("postgresql://u@[::ffff:127.0.0.1]/x")
    assert not database_is_local("postgresql://u@localhost/x?host=db.example")
    assert not database_is_local("postgresql://u@db.example:5432/x")
    cores = len(os.sched_getaffinity(0))
    assert default_workers(None) == max(1, min(cores // 2, MAX_DEFAULT_WORKERS))
    assert default_workers("postgresql://u@db.example/x") == max(1, min(cores, MAX_DEFAULT_WORKERS))


async def test_put_and_delete_are_writes_too(db_url: str) -> None:
    """Following and unfollowing (PUT and DELETE) spend the token's writes as POSTs do."""
    async with limited(db_url, rate_writes_per_minute=3) as c:
        ada, bob = await new_player(c, "ada"), await new_player(c, "bob")
        url = f"/v1/players/me/friends/{bob['id']}"
        for method in ("PUT", "DELETE", "PUT"):
            assert (await c.request(method, url, headers=auth(ada))).status == 204
        body = await too_many(await c.delete(url, headers=auth(ada)))
        assert "this token" in str(body["detail"])


async def test_what_the_limits_read_of_a_request_never_fails_it(db_url: str) -> None:
    """A token whose bytes are not UTF-8 is a bad token (401), and a page's `limit` that is
    a digit to Unicode but no number ("²") a bad query (400), rate limits on as off."""
    async with limited(db_url) as c:
        ada = await new_player(c, "ada")
        game = await new_game(c, ada, deal=5)
        body = b'{"from": "t1", "to": "c"}'
        head = (
            f"POST /v1/games/{game['id']}/moves HTTP/1.1\r\nHost: x\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n"
        ).encode()
        assert c.server.host is not None and c.server.port is not None
        reader, writer = await asyncio.open_connection(c.server.host, c.server.port)
        writer.write(head + b"Authorization: Bearer caf\xe9\r\n\r\n" + body)
        answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 401 "), answer[:200]
        r = await c.get(f"/v1/games/{game['id']}/events?limit=%C2%B2")
        assert r.status == 400, await r.text()
