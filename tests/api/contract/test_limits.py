"""Limits that keep one client from hurting the others: a game's log has a size, names
cannot impersonate, a client's request id is taken only when harmless, the page is served
with a Content-Security-Policy, a finished game's analysis is computed once."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
from aiohttp.test_utils import TestClient

from service.base.backend import Lru

from ...faults.helpers import ServiceProcess
from ...openapi_check import validating_trace_config
from ..helpers import auth, instance, new_game, new_player


async def test_a_full_log_refuses_writes_but_abandoning_which_keeps_it_to_its_limit(
    db_url: str,
) -> None:
    async with instance(db_url, max_game_events=10) as client:
        ada = await new_player(client)
        game = await new_game(client, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        statuses = []
        for i in range(12):  # a card from cell to cell and back: a log grows cheaply
            j = min(i, 8)  # the refused move, asked for again
            move = {"from": "t1", "to": "c1"} if j == 0 else {
                "from": f"c{1 + (j - 1) % 2}", "to": f"c{1 + j % 2}"}
            r = await client.post(f"{url}/moves", json=move, headers=auth(ada))
            statuses.append(r.status)
            if r.status == 201:
                view = (await r.json())["game"]
                # an undo is offered while the log has room for it
                assert view["can_undo"] == (view["version"] < 9), view
            if r.status == 409:
                problem = await r.json()
                assert problem["type"].endswith("/log-full"), problem
                assert "abandoned" in problem["detail"]
        # (9 events: the last place is the abandonment's)
        assert statuses == [201] * 8 + [409] * 4
        # a full log offers nothing but abandoning: no undo, no redo, no legal move
        view = await (await client.get(url)).json()
        assert (view["version"], view["status"]) == (9, "playing")
        assert (view["can_undo"], view["can_redo"]) == (False, False)
        assert (await (await client.get(f"{url}/legal-moves")).json())["moves"] == []
        r = await client.get(f"{url}/destinations?card=t2")
        assert (await r.json())["destinations"] == []
        r = await client.post(f"{url}/undo", json={}, headers=auth(ada))
        assert r.status == 409 and (await r.json())["type"].endswith("/log-full")
        r = await client.post(f"{url}/hint", json={}, headers=auth(ada))
        assert r.status == 409
        r = await client.post(f"{url}/abandon", json={}, headers=auth(ada))
        assert r.status == 201, await r.text()
        assert (await r.json())["game"]["version"] == 10
        r = await client.get(f"{url}/events")
        assert [e["seq"] for e in (await r.json())["events"]] == list(range(1, 11))


async def test_names_cannot_pass_for_another(client: TestClient) -> None:
    ada = await new_player(client, "  ada  ")
    assert ada["name"] == "ada"
    for bad in ("ad\u200ba", "\u202eada", "ada\u200d", "\ue000ada", "a\x00", " ", "x" * 33,
                "\u2066ada\u2069"):
        r = await client.post("/v1/players", json={"name": bad})
        assert r.status == 400, (bad, await r.text())
    r = await client.post("/v1/players", json={"name": "x" * 32})
    assert r.status == 201
    r = await client.post("/v1/players", json={"name": "Zoë Ørsted 李"})
    assert r.status == 201


async def test_a_request_id_is_taken_only_when_harmless(client: TestClient) -> None:
    r = await client.get("/healthz", headers={"X-Request-Id": "app-42.x_y"})
    assert r.headers["X-Request-Id"] == "app-42.x_y"
    for bad in ("has space", "<script>", "x" * 65, "a\"b"):
        r = await client.get("/healthz", headers={"X-Request-Id": bad})
        assert r.headers["X-Request-Id"] != bad and len(r.headers["X-Request-Id"]) == 16


async def test_a_streamed_answer_and_a_websocket_carry_the_request_id(
    client: TestClient,
) -> None:
    """Their headers go before the handler returns: the export's, a stream's 101."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    mine = {"X-Request-Id": "app-7", **auth(ada)}
    r = await client.get("/v1/players/me/export", headers=mine)
    assert r.status == 200 and r.headers["X-Request-Id"] == "app-7"
    await r.read()
    async with client.ws_connect(f"/v1/games/{game['id']}/stream", headers=mine) as ws:
        assert ws._response.headers["X-Request-Id"] == "app-7"


async def test_the_page_allows_only_its_own_origin(client: TestClient) -> None:
    for path in ("/", "/static/main.js"):
        r = await client.get(path)
        assert r.status == 200
        policy = r.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_the_token_cache_is_bounded() -> None:
    cache: Lru[bytes, int] = Lru(3)
    for i in range(5):
        cache[bytes([i])] = i
    assert len(cache) == 3 and cache.get(b"\x00") is None and cache.get(b"\x04") == 4
    cache.get(b"\x02")
    cache[b"\x05"] = 5  # the least recently used (\x03) goes
    assert cache.get(b"\x03") is None and cache.get(b"\x02") == 2


