"""A player's data in their hands (API.md, "Grades, standings and a player's story"):
GET /v1/players/me/export streams every game of the caller with its whole log, one game a
line, and 10,000 games cost the service no more memory than one."""

from __future__ import annotations

import asyncio
import json
import socket
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import psutil
import pytest
from aiohttp.test_utils import TestClient

from tests.faults.helpers import ServiceProcess
from tests.openapi_check import load_spec

from ..helpers import auth, new_game, new_player

GAMES = 10_000
EVENTS = 20  # each game's log in the memory test
PAD = "x" * 400  # in each event's data: a body of about 100 MB in all


def exported(body: bytes) -> list[dict[str, Any]]:
    """The lines, each checked against openapi.yaml's ExportedGame."""
    validator = load_spec().validator("#/components/schemas/ExportedGame")
    assert body.endswith(b"\n")
    games = [json.loads(line) for line in body.splitlines()]
    for game in games:
        errors = list(validator.iter_errors(game))
        assert not errors, errors[0].message
    return games


async def test_the_export_holds_every_game_of_the_caller_with_its_log(
    client: TestClient,
) -> None:
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    mine = [await new_game(client, ada, deal=617, autoplay=False),
            await new_game(client, ada, variant="bakers_dozen", deal=5)]  # fmt: skip
    legal = (await (await client.get(f"/v1/games/{mine[0]['id']}/legal-moves")).json())
    r = await client.post(f"/v1/games/{mine[0]['id']}/moves", json=legal["moves"][0],
                          headers=auth(ada))  # fmt: skip
    assert r.status == 201
    await new_game(client, bob, deal=1)

    r = await client.get("/v1/players/me/export", headers=auth(ada))
    assert r.status == 200 and r.content_type == "application/x-ndjson"
    games = exported(await r.read())
    assert [g["id"] for g in games] == [g["id"] for g in mine]  # oldest first, ada's only
    for game in games:
        log = await (await client.get(f"/v1/games/{game['id']}/events")).json()
        assert game["events"] == log["events"]
        assert game["version"] == len(game["events"])
    assert games[1]["variant"] == "bakers_dozen" and games[0]["status"] == "playing"

    nobody = await new_player(client, "cyd")
    r = await client.get("/v1/players/me/export", headers=auth(nobody))
    assert r.status == 200 and await r.read() == b""
    assert (await client.get("/v1/players/me/export")).status == 401


async def test_ten_thousand_games_cost_the_service_no_more_memory_than_one(
    db_url: str, tmp_path: Path
) -> None:
    """The service runs as a process of its own. One game's export, then 10,000 games'
    (about 100 MB of body, read a chunk at a time and let go): the service's resident
    memory, sampled every 20 ms, grows by a small part of the body."""
    service = ServiceProcess(db_url, tmp_path / "service.log", SOLVER_PREFETCH="false")
    service.start()
    try:
        await service.ready()
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=300)) as s:
            async with s.post(f"{service.base}/v1/players", json={"name": "ada"}) as r:
                ada = await r.json()
            conn = await asyncpg.connect(db_url)
            try:
                await seed(conn, uuid.UUID(ada["id"]), 1)
                one = await export_size(s, service, ada)
                await seed(conn, uuid.UUID(ada["id"]), GAMES, first=2)
            finally:
                await conn.close()
            process = psutil.Process(service.proc.pid)  # type: ignore[union-attr]
            before = process.memory_info().rss
            peak = before
            exporting = asyncio.create_task(export_size(s, service, ada))
            while not exporting.done():
                peak = max(peak, process.memory_info().rss)
                await asyncio.sleep(0.02)
            size = await exporting
    finally:
        service.stop()
    grown = peak - before
    assert size > 1000 * one and size > 90_000_000, (size, one)
    assert grown < size / 10 and grown < 25_000_000, (grown, size)
    print(f"\nexport: {GAMES + 1} games, {size / 1e6:.0f} MB of body; the service's"
          f" resident memory grew by {grown / 1e6:.1f} MB at most")


