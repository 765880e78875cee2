"""Small helpers for driving the API in tests, shared by the subpackages: players and
games, real wins (Freecell Solver's solutions from tests/data/solutions.json, played move
by move with autoplay off), and service instances of one's own on the test's database.
The fixtures that go with them are in conftest.py."""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
from aiohttp.test_utils import TestClient

from engine import Move

from ..conftest import REQUEST_TIMEOUT, Served, make_settings
from ..openapi_check import validating_trace_config

# the headers of a WebSocket upgrade, for a plain GET that is refused before it
UPGRADE = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": base64.b64encode(b"0123456789abcdef").decode(),
    "Sec-WebSocket-Version": "13",
}

DATA = Path(__file__).resolve().parent.parent / "data"
SOLUTIONS: dict[str, dict[str, str]] = json.loads((DATA / "solutions.json").read_text())[
    "solutions"
]


async def new_player(client: TestClient, name: str = "ada") -> dict[str, Any]:
    r = await client.post("/v1/players", json={"name": name})
    assert r.status == 201, await r.text()
    body: dict[str, Any] = await r.json()
    return body


def auth(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


async def new_game(client: TestClient, player: dict[str, Any], **body: Any) -> dict[str, Any]:
    body.setdefault("variant", "freecell")
    r = await client.post("/v1/games", json=body, headers=auth(player))
    assert r.status == 201, await r.text()
    game: dict[str, Any] = await r.json()
    return game


def shortest(variant: str) -> tuple[int, list[Move]]:
    deal, text = min(SOLUTIONS[variant].items(), key=lambda item: len(item[1].split()))
    return int(deal), [Move.parse(m) for m in text.split()]


async def play_to_win(
    client: TestClient, player: dict[str, Any], variant: str, deal: int, moves: list[Move]
) -> dict[str, Any]:
    game = await new_game(client, player, variant=variant, deal=deal, autoplay=False)
    for move in moves:
        r = await client.post(
            f"/v1/games/{game['id']}/moves", json=move.to_dict(), headers=auth(player)
        )
        assert r.status == 201, await r.text()
        game = (await r.json())["game"]
    assert game["status"] == "won"
    return game


async def hinted_win(client: TestClient, player: dict[str, Any], deal: int,
                     moves: list[Any]) -> dict[str, Any]:  # fmt: skip
    game = await new_game(client, player, variant="freecell", deal=deal, autoplay=False)
    r = await client.post(f"/v1/games/{game['id']}/hint", json={}, headers=auth(player))
    assert r.status == 201, await r.text()
    assert (await r.json())["game"]["assisted"] is True
    for move in moves:
        r = await client.post(f"/v1/games/{game['id']}/moves", json=move.to_dict(),
                              headers=auth(player))  # fmt: skip
        assert r.status == 201, await r.text()
    won: dict[str, Any] = (await r.json())["game"]
    assert won["status"] == "won"
    return won


async def get(client: TestClient, url: str, status: int = 200, **kw: Any) -> Any:
    r = await client.get(url, **kw)
    assert r.status == status, await r.text()
    return await r.json()


async def etag_of(client: TestClient, url: str, **kw: Any) -> str:
    r = await client.get(url, **kw)
    assert r.status == 200, await r.text()
    tag = dict(r.raw_headers)[b"ETag"].decode()  # spelt so on the wire, as RFC 9110 does
    assert tag.startswith('"') and tag.endswith('"')
    return tag


async def post(client: TestClient, player: dict[str, Any], url: str, body: Any = None,
               status: int = 201, **headers: str) -> Any:
    r = await client.post(url, json={} if body is None else body,
                          headers={**auth(player), **headers})
    assert r.status == status, await r.text()
    return await r.json()


def instance(db_url: str, **settings: Any) -> TestClient:
    app_settings = make_settings(db_url, **settings)
    from service.app import create_app

    return TestClient(Served(create_app(app_settings)), timeout=REQUEST_TIMEOUT,
                      trace_configs=[validating_trace_config()])


async def db_value(db_url: str, sql: str, *args: Any) -> Any:
    """One value, read straight from the database."""
    conn = await asyncpg.connect(db_url)
    try:
        return await conn.fetchval(sql, *args)
    finally:
        await conn.close()


OTHER_ADDRESS = "127.0.0.2"  # the loopback network: a second client address on this machine


@contextlib.asynccontextmanager
async def from_address(client: TestClient, address: str) -> AsyncIterator[aiohttp.ClientSession]:
    """A client of the same service whose connections come from `address`, its answers
    checked against openapi.yaml as the test client's are."""
    async with aiohttp.ClientSession(
        f"http://{client.host}:{client.port}",
        connector=aiohttp.TCPConnector(local_addr=(address, 0)),
        trace_configs=[validating_trace_config()],
    ) as session:
        yield session


async def create(client: TestClient, name: str) -> tuple[int, dict[str, object]]:
    """A new player of that name asked for: the answer's status and body."""
    r = await client.post("/v1/players", json={"name": name})
    body: dict[str, object] = await r.json()
    return r.status, body


async def created(client: TestClient, *names: str) -> None:
    """Each name makes a player (201), kept as written."""
    for name in names:
        status, body = await create(client, name)
        assert status == 201 and body["name"] == name, (name, body)
