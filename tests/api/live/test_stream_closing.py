"""Live event streams the service closes itself: a slow subscriber whose queue overflows
(the others still get everything), a dead client the heartbeat notices, and shutdown,
which tells each subscriber where to resume and closes with 1001."""

from __future__ import annotations

import asyncio
import struct

import aiohttp
import orjson
import pytest
from aiohttp.test_utils import TestClient

from service.base.keys import BACKEND_KEY, METRICS_KEY
from service.live import routes as stream_routes
from service.live.hub import STREAMS_KEY
from service.races import service as races
from service.races.routes import RACE_STREAMS_KEY

from ..helpers import auth, new_game, new_player
from ..races.helpers import call, new_race, until
from .helpers import (
    WAIT,
    RawSubscriber,
    as_json,
    events_of,
    instances,
    nothing_more,
    receive,
    subscribers,
    wait_for,
)


async def test_a_slow_subscriber_is_closed_and_the_others_get_everything(db_url: str) -> None:
    async with instances(db_url, {}, {"ws_queue": 2}) as (a, b):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        move = {"from": "t1", "to": "c"}
        r = await a.post(f"/v1/games/{gid}/moves", json=move, headers=auth(ada))
        assert r.status == 201
        fast = await a.ws_connect(f"/v1/games/{gid}/stream")
        slow = await RawSubscriber.connect(b.server, f"/v1/games/{gid}/stream")
        streams_b = b.app[STREAMS_KEY]
        await wait_for(lambda: len(streams_b) == 1, "the slow subscriber")
        (sub,) = streams_b.values()
        # undo and redo, over and over: its socket buffers fill up, then its queue
        writes = 0
        while not sub.ended.is_set() and writes < 2000:
            for action in ("undo", "redo"):
                r = await a.post(f"/v1/games/{gid}/{action}", json={}, headers=auth(ada))
                assert r.status == 201, await r.text()
                writes += 1
        assert sub.ended.is_set(), f"still subscribed after {writes} writes"
        reading = asyncio.create_task(slow.rest())  # it reads again, at last
        await wait_for(lambda: not streams_b, "the slow subscriber's socket to close")
        assert subscribers(b) == 0
        stored = as_json(await events_of(a, gid))
        assert await receive(fast, len(stored)) == stored
        await nothing_more(fast)
        await fast.close()
        told_to_reconnect(await reading, len(stored))
        slow.close()
        # not a server error in the access log and the metrics: 101, or 499 where the
        # handler is cancelled with its connection (aiohttp's test server cancels a
        # handler whose connection closed, the service's server lets it finish)
        await wait_for(lambda: bool(stream_statuses(b)), "the slow socket's access line")
        assert stream_statuses(b) <= {101, 499}, stream_statuses(b)


def told_to_reconnect(frames: list[tuple[int, bytes]], stored: int) -> None:
    """What a slow client got, reading within FAREWELL_SECONDS of its stream's end: events
    in order (fewer than the `stored` ones), the reconnect message with the last seq it was
    sent, then the close frame with 4000."""
    texts = [orjson.loads(p) for op, p in frames if op == 1]
    events = [t for t in texts if "seq" in t]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert len(events) < stored
    (farewell,) = texts[len(events):]
    assert farewell["type"] == "reconnect" and farewell["after"] == len(events)
    assert f"?after={len(events)}" in farewell["detail"]
    (close,) = [p for op, p in frames if op == 8]
    assert struct.unpack("!H", close[:2])[0] == 4000


def stream_statuses(client: TestClient, route: str = "/v1/games/{game_id}/stream") -> set[int]:
    """The statuses the instance counted for the stream's route so far."""
    counts = client.app[METRICS_KEY].http.counts
    return {status for (r, _method, status) in counts if r == route}


