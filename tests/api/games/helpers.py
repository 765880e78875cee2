"""Helpers of the game tests, for other capabilities' tests too."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from ..helpers import auth


async def batch(client: TestClient, player: dict[str, Any], gid: str, moves: list[Any],
                status: int = 201, **extra: Any) -> Any:
    headers = {**auth(player), **extra.pop("headers", {})}
    r = await client.post(f"/v1/games/{gid}/moves", json={"moves": moves, **extra},
                          headers=headers)
    assert r.status == status, await r.text()
    return await r.json()
