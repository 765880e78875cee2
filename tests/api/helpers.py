"""Small helpers for driving the API in tests."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient


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