async def test_a_dead_client_is_noticed_by_the_heartbeat(db_url: str) -> None:
    async with instances(db_url, {"ws_heartbeat": 0.2}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        dead = await RawSubscriber.connect(a.server, f"/v1/games/{gid}/stream")
        streams = a.app[STREAMS_KEY]
        await wait_for(lambda: len(streams) == 1, "the subscriber")
        # it never answers the pings
        await wait_for(lambda: not streams, "the dead client to be dropped", timeout=5)
        assert subscribers(a) == 0
        frames = await dead.rest()
        dead.close()
        assert 9 in [op for op, _ in frames]  # it was pinged


async def test_shutdown_says_where_to_resume_and_closes_with_1001(db_url: str) -> None:
    async with instances(db_url, {}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(a.make_url(f"/v1/games/{gid}/stream"))
            first = await receive(ws, 1)
            closing = asyncio.create_task(a.server.close())
            msg = await ws.receive(timeout=WAIT)
            assert orjson.loads(msg.data) == {
                "type": "reconnect",
                "after": first[-1]["seq"],
                "detail": f"this server is shutting down; reconnect with ?after={first[-1]['seq']}",
            }
            msg = await ws.receive(timeout=WAIT)
            assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == 1001
            assert "?after=1" in msg.extra
            await closing


async def test_a_race_stream_opening_at_shutdown_says_where_to_resume(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A race's stream whose race is still being read before the upgrade (slowed here to
    0.6 s) when the instance begins to shut down is upgraded, sent the race's log, told
    where to resume and closed with 1001, as a game's is; not cut off at the end of the
    shutdown's wait."""
    async with instances(db_url, {}) as (a,):
        ada = await new_player(a)
        rid = (await new_race(a, ada, deal=617, starts_in_s=600))["id"]
        stored = (await call(a, "GET", f"/v1/races/{rid}/events"))["events"]
        settle, reading = races.settle, asyncio.Event()

        async def slowly(*args):  # type: ignore[no-untyped-def]
            reading.set()
            await asyncio.sleep(0.6)
            return await settle(*args)

        monkeypatch.setattr(races, "settle", slowly)
        async with aiohttp.ClientSession() as session:
            opening = asyncio.create_task(session.ws_connect(a.make_url(f"/v1/races/{rid}/stream")))
            await asyncio.wait_for(reading.wait(), WAIT)
            closing = asyncio.create_task(a.server.close())
            ws = await opening
            assert await receive(ws, len(stored)) == as_json(stored)
            msg = await ws.receive(timeout=WAIT)
            assert msg.type is aiohttp.WSMsgType.TEXT, f"cut off, no goodbye: {msg}"
            assert orjson.loads(msg.data)["type"] == "reconnect"
            assert orjson.loads(msg.data)["after"] == len(stored)
            msg = await ws.receive(timeout=WAIT)
            assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == 1001
            await closing


def slow_pages(client: TestClient, seconds: float, first: bool = False) -> None:
    """Each read of a page of a game's log past its first (`first`: the first too) takes
    `seconds` more."""
    store = client.app[BACKEND_KEY].store
    read = store.read_events

    async def slowly(game_id, after, limit):  # type: ignore[no-untyped-def]
        if first or after > 0:
            await asyncio.sleep(seconds)
        return await read(game_id, after, limit)

    store.read_events = slowly


async def test_streams_waiting_for_their_turn_at_the_log_say_goodbye_at_shutdown(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streams still catching up, most of them waiting for a turn to read their next page
    (two turns for a pool of four, each page's read slowed here), are each told where to
    resume and closed with 1001 at shutdown, not cut off while they wait."""
    monkeypatch.setattr(stream_routes, "BACKLOG_PAGE", 2)
    async with instances(db_url, {"pool_min": 1, "pool_max": 4}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        for _ in range(6):  # a card from cell to cell, and back
            r = await a.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"},
                             headers=auth(ada))  # fmt: skip
            assert r.status == 201
            r = await a.post(f"/v1/games/{gid}/undo", json={}, headers=auth(ada))
            assert r.status == 201
        slow_pages(a, 0.5)
        async with aiohttp.ClientSession() as session:
            sockets = await asyncio.gather(*(
                session.ws_connect(a.make_url(f"/v1/games/{gid}/stream")) for _ in range(8)
            ))  # fmt: skip
            await asyncio.gather(*(receive(ws, 2) for ws in sockets))
            closing = asyncio.create_task(a.server.close())
            for ws in sockets:
                last, data = 2, {}
                while data.get("type") != "reconnect":
                    last = data.get("seq", last)
                    msg = await ws.receive(timeout=WAIT)
                    assert msg.type is aiohttp.WSMsgType.TEXT, f"cut off, no goodbye: {msg}"
                    data = orjson.loads(msg.data)
                assert data["after"] == last
                msg = await ws.receive(timeout=WAIT)
                assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == 1001
            await closing


async def test_open_streams_wait_their_turn_at_the_log_past_db_timeout(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight open streams, two turns at the log, each page's read slowed to 0.6 s: the
    last in the queue waits some 1.8 s for its turn, past DB_TIMEOUT (1 s here), and still
    gets the whole log; none is closed as broken off."""
    monkeypatch.setattr(stream_routes, "BACKLOG_PAGE", 3)
    async with instances(db_url, {"pool_min": 1, "pool_max": 4, "db_timeout": 1.0}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        for move in ({"from": "t1", "to": "c"}, {"from": "c1", "to": "c"}) * 2:
            r = await a.post(f"/v1/games/{gid}/moves", json=move, headers=auth(ada))
            assert r.status == 201, await r.text()
        stored = as_json(await events_of(a, gid))
        slow_pages(a, 0.6)
        sockets = await asyncio.gather(
            *(a.ws_connect(f"/v1/games/{gid}/stream") for _ in range(8))
        )
        received = await asyncio.gather(*(receive(ws, len(stored)) for ws in sockets))
        assert all(r == stored for r in received)
        await asyncio.gather(*(nothing_more(ws, 0.1) for ws in sockets))
        await asyncio.gather(*(ws.close() for ws in sockets))


async def test_streams_opened_while_others_read_their_logs_open_past_db_timeout(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight streams of a game opened at once, two turns at the log, each page's read
    slowed to 0.6 s: the last in the queue waits some 1.8 s, past DB_TIMEOUT (1 s here),
    for its first page. Each is upgraded at once all the same (none is a 503 saying the
    database cannot be reached, while it is well) and gets the whole log; and so are four
    race streams opened while four others hold the turns."""
    async with instances(db_url, {"pool_min": 1, "pool_max": 4, "db_timeout": 1.0}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        stored = as_json(await events_of(a, gid))
        slow_pages(a, 0.6, first=True)
        sockets = await asyncio.gather(
            *(a.ws_connect(f"/v1/games/{gid}/stream") for _ in range(8))
        )
        received = await asyncio.gather(*(receive(ws, len(stored)) for ws in sockets))
        assert all(r == stored for r in received)
        await asyncio.gather(*(ws.close() for ws in sockets))

        rid = (await new_race(a, ada, deal=617, starts_in_s=600))["id"]
        stored = (await call(a, "GET", f"/v1/races/{rid}/events"))["events"]
        read = races.read_events

        async def slowly(*args):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0.6)
            return await read(*args)

        monkeypatch.setattr(races, "read_events", slowly)
        url = f"/v1/races/{rid}/stream"
        reading = await asyncio.gather(*(a.ws_connect(url) for _ in range(4)))
        opened = await asyncio.gather(*(a.ws_connect(url) for _ in range(4)))
        sockets = reading + opened
        received = await asyncio.gather(*(receive(ws, len(stored)) for ws in sockets))
        assert all(r == as_json(stored) for r in received)
        await asyncio.gather(*(ws.close() for ws in sockets))


async def test_a_slow_race_watcher_is_closed_and_the_others_get_everything(
    db_url: str,
) -> None:
    """A race's stream is bounded as a game's is: a watcher that reads nothing while its
    queue (WS_QUEUE) overflows is told where to resume and closed with 4000; the others get
    every event; the gauge of open sockets counts race sockets too."""
    async with instances(db_url, {"ws_queue": 50}) as (a,):
        ada = await new_player(a)
        race = await new_race(a, ada, deal=617, autoplay=False, max_players=2)
        rid = race["id"]
        streams = a.app[RACE_STREAMS_KEY]
        fast = await a.ws_connect(f"/v1/races/{rid}/stream")
        await wait_for(lambda: len(streams) == 1, "the first watcher")
        slow = await RawSubscriber.connect(a.server, f"/v1/races/{rid}/stream")
        await wait_for(lambda: len(streams) == 2, "the second watcher")
        assert subscribers(a) == 2
        sub = list(streams.values())[1]  # the slow one's
        await until(race["starts_at"], 0.05)
        gid = (await call(a, "GET", f"/v1/races/{rid}"))["players"][0]["game_id"]
        await call(a, "POST", f"/v1/games/{gid}/moves", ada, {"from": "t1", "to": "c"}, 201)
        writes = 0
        while not sub.ended.is_set() and writes < 2000:  # a Progress in the race's log each
            for action in ("undo", "redo"):
                await call(a, "POST", f"/v1/games/{gid}/{action}", ada, {}, 201)
                writes += 1
        assert sub.ended.is_set(), f"still watching after {writes} writes"
        reading = asyncio.create_task(slow.rest())
        await wait_for(lambda: len(streams) == 1, "the slow watcher's socket to close")
        assert subscribers(a) == 1
        stored = (await call(a, "GET", f"/v1/races/{rid}/events"))["events"]
        assert await receive(fast, len(stored)) == as_json(stored)
        await fast.close()
        told_to_reconnect(await reading, len(stored))
        slow.close()


async def test_a_message_of_4_kib_is_ignored_a_longer_one_closes_with_1009(
    db_url: str,
) -> None:
    """docs/stream.md: what a client sends is ignored, up to 4 KiB a message; a longer one
    closes the socket (1009)."""
    async with instances(db_url, {}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        ws = await a.ws_connect(f"/v1/games/{gid}/stream")
        first = await receive(ws, 1)
        assert first[0]["seq"] == 1
        await ws.send_str("x" * 4096)
        await nothing_more(ws)
        await ws.send_str("x" * 4097)
        msg = await ws.receive(timeout=WAIT)
        assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == 1009


async def test_a_subscriber_reading_a_long_log_is_not_taken_for_one_behind(db_url: str) -> None:
    """A new subscriber is sent the stored events by its handler, a page at a time; the
    feed's reads meanwhile (a sweep every 10 ms here) are not queued against its bound
    (WS_QUEUE, 5 here): it gets the whole log, and what follows, and is not told to
    reconnect."""
    async with instances(db_url, {"ws_queue": 5, "ws_sweep": 0.01}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        r = await a.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"},
                         headers=auth(ada))  # fmt: skip
        assert r.status == 201
        back_and_forth = [{"from": "c1", "to": "c2"}, {"from": "c2", "to": "c1"}] * 150
        r = await a.post(f"/v1/games/{gid}/moves", json={"moves": back_and_forth},
                         headers=auth(ada))  # fmt: skip
        assert r.status == 201, await r.text()
        slow = await RawSubscriber.connect(a.server, f"/v1/games/{gid}/stream")
        streams = a.app[STREAMS_KEY]
        await wait_for(lambda: len(streams) == 1, "the subscriber")
        (sub,) = streams.values()
        await asyncio.sleep(0.3)  # it reads nothing yet: its buffers fill, sweeps go by
        r = await a.post(f"/v1/games/{gid}/moves", json={"from": "c1", "to": "c2"},
                         headers=auth(ada))  # fmt: skip
        assert r.status == 201
        stored = await events_of(a, gid)
        seqs = []
        async with asyncio.timeout(WAIT):
            while len(seqs) < len(stored):
                op, payload = await slow.frame()
                assert op == 1, (op, payload)
                seqs.append(orjson.loads(payload)["seq"])
        slow.close()
        assert seqs == [e["seq"] for e in stored]
        assert not sub.ended.is_set()


async def test_a_client_that_takes_nothing_is_cut_off(db_url: str) -> None:
    """A subscriber that reads nothing, with events waiting for it: the heartbeat gets no
    pong, or its queue overflows, and the service cuts the connection (a reset) once it
    has taken nothing for FAREWELL_SECONDS, rather than close it after sending what
    waits, which such a client never takes: no connection is left to the instance."""
    await stalled_subscriber_cut(db_url, "ada", {"ws_heartbeat": 0.2, "ws_queue": 100_000})
    await stalled_subscriber_cut(db_url, "bob", {"ws_queue": 50})


async def stalled_subscriber_cut(db_url: str, name: str, overrides: dict[str, object]) -> None:
    async with instances(db_url, overrides) as (a,):
        ada = await new_player(a, name)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        r = await a.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"},
                         headers=auth(ada))
        assert r.status == 201
        stalled = await RawSubscriber.connect(a.server, f"/v1/games/{gid}/stream")
        streams = a.app[STREAMS_KEY]
        await wait_for(lambda: len(streams) == 1, "the subscriber")
        # undo and redo: more than its socket's buffers take, until it is dropped
        writes = 0
        while streams and writes < 3000:
            for action in ("undo", "redo"):
                r = await a.post(f"/v1/games/{gid}/{action}", json={}, headers=auth(ada))
                assert r.status == 201
                writes += 1
        await wait_for(lambda: not streams, f"{name}: the stalled subscriber to be dropped", 10)
        server = a.server.runner.server  # type: ignore[union-attr]
        # (a's own client keeps its connection: the stalled one's is gone)
        await wait_for(lambda: len(server.connections) <= 1, f"{name}: the connection cut", 10)
        frames = await stalled.rest()
        stalled.close()
        assert 8 not in [op for op, _ in frames], name  # no close frame: a reset
