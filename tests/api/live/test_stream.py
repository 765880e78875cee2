"""Live events over WebSocket: two instances on one database, catch-up and resume, many
subscribers, a dropped listening connection, refusals (the streams the service closes
itself, a slow subscriber's, a dead client's and those at shutdown: test_stream_closing.py)."""

from __future__ import annotations

import asyncio
import random
import time
import uuid

import aiohttp
import asyncpg
import pytest
from aiohttp.test_utils import TestClient

from service.base.backend import stream_read_turns
from service.base.keys import BACKEND_KEY
from service.live.hub import HUB_KEY, STREAMS_KEY

from ..helpers import UPGRADE, new_game, new_player
from .helpers import (
    Json,
    as_json,
    events_of,
    instances,
    nothing_more,
    receive,
    subscribers,
    wait_for,
    write,
)


async def kill_listeners(db_url: str, expected: int) -> None:
    """Terminate the instances' listening connections from the server side."""
    conn = await asyncpg.connect(db_url)
    try:
        killed = await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query LIKE 'LISTEN%'"
            " AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()
    assert killed == expected


# ---------------------------------------------------------------- delivery


async def test_two_instances_each_subscriber_sees_every_event_in_order(
    db_url: str, transport: Json
) -> None:
    async with instances(db_url, transport, transport) as (a, b):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=True))["id"]
        wa = await a.ws_connect(f"/v1/games/{gid}/stream")
        wb = await b.ws_connect(f"/v1/games/{gid}/stream?after=0")
        rng = random.Random(4)
        for i in range(16):
            await write((a, b)[i % 2], ada, gid, rng)
        stored = await events_of(a, gid)
        assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
        for ws in (wa, wb):
            got = await receive(ws, len(stored))
            # the messages are the items of /events exactly: {"seq", "type", "at", "data"}
            assert got == as_json(stored)
            assert all(set(m) == {"seq", "type", "at", "data"} for m in got)
            await nothing_more(ws)
            await ws.close()


async def test_another_instance_is_told_after_the_commit_not_by_the_sweep(
    db_url: str, transport: Json
) -> None:
    """Each write is published to the other instances after its commit (a batched NOTIFY,
    or the broker): with the sweep out of the way, a subscriber of B sees A's moves at
    once."""
    settings = {"ws_sweep": 3600, **transport}
    async with instances(db_url, settings, settings) as (a, b):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        wb = await b.ws_connect(f"/v1/games/{gid}/stream")
        assert len(await receive(wb, 1)) == 1
        rng = random.Random(9)
        for _ in range(5):
            answer = await write(a, ada, gid, rng)
            started = time.monotonic()
            got = await receive(wb, len(answer["events"]))
            assert [m["seq"] for m in got] == [e["seq"] for e in answer["events"]]
            assert time.monotonic() - started < 2.0
        await wb.close()


async def test_resume_from_the_middle_and_after_a_reconnect(db_url: str, transport: Json) -> None:
    async with instances(db_url, transport, transport) as (a, b):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=5, autoplay=False))["id"]
        rng = random.Random(7)
        for _ in range(6):
            await write(a, ada, gid, rng)
        stored = await events_of(a, gid)
        middle = len(stored) // 2
        ws = await b.ws_connect(f"/v1/games/{gid}/stream?after={middle}")
        assert await receive(ws, len(stored) - middle) == as_json(stored[middle:])
        # live ones follow the stored ones
        await write(a, ada, gid, rng)
        live = await receive(ws, 1)
        await ws.close()
        last = live[-1]["seq"]
        # moves while the client is away; it comes back with the last seq it saw
        for i in range(5):
            await write((a, b)[i % 2], ada, gid, rng)
        ws = await b.ws_connect(f"/v1/games/{gid}/stream?after={last}")
        await write(b, ada, gid, rng)
        stored = await events_of(b, gid)
        assert await receive(ws, len(stored) - last) == as_json(stored[last:])
        await nothing_more(ws)
        # ?after= the current version: nothing until the next event
        ws2 = await a.ws_connect(f"/v1/games/{gid}/stream?after={len(stored)}")
        await nothing_more(ws2, 0.2)
        await write(b, ada, gid, rng)
        newest = await events_of(a, gid, after=len(stored))
        assert await receive(ws2, len(newest)) == as_json(newest)
        for w in (ws, ws2):
            await w.close()


