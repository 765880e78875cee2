"""A client that leaves as soon as its request is sent (a phone losing its network): the
request, read whole, runs on (`service run` cancels no handler), and a retry with the same
Idempotency-Key gets its answer (docs/faults.md), even where the key is kept by the
client's address (a new player's request, a link code's: no token to scope it). One whose
client left before its address could be read is not run (499): its retry is the first."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import uuid
from typing import Any

import aiohttp

from ..helpers import ServiceProcess

PATHS = ("/v1/players", "/v1/tokens")
TRIES = 24  # a request's handler ran after its client left in about half of them before


async def send_and_leave(port: int, path: str, body: dict[str, Any], key: str) -> None:
    """The whole request, then a reset at once (SO_LINGER 0): nothing of the answer read."""
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        f"Idempotency-Key: {key}\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data
    )
    await writer.drain()
    writer.get_extra_info("socket").setsockopt(
        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
    )
    writer.transport.abort()


async def retried(
    http: aiohttp.ClientSession, served: ServiceProcess, path: str, body: dict[str, Any]
) -> bool:
    """The request sent and left, then sent again with its key: 201 (whether it was
    replayed)."""
    key = str(uuid.uuid4())
    await send_and_leave(served.port, path, body, key)
    await asyncio.sleep(0.15)  # (the first has run by then, when it ran)
    async with http.post(f"{served.base}{path}", json=body,
                         headers={"Idempotency-Key": key}) as r:  # fmt: skip
        assert r.status == 201, (path, r.status, await r.text())
        return r.headers.get("Idempotent-Replayed") == "true"


async def test_a_new_players_and_a_link_codes_retry_get_the_first_answer_after_a_reset(
    served: ServiceProcess,
) -> None:
    async with aiohttp.ClientSession() as http:
        replays = [await retried(http, served, "/v1/players", {"name": f"gone {i}"})
                   for i in range(TRIES)]  # fmt: skip
        async with http.post(f"{served.base}/v1/players", json={"name": "linker"}) as r:
            token = (await r.json())["token"]
        for _ in range(TRIES):
            async with http.post(f"{served.base}/v1/players/me/link-codes",
                                 headers={"Authorization": f"Bearer {token}"}) as r:  # fmt: skip
                code = (await r.json())["code"]
            replays.append(
                await retried(http, served, "/v1/tokens", {"code": code, "device": "phone"})
            )
    # both cases were met: some first requests committed before their retry came, and
    # some were not run, their client gone before its address was read
    assert any(replays), replays
    log = served.output()
    gone = {p: log.count(f'"path":"{p}","route":"{p}","status":499') for p in PATHS}
    assert all(gone.values()), (gone, replays)