async def seed(conn: asyncpg.Connection, player: uuid.UUID, games: int, first: int = 1) -> None:
    """`games` games of the player, each with a log of EVENTS events, made by the database."""
    await conn.execute(
        """INSERT INTO games (id, player_id, variant, deal, autoplay, status, version, moves,
                              undos, foundation_cards, created_at, updated_at)
           SELECT md5($1::text || i)::uuid, $1::uuid, 'freecell', 1 + i % 32000, false,
                  'playing',
                  $4, 0, 0, 0, now() - interval '1 day' + i * interval '1 ms', now()
           FROM generate_series($2::int, $3::int) AS i""",
        str(player), first, first + games - 1, EVENTS,
    )
    await conn.execute(
        """INSERT INTO game_events (game_id, seq, type, data, at)
           SELECT md5($1::text || i)::uuid, s, 'CardMoved',
                  jsonb_build_object('from', 't1', 'to', 'c1', 'card', 'AS', 'count', 1,
                                     'auto', false, 'note', $4::text),
                  now() - interval '1 day'
           FROM generate_series($2::int, $3::int) AS i, generate_series(1, $5::int) AS s""",
        str(player), first, first + games - 1, PAD, EVENTS,
    )


async def export_size(
    session: aiohttp.ClientSession, service: ServiceProcess, player: dict[str, Any]
) -> int:
    """The export's length in bytes, read a chunk at a time (the client keeps none)."""
    size = 0
    async with session.get(f"{service.base}/v1/players/me/export",
                           headers={"Authorization": f"Bearer {player['token']}"}) as r:
        assert r.status == 200
        async for chunk in r.content.iter_chunked(1 << 16):
            size += len(chunk)
    return size


async def test_trouble_after_the_first_line_cuts_the_connection(client: TestClient) -> None:
    """The database lost in the middle of an export: the answer has begun, so the
    connection is cut and the body ends without its last line, at once (no client is
    left waiting for a body that never ends)."""
    from service.base.keys import BACKEND_KEY
    from service.database.connections import DatabaseUnavailable

    ada = await new_player(client, "ada")
    for deal in (1, 2, 3):
        await new_game(client, ada, deal=deal)
    store = client.app[BACKEND_KEY].store
    read_events = store.read_events
    calls = 0

    async def failing(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise DatabaseUnavailable("gone")
        return await read_events(*args, **kwargs)

    store.read_events = failing  # type: ignore[method-assign]
    with pytest.raises(aiohttp.ClientPayloadError):  # (not a 503 written inside the body)
        r = await asyncio.wait_for(client.get("/v1/players/me/export", headers=auth(ada)), 5)
        await asyncio.wait_for(r.read(), 5)


async def test_a_client_that_reads_none_of_its_export_is_cut_off(
    db_url: str, tmp_path: Path
) -> None:
    """A phone put away mid-download: an export of some 8 MB to a client that reads
    nothing fills the sockets' buffers, then waits SEND_TIMEOUT_S for the client to take
    more; past it the service drops the connection and what it held (a line in its log,
    no traceback), and the client finds the body cut short."""
    service = ServiceProcess(db_url, tmp_path / "service.log", SOLVER_PREFETCH="false",
                             SEND_TIMEOUT_S="1")  # fmt: skip
    service.start()
    try:
        await service.ready()
        async with (aiohttp.ClientSession() as s,
                    s.post(f"{service.base}/v1/players", json={"name": "ada"}) as r):
            ada = await r.json()
        conn = await asyncpg.connect(db_url)
        try:
            await seed(conn, uuid.UUID(ada["id"]), 1000)  # (about 8 KB a game)
        finally:
            await conn.close()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", service.port))
        sock.sendall(f"GET /v1/players/me/export HTTP/1.1\r\nHost: test\r\n"
                     f"Authorization: Bearer {ada['token']}\r\n\r\n".encode())  # fmt: skip
        process = psutil.Process(service.proc.pid)  # type: ignore[union-attr]
        mine = sock.getsockname()[1]
        deadline = asyncio.get_running_loop().time() + 20
        seen = False  # (the service holds the connection, then lets it go)
        while (held := any(c.raddr and c.raddr.port == mine
                           for c in process.net_connections())) or not seen:  # fmt: skip
            seen = seen or held
            assert asyncio.get_running_loop().time() < deadline, "the export still waits"
            await asyncio.sleep(0.05)
        body = b""
        sock.settimeout(10)
        while chunk := sock.recv(1 << 20):  # what the kernel had taken, then the end
            body += chunk
        sock.close()
    finally:
        service.stop()
    lines = body.partition(b"\r\n\r\n")[2].count(b"\n")
    assert body.startswith(b"HTTP/1.1 200") and 0 < lines < 1000, lines
    log = service.log.read_text(errors="replace")
    assert "export cut off: its client read none of it for 1.0 s" in log, log[-3000:]
    assert "Traceback" not in log, log[-3000:]