async def test_catch_up_races_with_moves_no_gap_no_duplicate(
    db_url: str, transport: Json
) -> None:
    """Subscribers join while moves are being committed on the other instance."""
    async with instances(db_url, transport, transport) as (a, b):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=11, autoplay=True))["id"]
        rng = random.Random(11)

        async def mover() -> None:  # (paced: on a loaded machine too, joins come between)
            for _ in range(20):
                await write(a, ada, gid, rng)
                await asyncio.sleep(0.01)

        moving = asyncio.create_task(mover())
        sockets = []
        while not moving.done():
            sockets.append(await b.ws_connect(f"/v1/games/{gid}/stream"))
            await asyncio.sleep(0.01)
        await moving
        stored = as_json(await events_of(a, gid))
        assert len(sockets) >= 3
        for ws in sockets:
            assert await receive(ws, len(stored)) == stored
            await nothing_more(ws, 0.05)
            await ws.close()


async def test_200_subscribers_on_one_game_receive_everything(
    db_url: str, transport: Json
) -> None:
    async with instances(db_url, transport, transport) as (a, b):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        # aiohttp's test client keeps 100 connections at most; these sessions have no limit
        sessions = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) for _ in (a, b)]
        try:
            sockets = [
                await s.ws_connect(c.make_url(f"/v1/games/{gid}/stream"))
                for s, c in zip(sessions, (a, b), strict=True)
                for _ in range(100)
            ]
            await wait_for(
                lambda: all(subscribers(c) == 100 for c in (a, b)),
                "200 subscribers",
            )
            reads_before = [c.app[HUB_KEY].reads for c in (a, b)]
            rng = random.Random(2)
            writes = 10
            for i in range(writes):
                await write((a, b)[i % 2], ada, gid, rng)
            stored = as_json(await events_of(a, gid))
            received = await asyncio.gather(*(receive(ws, len(stored)) for ws in sockets))
            assert all(r == stored for r in received)
            # the log is read once per batch of notifications, not once per subscriber
            for c, before in zip((a, b), reads_before, strict=True):
                assert c.app[HUB_KEY].reads - before <= writes + 2
            await asyncio.gather(*(ws.close() for ws in sockets))
        finally:
            for s in sessions:
                await s.close()


async def test_streams_opened_at_once_leave_the_pool_to_other_requests(db_url: str) -> None:
    """Thirty-two streams opened together read their logs' pages a few at a time, not one
    connection each: a move or a game's GET meanwhile finds a connection free instead of
    waiting behind every stream's pages (each stream's whole log still arrives)."""
    # (no sweep meanwhile: its reads are the hub's, which take no turns)
    async with instances(db_url, {"pool_min": 1, "pool_max": 4, "ws_sweep": 600}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=5, autoplay=True))["id"]
        rng = random.Random(5)
        for _ in range(6):
            await write(a, ada, gid, rng)
        stored = as_json(await events_of(a, gid))
        store = a.app[BACKEND_KEY].store
        reading, most = 0, 0

        def counted(read):  # type: ignore[no-untyped-def]
            async def counting(*args):  # type: ignore[no-untyped-def]
                nonlocal reading, most
                reading += 1
                most = max(most, reading)
                try:
                    return await read(*args)
                finally:
                    reading -= 1

            return counting

        store.read_events = counted(store.read_events)  # (a page; the version before the
        # upgrade is one row, read as a GET reads)
        sockets = await asyncio.gather(
            *(a.ws_connect(f"/v1/games/{gid}/stream") for _ in range(32))
        )
        received = await asyncio.gather(*(receive(ws, len(stored)) for ws in sockets))
        assert all(r == stored for r in received)
        await asyncio.gather(*(ws.close() for ws in sockets))
        assert most == stream_read_turns(4) == 2