async def test_a_long_log_is_read_and_streamed_in_pages(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}"
    r = await client.post(f"{url}/moves", json={"from": "t1", "to": "c1"}, headers=auth(ada))
    assert r.status == 201
    for i in range(1001):  # the card from cell to cell: 1003 events in all
        a, b = (1, 2) if i % 2 == 0 else (2, 1)
        r = await client.post(f"{url}/moves", json={"from": f"c{a}", "to": f"c{b}"},
                              headers=auth(ada))
        assert r.status == 201
    first = await (await client.get(f"{url}/events?limit=5000")).json()
    assert len(first["events"]) == 1000 and first["next"] == 1000
    rest = await (await client.get(f"{url}/events?after={first['next']}")).json()
    assert [e["seq"] for e in rest["events"]] == list(range(1001, 1004))
    assert rest["next"] is None
    async with client.ws_connect(f"{url}/stream?after=0") as ws:
        seqs = []
        while len(seqs) < 1003:
            seqs.append((await ws.receive_json(timeout=10))["seq"])
    assert seqs == list(range(1, 1004))


def test_a_copy_without_its_stack_costs_the_layout_only() -> None:
    from engine import VARIANTS, Move

    pos = VARIANTS["freecell"].deal(617)
    for text in ("t1-c1", "c1-c2", "c2-c1"):
        pos.play(Move.parse(text))
    bare = pos.copy(stack=False)
    assert bare == pos and bare.move_stack == [] and len(pos.move_stack) == 3
    assert pos.copy().move_stack == pos.move_stack


async def longest_game(db_url: str) -> tuple[dict[str, Any], str]:
    """A FreeCell game whose log holds MAX_GAME_EVENTS (5000) events, cheap to make (a card
    from cell to cell and back), the last of them its abandonment: (its player, its id).
    Made through an instance that is gone after: no instance has it in memory."""
    from engine import Game, Move
    from service.database.embedded import asyncpg_dsn

    async with instance(db_url) as client:
        ada = await new_player(client)
        game = await new_game(client, ada, deal=617, autoplay=False)
        gid = game["id"]
        url = f"/v1/games/{gid}"
        r = await client.post(f"{url}/moves", json={"from": "t1", "to": "c1"}, headers=auth(ada))
        assert r.status == 201
        # the rest of the log, written as the service would have written it
        local, _ = Game.new("freecell", 617, False)
        local.play(Move("t1", "c1"))
        rows = []
        for seq in range(3, 5000):
            a, b = ("c1", "c2") if seq % 2 else ("c2", "c1")
            (event,) = local.play(Move(a, b))
            rows.append((uuid.UUID(gid), seq, event.type, json.dumps(event.data)))
        conn = await asyncpg.connect(asyncpg_dsn(db_url))
        try:
            await conn.executemany(
                "INSERT INTO game_events (game_id, seq, type, data, at) "
                "VALUES ($1, $2, $3, $4::jsonb, now())",
                rows,
            )
            await conn.execute(
                "UPDATE games SET version = 4999, moves = 4998 WHERE id = $1", uuid.UUID(gid)
            )
        finally:
            await conn.close()
        r = await client.post(f"{url}/abandon", json={}, headers=auth(ada))
        assert r.status == 201, await r.text()
        assert (await r.json())["game"]["version"] == 5000
    return ada, gid


async def test_analysing_the_longest_game_leaves_others_answered(db_url: str) -> None:
    """The longest log, replayed by an instance that has never seen it and analysed:
    meanwhile another client's reads keep coming back within a second, and memory grows by
    little."""
    import resource

    ada, gid = await longest_game(db_url)
    async with instance(db_url) as fresh:  # nothing of the game in its memory
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        other = await new_game(fresh, ada, deal=5)
        slowest = 0.0
        done = False

        async def reads() -> None:
            nonlocal slowest
            while not done:
                t0 = time.perf_counter()
                r = await fresh.get(f"/v1/games/{other['id']}")
                assert r.status == 200
                slowest = max(slowest, time.perf_counter() - t0)
                await asyncio.sleep(0.01)

        reader = asyncio.create_task(reads())
        try:
            r = await fresh.get(f"/v1/games/{gid}/analysis")
            assert r.status == 200, await r.text()
            body = await r.json()
        finally:
            done = True
            await reader
        assert body["status"] == "abandoned" and body["version"] == 5000
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        assert slowest < 1.0, slowest
        assert grown_mb < 150, grown_mb


async def metric(session: aiohttp.ClientSession, base: str, name: str) -> float:
    """A figure of the service's /metrics, by its name and labels."""
    async with session.get(f"{base}/metrics") as r:
        assert r.status == 200
        for line in (await r.text()).splitlines():
            if line.startswith(f"{name} "):
                return float(line.split()[-1])
    raise AssertionError(f"no {name} on /metrics")


