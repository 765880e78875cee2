"""Moves of one game taken by two instances in turn (a balancer that does not keep a
player on one instance, or the workers of one): each is judged on the log's position and
written once, and no instance answers 304 for the version another one replaced."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import replace
from typing import Any

import pytest

from engine import Move
from service.base.keys import BACKEND_KEY
from service.live.hub import StreamHub

from ..helpers import auth, get, instance, new_game, new_player, post


async def heard(client: Any, game_id: str, seq: int, guard: float = 5) -> None:
    """Until the instance has heard another announce the game's `seq` (NOTIFY)."""
    backend = client.app[BACKEND_KEY]
    deadline = time.monotonic() + guard
    while (backend.announced.get(uuid.UUID(game_id)) or 0) < seq:
        assert time.monotonic() < deadline, "the other instance's move was never announced"
        await asyncio.sleep(0.005)


async def test_a_move_on_a_copy_another_instance_moved_past_reads_the_log_first(
    db_url: str,
) -> None:
    """b holds the game at version 1 in memory; a moves it to 2. b has heard so, and
    judges its next move on the log's position: one write, not a write that meets the
    log's key and a second one after reading the log."""
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        assert (await get(b, url))["version"] == 1  # b's memory: version 1
        await post(a, ada, f"{url}/moves", {"from": "t1", "to": "c"})
        await heard(b, game["id"], 2)
        store = b.app[BACKEND_KEY].store
        writes: list[int] = []
        record = store.record

        async def counted(**kw: Any) -> Any:
            writes.append(kw["first_seq"])
            return await record(**kw)

        store.record = counted
        # (legal on both positions: memory's copy alone would have let it through)
        r = await b.post(f"{url}/moves", json={"from": "t2", "to": "c"}, headers=auth(ada))
        assert r.status == 201, await r.text()
        body = await r.json()
        tableau = game["state"]["tableau"]
        assert body["game"]["version"] == 3
        assert body["game"]["state"]["cells"][:2] == [tableau[0][-1], tableau[1][-1]]
        assert writes == [3]


async def test_a_late_notify_never_leaves_a_304_for_the_replaced_version(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under load another instance's NOTIFY may come tens of ms after the move was
    acknowledged (here every notification is heard 60 ms late, in order): b's 304 from
    memory waits for a beat of its own sent after the request came, which comes after a's
    line, so b answers the moved game, never 304 for the version a replaced."""
    heard = StreamHub._notified

    def late(self: StreamHub, *args: Any) -> None:
        asyncio.get_running_loop().call_later(0.06, heard, self, *args)

    monkeypatch.setattr(StreamHub, "_notified", late)
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        for n in range(3):
            tag = (await b.get(url)).headers["ETag"]  # b's memory: the current version
            assert (await b.get(url, headers={"If-None-Match": tag})).status == 304
            await post(a, ada, f"{url}/moves", {"from": f"t{n + 1}", "to": "c"})
            r = await b.get(url, headers={"If-None-Match": tag})
            assert r.status == 200, f"b answered {r.status} for the replaced {tag}"
            assert (await r.json())["version"] == game["version"] + n + 1


async def test_a_copy_in_memory_ahead_of_the_log_is_replaced_by_the_log(db_url: str) -> None:
    """Memory holds a move the log does not (a database restored from before it, say):
    a write judged on it meets the log's version, and the log's game, replayed whole,
    takes its place: the move is judged there and written, not refused."""
    async with instance(db_url) as a:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        games = a.app[BACKEND_KEY].games
        live = games.get(uuid.UUID(game["id"]))
        ahead = replace(live, game=live.game.copy())
        ahead.game.play(Move.parse("t8-c"))  # (in memory only)
        games.put(uuid.UUID(game["id"]), ahead)
        body = await post(a, ada, f"{url}/moves", {"from": "t1", "to": "c"})
        assert body["game"]["version"] == 2 and body["events"][0]["seq"] == 2
        assert body["game"]["state"]["cells"][:2] == [game["state"]["tableau"][0][-1], None]
