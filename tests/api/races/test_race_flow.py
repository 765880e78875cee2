"""Races (API.md, "Races"): the deal hidden before the start, games at starts_at with their
clock from it, hints refused, progress in the transaction of each move, ranks."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from ..helpers import UPGRADE, auth, instance, new_player, shortest
from .helpers import (
    call,
    give_up_with_a_card_up,
    new_race,
    race_events,
    race_from_creation_to_ranking,
    until,
)


async def test_a_race_from_creation_to_ranking(client: TestClient) -> None:
    await race_from_creation_to_ranking(client)


async def test_a_random_race_and_the_refusals(client: TestClient) -> None:
    ada = await new_player(client)
    r = await client.post("/v1/races", json={"variant": "freecell", "starts_in_s": 2},
                          headers=auth(ada))
    assert r.status == 400
    await call(client, "GET", "/v1/races/not-a-race", status=404)
    await call(client, "GET", "/v1/races/00000000-0000-0000-0000-000000000000", status=404)
    race = await new_race(client, ada)
    await until(race["starts_at"], 0.01)
    running = await call(client, "GET", f"/v1/races/{race['id']}")
    assert running["status"] == "running" and isinstance(running["deal"], int)


async def test_a_races_events_as_json_are_what_its_stream_sends_page_by_page(
    client: TestClient,
) -> None:
    deal, line = shortest("freecell")
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    race = await new_race(client, ada, deal=deal, autoplay=False, max_players=2)
    rid = race["id"]
    url = f"/v1/races/{rid}/events"
    await call(client, "POST", f"/v1/races/{rid}/join", bob)
    opening = await call(client, "GET", url)
    assert [e["type"] for e in opening["events"]] == ["RaceCreated", "PlayerJoined",
                                                      "PlayerJoined"]
    assert opening["next"] is None
    await until(race["starts_at"], 0.01)
    # the race is started before the answer, as GET /v1/races/{id} does
    started = await call(client, "GET", f"{url}?after=3")
    assert [e["type"] for e in started["events"]] == ["RaceStarted"]
    games = {p["player"]: p["game_id"] for p in started["events"][0]["data"]["players"]}
    await give_up_with_a_card_up(client, client, bob, games[bob["id"]], line)

    # a tag that changes with the race's version: 304 until then; the race's own too
    r = await client.get(url)
    tag = r.headers["ETag"]
    assert r.status == 200 and tag
    r = await client.get(url, headers={"If-None-Match": tag})
    assert r.status == 304 and r.headers["ETag"] == tag
    r = await client.get(f"/v1/races/{rid}")
    race_tag = r.headers["ETag"]
    r = await client.get(f"/v1/races/{rid}", headers={"If-None-Match": race_tag})
    assert r.status == 304 and r.headers["ETag"] == race_tag
    await call(client, "POST", f"/v1/games/{games[ada['id']]}/moves", ada,
               {"moves": [m.to_dict() for m in line]}, 201)
    r = await client.get(f"/v1/races/{rid}", headers={"If-None-Match": race_tag})
    assert r.status == 200 and r.headers["ETag"] != race_tag
    assert (await r.json())["status"] == "over"
    r = await client.get(url, headers={"If-None-Match": tag})
    assert r.status == 200 and r.headers["ETag"] != tag
    whole = await r.json()

    streamed = await race_events(client, rid, until_type="RaceEnded")
    assert whole == {"events": streamed, "next": None}
    kinds = [e["type"] for e in whole["events"]]
    assert kinds[-3:] == ["Progress", "PlayerFinished", "RaceEnded"]
    # pages of 3: the same events; `next`, the last seq of a page, null on the last
    pages: list[dict[str, Any]] = []
    after = 0
    while True:
        page = await call(client, "GET", f"{url}?after={after}&limit=3")
        assert 1 <= len(page["events"]) <= 3
        pages += page["events"]
        if page["next"] is None:
            break
        assert page["next"] == page["events"][-1]["seq"] and len(page["events"]) == 3
        after = page["next"]
    assert pages == whole["events"]
    assert await call(client, "GET", f"{url}?after={len(kinds) - 2}&limit=1") == {
        "events": whole["events"][-2:-1], "next": len(kinds) - 1}
    assert await call(client, "GET", f"{url}?after={len(kinds)}") == {"events": [],
                                                                       "next": None}
    assert await call(client, "GET", f"{url}?limit=5000") == whole  # taken as 1000
    for bad in ("after=-1", "limit=0", "after=x", "after=1&after=2"):
        await call(client, "GET", f"{url}?{bad}", status=400)
    r = await client.get(f"/v1/races/{rid}/stream?after=1&after=2", headers=UPGRADE)
    assert r.status == 400 and "once, not 2 times" in (await r.json())["detail"]
    # its stream: a client ahead of the log is told so before the upgrade
    r = await client.get(f"/v1/races/{rid}/stream?after={len(kinds) + 1}", headers=UPGRADE)
    assert r.status == 400 and "past the race's last event" in (await r.json())["detail"]
    unknown = "/v1/races/00000000-0000-0000-0000-000000000000/events"
    await call(client, "GET", unknown, status=404)
    await call(client, "GET", f"{unknown}?after=5", status=404)
    await call(client, "GET", "/v1/races/not-a-race/events", status=404)


async def test_a_win_faster_than_a_hand_ranks_by_its_time_and_says_unverified(
    db_url: str,
) -> None:
    """Races rank winners by time (API.md); a win played faster than a hand plays, which
    the boards leave off, says `verified: false` beside its rank, in the race and in its
    stream; a game not won, null."""
    deal, line = shortest("freecell")
    async with instance(db_url, min_median_move_ms=200) as client:  # the default
        ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
        race = await new_race(client, ada, deal=deal, autoplay=False, max_players=2)
        await call(client, "POST", f"/v1/races/{race['id']}/join", bob)
        await until(race["starts_at"], 0.01)
        running = await call(client, "GET", f"/v1/races/{race['id']}")
        assert [p["verified"] for p in running["players"]] == [None, None]
        games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
        await call(client, "POST", f"/v1/games/{games['ada']}/moves", ada,
                   {"moves": [m.to_dict() for m in line]}, 201)  # fmt: skip
        await call(client, "POST", f"/v1/games/{games['bob']}/abandon", bob, {}, 201)
        over = await call(client, "GET", f"/v1/races/{race['id']}")
        assert [(p["player"]["name"], p["rank"], p["status"], p["verified"])
                for p in over["players"]] == [("ada", 1, "won", False),
                                              ("bob", 2, "abandoned", None)]  # fmt: skip
        # and so does its stream, in each PlayerFinished and in RaceEnded's ranking
        events = await race_events(client, race["id"], until_type="RaceEnded")
        finished = {e["data"]["player"]: e["data"]["verified"] for e in events
                    if e["type"] == "PlayerFinished"}
        assert finished == {ada["id"]: False, bob["id"]: None}
        ranking = events[-1]["data"]["ranking"]
        assert [(r["player"], r["verified"]) for r in ranking] == [(ada["id"], False),
                                                                   (bob["id"], None)]


async def test_a_races_log_writes_its_times_with_microseconds(client: TestClient) -> None:
    """Times are RFC 3339 in UTC with microseconds (API.md): RaceCreated and RaceStarted
    say the race's starts_at and ends_at as its view does, six digits where the last is
    a 0 too (PostgreSQL writes a time into the log's jsonb without trailing zeros)."""
    ada = await new_player(client)
    for _ in range(200):  # (one start in ten has microseconds that end in 0)
        race = await new_race(client, ada)
        if race["starts_at"].endswith("0+00:00"):
            break
    else:
        raise AssertionError("no start at microseconds ending in 0 in 200 races")
    await until(race["starts_at"], 0.01)
    events = (await call(client, "GET", f"/v1/races/{race['id']}/events"))["events"]
    times = {e["type"]: e["data"] for e in events if e["type"] in ("RaceCreated", "RaceStarted")}
    assert times["RaceCreated"]["starts_at"] == race["starts_at"]
    assert times["RaceCreated"]["ends_at"] == race["ends_at"]
    assert times["RaceStarted"]["starts_at"] == race["starts_at"]