async def test_forty_analyses_of_the_longest_game_are_one_and_leave_health_answered(
    db_url: str, tmp_path: Path
) -> None:
    """API.md: a finished game's analysis is computed once and kept; forty analyses of the
    longest game at once leave /healthz under 100 ms. The service runs as a process of its
    own that has never seen the game; forty requests at once while /healthz is asked every
    10 ms: each /healthz answers within 100 ms, the forty get one answer, computed once;
    a request after them gets it kept, computed no more. One slow ping alone, once, is a
    pause of the shared test machine (its database under the other test worker): the
    round is made again on a new service, where a pause the analyses cause comes again."""
    ada, gid = await longest_game(db_url)
    health = await forty_analyses(db_url, ada, gid, tmp_path / "service.log")
    if max(health) >= 0.1 and sorted(health)[-2] < 0.1:
        health = await forty_analyses(db_url, ada, gid, tmp_path / "again.log")
    assert len(health) >= 3 and max(health) < 0.1, sorted(health)[-5:]


async def forty_analyses(db_url: str, ada: dict[str, Any], gid: str, log: Path) -> list[float]:
    """One round of the test above on a service of its own: the times /healthz took."""
    service = ServiceProcess(db_url, log)
    service.start()
    try:
        await service.ready()
        base = service.base
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
            async with session.post(f"{base}/v1/games", headers=auth(ada),
                                    json={"variant": "freecell", "deal": 5}) as r:
                assert r.status == 201  # (its opening's search starts the solver's process)

            async def read(path: str) -> tuple[int, Any]:
                async with session.get(f"{base}{path}") as r:
                    return r.status, await r.json()

            # forty connections, and the service's pool of database connections, opened by
            # forty reads of the player's record (each a query; a game's read may come from
            # memory): what follows costs only what the analyses do
            assert {s for s, _ in await asyncio.gather(
                *(read(f"/v1/players/{ada['id']}") for _ in range(40)))} == {200}
            pooled = 'solitaire_db_pool_connections{state="open"}'
            assert await metric(session, base, pooled) == 16  # (POOL_MAX)
            assert await metric(session, base, "solitaire_analyses_computed_total") == 0
            health: list[float] = []
            done = threading.Event()

            def healthz() -> None:
                """Asked from a thread of its own, so that the time measured is the
                service's and not this loop's, busy with the forty answers."""
                while not done.is_set():
                    t0 = time.perf_counter()
                    with urllib.request.urlopen(f"{base}/healthz", timeout=5) as r:
                        assert r.status == 200
                    health.append(time.perf_counter() - t0)
                    time.sleep(0.01)

            poller = asyncio.get_running_loop().run_in_executor(None, healthz)
            try:
                await asyncio.sleep(0.05)
                answers = await asyncio.gather(
                    *(read(f"/v1/games/{gid}/analysis") for _ in range(40))
                )
            finally:
                done.set()
                await poller
            assert [status for status, _ in answers] == [200] * 40, answers[0]
            body = answers[0][1]
            assert all(b == body for _, b in answers)
            assert body["status"] == "abandoned" and body["version"] == 5000
            assert await metric(session, base, "solitaire_analyses_computed_total") == 1
        async with aiohttp.ClientSession(trace_configs=[validating_trace_config()]) as session:
            async with session.get(f"{base}/v1/games/{gid}/analysis") as r:
                assert r.status == 200 and await r.json() == body
            assert await metric(session, base, "solitaire_analyses_computed_total") == 1
    finally:
        service.stop()
    return health


async def test_forty_reads_of_a_long_game_memory_lacks_read_its_log_once(db_url: str) -> None:
    """An instance that has never seen the longest game, asked for it forty times at once
    (its view and its legal moves): one request reads the whole log and replays it, the
    others wait for it and read what followed (nothing): one replay, not forty, and all
    forty answer the game as the log has it. Forty reads of a game that does not exist
    are forty 404s."""
    _ada, gid = await longest_game(db_url)
    async with instance(db_url) as fresh:
        paths = [f"/v1/games/{gid}", f"/v1/games/{gid}/legal-moves"] * 20
        answers = await asyncio.gather(*(fresh.get(path) for path in paths))
        assert [r.status for r in answers] == [200] * 40
        assert {(await r.json())["version"] for r in answers} == {5000}
        r = await fresh.get("/metrics")
        assert "solitaire_game_logs_replayed_total 1.0" in await r.text()
        nobody = f"/v1/games/{uuid.uuid4()}"
        answers = await asyncio.gather(*(fresh.get(nobody) for _ in range(40)))
        assert [r.status for r in answers] == [404] * 40