async def test_streams_whose_clients_leave_at_once_give_their_turns_back(db_url: str) -> None:
    """Clients that close a stream as soon as it opens, or send a message over the limit,
    keep none of the streams' few turns at the database: after sixty of them every turn
    is free and a new stream gets its events (a probe silenced every new stream of an
    instance for good with three to seven such clients)."""
    async with instances(db_url, {"pool_min": 1, "pool_max": 4, "ws_sweep": 600}) as (a,):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        for _ in range(6):  # in tens at once: some wait for a turn as they go
            sockets = await asyncio.gather(*(
                a.ws_connect(f"/v1/games/{gid}/stream?after={i % 2}") for i in range(10)))
            await asyncio.gather(*(
                ws.send_str("x" * 4097) if i % 3 == 0 else ws.close()
                for i, ws in enumerate(sockets)))  # fmt: skip
            await asyncio.gather(*(ws.close() for ws in sockets))
        turns = a.app[BACKEND_KEY].stream_reads
        for _ in range(stream_read_turns(4)):  # (the last streams' ends may still be on
            await asyncio.wait_for(turns.acquire(), 5)  # their way)
        for _ in range(stream_read_turns(4)):
            turns.release()
        stored = as_json(await events_of(a, gid))
        ws = await a.ws_connect(f"/v1/games/{gid}/stream")
        assert await receive(ws, len(stored)) == stored
        await ws.close()


# LISTEN's own faults: these pin the transport to LISTEN/NOTIFY, whatever EVENTS_BROKER
# says (the broker's outage: test_stream_broker.py)
LISTEN = {"events_broker": None}


async def test_a_dropped_listening_connection_loses_nothing(db_url: str) -> None:
    async with instances(db_url, LISTEN, LISTEN) as (a, b):
        hubs = [c.app[HUB_KEY] for c in (a, b)]
        for hub in hubs:
            assert hub.connects == 1 and hub.listening.is_set()
            hub.retry_first = hub.retry_max = 1.5  # a window in which nobody listens
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        wa = await a.ws_connect(f"/v1/games/{gid}/stream")
        wb = await b.ws_connect(f"/v1/games/{gid}/stream")
        rng = random.Random(3)
        await write(a, ada, gid, rng)
        first = await events_of(a, gid)
        for ws in (wa, wb):
            assert await receive(ws, len(first)) == as_json(first)

        await kill_listeners(db_url, 2)
        await wait_for(lambda: not any(h.listening.is_set() for h in hubs), "the listeners down")
        # moves committed while no instance listens
        for i in range(6):
            await write((a, b)[i % 2], ada, gid, rng)
            if i == 0:
                assert not any(h.listening.is_set() for h in hubs)
        await wait_for(lambda: all(h.connects == 2 for h in hubs), "the listeners back")
        stored = await events_of(a, gid)
        for ws in (wa, wb):
            assert await receive(ws, len(stored) - len(first)) == as_json(stored[len(first):])
        # and live delivery goes on over the new connection
        await write(b, ada, gid, rng)
        newest = await events_of(a, gid, after=len(stored))
        for ws in (wa, wb):
            assert await receive(ws, len(newest)) == as_json(newest)
            await nothing_more(ws)
            await ws.close()


async def test_the_periodic_sweep_delivers_while_nobody_listens(db_url: str) -> None:
    async with instances(db_url, {"ws_sweep": 0.3, **LISTEN}) as (a,):
        hub = a.app[HUB_KEY]
        hub.retry_first = hub.retry_max = 60.0  # the listener stays down till the end
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        ws = await a.ws_connect(f"/v1/games/{gid}/stream")
        assert await receive(ws, 1) == as_json(await events_of(a, gid))
        await kill_listeners(db_url, 1)
        await wait_for(lambda: not hub.listening.is_set(), "the listener down")
        rng = random.Random(5)
        for _ in range(4):
            await write(a, ada, gid, rng)
        stored = await events_of(a, gid)
        assert await receive(ws, len(stored) - 1) == as_json(stored[1:])
        assert hub.connects == 1 and not hub.listening.is_set()
        await ws.close()


