"""Helpers of the race tests, for other capabilities' tests too: calls, a new race, waiting
for a moment of the database's clock, giving up, a race's stream, and a whole race."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from aiohttp.test_utils import TestClient

from engine import Move

from ..helpers import auth, new_player, shortest


async def call(client: TestClient, method: str, url: str, player: dict[str, Any] | None = None,
               body: Any = None, status: int = 200) -> Any:
    headers = auth(player) if player is not None else {}
    r = await client.request(method, url, json=body, headers=headers)
    assert r.status == status, await r.text()
    return await r.json()


async def new_race(client: TestClient, player: dict[str, Any], **body: Any) -> dict[str, Any]:
    body = {"variant": "freecell", "starts_in_s": 3, "max_players": 3, **body}
    race: dict[str, Any] = await call(client, "POST", "/v1/races", player, body, 201)
    return race


async def until(moment: str, extra: float = 0.0) -> None:
    """Sleep until `moment` (an ISO time of the database's clock, on this machine)."""
    at = datetime.fromisoformat(moment)
    await asyncio.sleep(max(0.0, (at - datetime.now(UTC)).total_seconds()) + extra)


async def give_up_with_a_card_up(
    playing: TestClient, abandoning: TestClient, player: dict[str, Any], gid: str,
    line: list[Move],
) -> Any:
    """The player plays along `line` until a card is on a foundation, then abandons; the
    answer to the last move."""
    for move in line:
        answer = await call(playing, "POST", f"/v1/games/{gid}/moves", player,
                            move.to_dict(), 201)
        if answer["game"]["foundation_cards"]:
            break
    await call(abandoning, "POST", f"/v1/games/{gid}/abandon", player, {}, 201)
    return answer


async def race_events(client: TestClient, race_id: str, after: int = 0,
                      until_type: str | None = None, seconds: float = 10) -> list[dict[str, Any]]:
    """The race's stream from `after`: until an event of `until_type`, or until it has been
    quiet for half a second."""
    seen: list[dict[str, Any]] = []
    async with client.ws_connect(f"/v1/races/{race_id}/stream?after={after}") as ws:
        async with asyncio.timeout(seconds):
            while True:
                try:
                    msg = await ws.receive_json(timeout=None if until_type else 0.5)
                except TimeoutError:
                    return seen
                seen.append(msg)
                if msg["type"] == until_type:
                    return seen


async def race_from_creation_to_ranking(client: TestClient) -> None:
    """One race from creation to ranking, every step checked (test_race_flow.py runs it on
    one instance, test_pooler.py behind PgBouncer)."""
    deal, line = shortest("freecell")
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    race = await new_race(client, ada, deal=deal, autoplay=False, max_players=2)
    rid = race["id"]
    assert race["status"] == "open" and race["deal"] is None
    assert [p["player"]["name"] for p in race["players"]] == ["ada"]
    assert race["players"][0]["game_id"] is None
    joined = await call(client, "POST", f"/v1/races/{rid}/join", bob)
    again = await call(client, "POST", f"/v1/races/{rid}/join", bob)
    assert [p["player"]["name"] for p in joined["players"]] == ["ada", "bob"]
    assert again["players"] == joined["players"]
    cy = await new_player(client, "cy")
    await call(client, "POST", f"/v1/races/{rid}/join", cy, status=409)  # full
    # nothing shows the deal before the start: the race, its stream
    before = await race_events(client, rid)
    assert [e["type"] for e in before] == ["RaceCreated", "PlayerJoined", "PlayerJoined"]
    assert all("deal" not in e["data"] for e in before)
    assert (await call(client, "GET", f"/v1/races/{rid}"))["deal"] is None

    await until(race["starts_at"], 0.01)
    running = await call(client, "GET", f"/v1/races/{rid}")
    assert running["status"] == "running" and running["deal"] == deal
    games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
    assert all(games.values())
    await call(client, "POST", f"/v1/races/{rid}/join", cy, status=409)  # started
    ada_game = await call(client, "GET", f"/v1/games/{games['ada']}")
    assert ada_game["race_id"] == rid and ada_game["deal"] == deal
    assert ada_game["created_at"] == running["starts_at"]  # the clock runs from starts_at
    await call(client, "POST", f"/v1/games/{games['ada']}/hint", ada, {}, 403)

    # bob plays until a card is on a foundation, then gives up; ada wins in one batch
    answer = await give_up_with_a_card_up(client, client, bob, games["bob"], line)
    await call(client, "GET", f"/v1/games/{games['bob']}/hint", status=403)
    won = await call(client, "POST", f"/v1/games/{games['ada']}/moves", ada,
                     {"moves": [m.to_dict() for m in line]}, 201)
    assert won["game"]["status"] == "won"

    over = await call(client, "GET", f"/v1/races/{rid}")
    assert over["status"] == "over"
    ranks = [(p["player"]["name"], p["rank"], p["status"]) for p in over["players"]]
    assert ranks == [("ada", 1, "won"), ("bob", 2, "abandoned")]
    assert over["players"][0]["elapsed_ms"] == won["game"]["elapsed_ms"]
    assert [p["verified"] for p in over["players"]] == [True, None]  # (no pace rule here)
    events = await race_events(client, rid, after=len(before), until_type="RaceEnded")
    kinds = [e["type"] for e in events]
    assert kinds[0] == "RaceStarted" and kinds[-1] == "RaceEnded"
    assert events[0]["data"]["deal"] == deal
    assert kinds.count("PlayerFinished") == 2
    # the stream says what the race's GET says of each end, `verified` included
    finished = [e["data"] for e in events if e["type"] == "PlayerFinished"]
    assert [(d["player"], d["status"], d["verified"]) for d in finished] == [
        (bob["id"], "abandoned", None), (ada["id"], "won", True)]
    # one Progress per write to a racer's game: bob's moves and abandon, ada's batch
    bob_writes = answer["game"]["moves"] + 1
    assert kinds.count("Progress") == bob_writes + 1
    ended = events[-1]["data"]["ranking"]
    assert [(r["rank"], r["status"], r["verified"]) for r in ended] == [
        (1, "won", True), (2, "abandoned", None)]
    assert [e["seq"] for e in before + events] == list(range(1, len(before + events) + 1))