# ---------------------------------------------------------------- refusals



async def test_unknown_game_and_bad_after_are_refused_before_upgrading(client: TestClient) -> None:
    r = await client.get(f"/v1/games/{uuid.uuid4()}/stream", headers=UPGRADE)
    assert r.status == 404 and r.content_type == "application/problem+json"
    assert "no game" in (await r.json())["detail"]
    r = await client.get("/v1/games/not-a-uuid/stream", headers=UPGRADE)
    assert r.status == 404 and r.content_type == "application/problem+json"
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(f"/v1/games/{uuid.uuid4()}/stream")
    assert refused.value.status == 404

    ada = await new_player(client)
    game = await new_game(client, ada, deal=617)
    gid = game["id"]
    # a client ahead of the log is told so, rather than left waiting for what it has
    r = await client.get(f"/v1/games/{gid}/stream?after={game['version'] + 1}", headers=UPGRADE)
    assert r.status == 400 and r.content_type == "application/problem+json"
    assert "past the game's last event" in (await r.json())["detail"]
    ws = await client.ws_connect(f"/v1/games/{gid}/stream?after={game['version']}")
    await ws.close()
    for bad in ("-1", "x", "1.5", str(2**31)):
        r = await client.get(f"/v1/games/{gid}/stream?after={bad}", headers=UPGRADE)
        assert r.status == 400, bad
        assert r.content_type == "application/problem+json"
        assert "after" in (await r.json())["detail"]
    # not a WebSocket request at all
    r = await client.get(f"/v1/games/{gid}/stream")
    assert r.status == 400 and r.content_type == "application/problem+json"
    assert "WebSocket" in (await r.json())["detail"]
    # a handshake of another version (RFC 6455: 426, naming 13), or a malformed one
    for version in ("99", "8", "7"):  # (aiohttp itself takes the drafts' 8 and 7)
        r = await client.get(f"/v1/games/{gid}/stream",
                             headers={**UPGRADE, "Sec-WebSocket-Version": version})  # fmt: skip
        assert r.status == 426, await r.text()
        assert (r.headers["Sec-WebSocket-Version"], r.headers["Upgrade"]) == ("13", "websocket")
        assert (await r.json())["type"].endswith("/websocket-version")
    r = await client.get(f"/v1/games/{gid}/stream", headers={**UPGRADE, "Sec-WebSocket-Key": "x"})
    assert r.status == 400 and "Sec-WebSocket-Key" in (await r.json())["detail"]
    # nothing stayed subscribed
    assert subscribers(client) == 0 and not client.app[STREAMS_KEY]


async def test_the_listener_uses_listen_database_url(db_url: str) -> None:
    """LISTEN_DATABASE_URL (a direct connection, for when DATABASE_URL goes through a
    pooler) is where the listener connects: pointed at nothing, it never listens, while
    the service keeps serving; pointed at the database, B is told of A's moves."""
    nowhere = "postgresql://postgres@127.0.0.1:9/postgres"
    async with instances(db_url, {"listen_database_url": nowhere, **LISTEN}) as (a,):
        await asyncio.sleep(0.5)
        assert not a.app[HUB_KEY].listening.is_set()
        assert (await a.get("/healthz")).status == 200
    direct = {"ws_sweep": 3600, "listen_database_url": db_url, **LISTEN}
    async with instances(db_url, direct, direct) as (a, b):
        assert b.app[HUB_KEY].listening.is_set()
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        wb = await b.ws_connect(f"/v1/games/{gid}/stream")
        assert len(await receive(wb, 1)) == 1
        answer = await write(a, ada, gid, random.Random(2))
        got = await receive(wb, len(answer["events"]))
        assert [m["seq"] for m in got] == [e["seq"] for e in answer["events"]]
        await wb.close()
