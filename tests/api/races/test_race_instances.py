"""Races on two instances of one database: started and ended on time by the instances'
clocks, exactly once under concurrent requests; the stream resumes on either instance
without gap or duplicate."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from service.live.hub import HUB_KEY
from service.verify.run import verify

from ..helpers import auth, db_value, instance, new_player, shortest
from .helpers import call, give_up_with_a_card_up, new_race, race_events, until


async def test_three_racers_on_two_instances_one_wins_one_abandons_one_idles(
    db_url: str, transport: dict[str, Any]
) -> None:
    deal, line = shortest("freecell")
    # a race's minute lasts 4 s here; each instance looks for due races every 0.2 s
    a = instance(db_url, race_minute_s=4.0, race_tick_s=0.2, **transport)
    b = instance(db_url, race_minute_s=4.0, race_tick_s=0.2, **transport)
    async with a, b:
        ada, bob, cy = [await new_player(a, n) for n in ("ada", "bob", "cy")]
        race = await new_race(a, ada, deal=deal, autoplay=False, max_minutes=1)
        rid = race["id"]
        for racer in (bob, cy):
            await call(b, "POST", f"/v1/races/{rid}/join", racer)
        first = await race_events(a, rid)
        assert [e["seq"] for e in first] == [1, 2, 3, 4]

        await until(race["starts_at"], 0.4)  # the clocks started it: no request needed
        status = await db_value(db_url, "SELECT status FROM races WHERE id = $1", rid)
        assert status == "running"
        running = await call(b, "GET", f"/v1/races/{rid}")
        games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
        await give_up_with_a_card_up(b, a, bob, games["bob"], line)
        for i in range(0, len(line), 10):  # ada's moves alternate between the instances
            await call((a, b)[i // 10 % 2], "POST", f"/v1/games/{games['ada']}/moves", ada,
                       {"moves": [m.to_dict() for m in line[i:i + 10]]}, 201)

        await until(race["ends_at"], 0.8)
        ended_at = await db_value(db_url, "SELECT ended_at FROM races WHERE id = $1", rid)
        assert ended_at is not None  # the clocks ended it: no request needed
        assert ended_at - datetime.fromisoformat(race["ends_at"]) < timedelta(seconds=0.8)
        rest = await race_events(b, rid, after=first[-1]["seq"], until_type="RaceEnded")
        seqs = [e["seq"] for e in first + rest]
        assert seqs == list(range(1, len(seqs) + 1))
        kinds = [e["type"] for e in rest]
        assert kinds.count("RaceStarted") == kinds.count("RaceEnded") == 1
        finished = [(e["data"]["player"], e["data"]["status"]) for e in rest
                    if e["type"] == "PlayerFinished"]
        ids = {p["player"]["name"]: p["player"]["id"] for p in running["players"]}
        assert finished == [(ids["bob"], "abandoned"), (ids["ada"], "won"),
                            (ids["cy"], "abandoned")]
        over = await call(a, "GET", f"/v1/races/{rid}")
        ranks = [(p["player"]["name"], p["rank"], p["status"]) for p in over["players"]]
        # the winner; then bob, whose foundation holds a card; then cy, idle
        assert ranks == [("ada", 1, "won"), ("bob", 2, "abandoned"), ("cy", 3, "abandoned")]
        assert rest[-1]["data"]["ranking"] == [
            {"player": p["player"]["id"], "rank": p["rank"], "status": p["status"],
             "elapsed_ms": p["elapsed_ms"], "moves": p["moves"],
             "foundation_cards": p["foundation_cards"], "verified": p["verified"]}
            for p in over["players"]
        ]
        idle = await call(b, "GET", f"/v1/games/{games['cy']}/events")
        assert [e["type"] for e in idle["events"]] == ["GameCreated", "GameAbandoned"]
        # a move after the end: the game is over
        await call(a, "POST", f"/v1/games/{games['cy']}/moves", cy, line[0].to_dict(), 409)
    report = await verify(db_url, min_median_move_ms=0)
    assert report.ok, [str(d) for d in report.differences]


async def next_of(ws: aiohttp.ClientWebSocketResponse, kind: str) -> dict[str, Any]:
    """The next message of the race's stream of that type, within WAKE seconds."""
    async with asyncio.timeout(WAKE):
        while True:
            msg: dict[str, Any] = await ws.receive_json()
            if msg["type"] == kind:
                return msg


WAKE = 2.0


async def test_the_other_instance_s_race_stream_is_told_not_polled(
    db_url: str, transport: dict[str, Any]
) -> None:
    """A race stream's feed reads only when woken (its sweep comes every WS_SWEEP s, here an
    hour): a socket on B still gets what A writes to the race at once: the join, the start,
    every move's Progress and the winner's PlayerFinished come to B by the live events'
    wake-ups (LISTEN/NOTIFY, or the broker), like a game's."""
    deal, line = shortest("freecell")
    a = instance(db_url, ws_sweep=3600, race_tick_s=0.2, **transport)
    b = instance(db_url, ws_sweep=3600, race_tick_s=3600, **transport)  # A starts it
    async with a, b:
        ada, bob = await new_player(a, "ada"), await new_player(a, "bob")
        race = await new_race(a, ada, deal=deal, autoplay=False, max_minutes=1)
        rid = race["id"]
        ws = await b.ws_connect(f"/v1/races/{rid}/stream")
        assert [(await ws.receive_json())["type"] for _ in range(2)] == [
            "RaceCreated", "PlayerJoined"
        ]
        await call(a, "POST", f"/v1/races/{rid}/join", bob)
        joined = await next_of(ws, "PlayerJoined")
        assert joined["data"]["player"] == bob["id"]
        await until(race["starts_at"])
        started = await next_of(ws, "RaceStarted")  # A's clock started it
        game = {p["player"]: p["game_id"] for p in started["data"]["players"]}[ada["id"]]
        for k, move in enumerate(line, start=1):
            answer = await call(a, "POST", f"/v1/games/{game}/moves", ada, move.to_dict(), 201)
            progress = await next_of(ws, "Progress")
            assert (progress["data"]["player"], progress["data"]["moves"]) == (ada["id"], k)
            if answer["game"]["status"] == "won":
                break
        finished = await next_of(ws, "PlayerFinished")
        assert (finished["data"]["player"], finished["data"]["status"]) == (ada["id"], "won")
        await ws.close()


async def commits(db_url: str, player: dict[str, Any], *clients: TestClient) -> int:
    """The transactions the test's database has committed, each instance's counted: a
    PostgreSQL backend reports its counts when it ends a transaction a second or more after
    it last did (else up to 10 s later), so after a second each instance's one pooled
    connection ends one (a read of the player's record; /healthz has a connection of its
    own) before the count is read."""
    await asyncio.sleep(1.1)
    for client in clients:
        r = await client.get(f"/v1/players/{player['id']}")
        assert r.status == 200
    count: int = await db_value(
        db_url, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
    )
    return count


async def test_idle_race_streams_cost_no_query_and_a_move_still_reaches_them(
    db_url: str, transport: dict[str, Any]
) -> None:
    """API.md: a race's live stream costs no database query of its own while nothing
    happens. A hundred races watched on B from one client, a socket each, and nothing
    happening for 2 s: the database commits (almost) no transaction (each race's reader
    polling its log every 0.2 s made some 1000 in that time). Then what the others write
    reaches B's socket within WAKE seconds, by the live events' wake-ups: the start and the
    end, by a third instance's clock, and a move on A between them."""
    deal, line = shortest("freecell")
    # one pooled connection each (the count reads what each has done); no clock: nothing is
    # started or ended while they count; a race's minute lasts 5 s
    quiet = {"race_tick_s": 3600, "pool_min": 1, "pool_max": 1, "race_minute_s": 5.0}
    a = instance(db_url, **quiet, **transport)
    b = instance(db_url, **quiet, **transport)
    async with a, b, aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as client:
        ada, bob = await new_player(a, "ada"), await new_player(a, "bob")
        idle = [await new_race(a, ada, starts_in_s=600) for _ in range(99)]
        sockets = []
        for r in idle:
            ws = await client.ws_connect(b.make_url(f"/v1/races/{r['id']}/stream"))
            assert [(await ws.receive_json())["type"] for _ in range(2)] == [
                "RaceCreated", "PlayerJoined"
            ]
            sockets.append(ws)
        race = await new_race(a, ada, deal=deal, autoplay=False, max_minutes=1)
        rid = race["id"]
        await call(a, "POST", f"/v1/races/{rid}/join", bob)
        ws = await client.ws_connect(b.make_url(f"/v1/races/{rid}/stream"))
        assert [(await ws.receive_json())["type"] for _ in range(3)] == [
            "RaceCreated", "PlayerJoined", "PlayerJoined"
        ]
        sockets.append(ws)

        # (each instance's listener beats every BEAT_EVERY, a transaction of its own while
        # it writes nothing: service/live/beats.py; those are not the streams')
        beats = [c.app[HUB_KEY].beats for c in (a, b)]
        before, beats_before = await commits(db_url, ada, a, b), sum(x.sent for x in beats)
        await asyncio.sleep(2.0)
        after, beaten = await commits(db_url, ada, a, b), sum(x.sent for x in beats) - beats_before
        assert after - before - beaten < 20, (after - before, beaten)

        async with instance(db_url, race_tick_s=0.2, **transport):  # its clock: due at once
            started = await next_of(ws, "RaceStarted")
            game = {p["player"]: p["game_id"] for p in started["data"]["players"]}[ada["id"]]
            await call(a, "POST", f"/v1/games/{game}/moves", ada, line[0].to_dict(), 201)
            progress = await next_of(ws, "Progress")
            assert (progress["data"]["player"], progress["data"]["moves"]) == (ada["id"], 1)
            await until(race["ends_at"])
            ended = await next_of(ws, "RaceEnded")
            assert [r["status"] for r in ended["data"]["ranking"]] == ["abandoned"] * 2
        for socket in sockets:
            await socket.close()


async def test_start_and_end_happen_once_under_concurrent_requests(db_url: str) -> None:
    # the instances' clocks look only once a minute: the requests start and end the race
    a = instance(db_url, race_minute_s=3.0, race_tick_s=60)
    b = instance(db_url, race_minute_s=3.0, race_tick_s=60)
    async with a, b:
        ada, bob = await new_player(a, "ada"), await new_player(b, "bob")
        race = await new_race(a, ada, max_minutes=1)
        rid = race["id"]
        await call(b, "POST", f"/v1/races/{rid}/join", bob)

        async def storm() -> list[Any]:
            return await asyncio.gather(
                *(call(c, "GET", f"/v1/races/{rid}") for c in (a, b) * 10)
            )

        await until(race["starts_at"], 0.001)
        seen = await storm()
        assert all(r["status"] == "running" for r in seen)
        assert len({tuple(p["game_id"] for p in r["players"]) for r in seen}) == 1
        assert len({r["deal"] for r in seen}) == 1
        await until(race["ends_at"], 0.001)
        seen = await storm()
        assert all(r["status"] == "over" for r in seen)
        counts = await db_value(
            db_url,
            "SELECT jsonb_object_agg(type, n) FROM (SELECT type, count(*) AS n FROM race_events"
            " WHERE race_id = $1 GROUP BY type) AS t", rid,
        )
        counts = json.loads(counts)
        games = await db_value(db_url, "SELECT count(*) FROM games WHERE race_id = $1", rid)
        abandons = await db_value(
            db_url,
            "SELECT count(*) FROM game_events e JOIN games g ON g.id = e.game_id"
            " WHERE g.race_id = $1 AND e.type = 'GameAbandoned'", rid,
        )
        assert counts["RaceStarted"] == counts["RaceEnded"] == 1
        assert counts["PlayerFinished"] == games == abandons == 2
    assert (await verify(db_url)).ok
    # a race's log that lost an event no longer agrees with its games' logs
    await db_value(db_url, "DELETE FROM race_events WHERE race_id = $1 AND type = 'Progress'"
                " AND seq = (SELECT min(seq) FROM race_events WHERE type = 'Progress')", rid)
    found = [str(d) for d in (await verify(db_url)).differences]
    assert any("without gaps" in d for d in found) and any("Progress" in d for d in found)


async def test_a_move_after_ends_at_is_refused_and_ends_the_race_once(db_url: str) -> None:
    """No clock and no race endpoint ends the race here: the moves that come after ends_at,
    on both instances at once, are refused (409), and the first of them ends the race:
    every game still in play abandoned once, one RaceEnded."""
    deal, line = shortest("freecell")
    a = instance(db_url, race_minute_s=3.0, race_tick_s=60)
    b = instance(db_url, race_minute_s=3.0, race_tick_s=60)
    async with a, b:
        ada, bob = await new_player(a, "ada"), await new_player(b, "bob")
        race = await new_race(a, ada, deal=deal, autoplay=False, max_minutes=1)
        rid = race["id"]
        await call(b, "POST", f"/v1/races/{rid}/join", bob)
        await until(race["starts_at"], 0.01)
        running = await call(a, "GET", f"/v1/races/{rid}")
        games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
        # each instance holds its player's game in play, one move in
        await call(a, "POST", f"/v1/games/{games['ada']}/moves", ada, line[0].to_dict(), 201)
        await call(b, "POST", f"/v1/games/{games['bob']}/moves", bob, line[0].to_dict(), 201)

        await until(race["ends_at"], 0.05)
        assert await db_value(db_url, "SELECT status FROM races WHERE id = $1", rid) == "running"
        late = await asyncio.gather(
            *(c.post(f"/v1/games/{games[name]}/moves", json=line[1].to_dict(),
                     headers={**auth(p), "Idempotency-Key": f"late-{name}"})
              for c, name, p in ((a, "ada", ada), (b, "bob", bob), (b, "ada", ada),
                                 (a, "bob", bob)))
        )
        for r in late:
            assert r.status == 409, await r.text()
            problem = await r.json()
            assert problem["type"].endswith("/race-over")
            assert f"race {rid} ended at " in problem["detail"]
            assert datetime.fromisoformat(problem["ended_at"]) == datetime.fromisoformat(
                race["ends_at"])
        # each key keeps its first answer, the refusal: a retry gets it again
        assert await db_value(
            db_url, "SELECT count(*) FROM idempotency_keys WHERE status = 409"
        ) == 2

        counts = json.loads(await db_value(
            db_url,
            "SELECT jsonb_object_agg(type, n) FROM (SELECT type, count(*) AS n FROM race_events"
            " WHERE race_id = $1 GROUP BY type) AS t", rid,
        ))
        assert counts["RaceEnded"] == 1 and counts["PlayerFinished"] == 2
        # the end is taken as of ends_at, whenever it came: the abandonments, the race's
        # end and every racer's elapsed_ms (the race's length, as its games start as of
        # starts_at)
        ends_at = datetime.fromisoformat(race["ends_at"])
        length_ms = round((ends_at - datetime.fromisoformat(race["starts_at"])).total_seconds()
                          * 1000)
        assert await db_value(db_url, "SELECT ended_at FROM races WHERE id = $1", rid) == ends_at
        for name in ("ada", "bob"):
            log = (await call(a, "GET", f"/v1/games/{games[name]}/events"))["events"]
            # the move before the end, then the abandonment: no move after ends_at
            assert [e["type"] for e in log[-2:]] == ["CardMoved", "GameAbandoned"]
            assert [e["type"] for e in log].count("GameAbandoned") == 1
            assert datetime.fromisoformat(log[-2]["at"]) < ends_at
            assert datetime.fromisoformat(log[-1]["at"]) == ends_at
        over = await call(b, "GET", f"/v1/races/{rid}")
        assert over["status"] == "over"
        assert [p["status"] for p in over["players"]] == ["abandoned", "abandoned"]
        assert [p["elapsed_ms"] for p in over["players"]] == [length_ms, length_ms]
        # and later still, the game read from its log as abandoned: refused the same way,
        # nothing more written
        late_undo = await call(b, "POST", f"/v1/games/{games['ada']}/undo", ada, {}, 409)
        assert late_undo["type"].endswith("/race-over"), late_undo
        version = await db_value(db_url, "SELECT version FROM races WHERE id = $1", rid)
        assert version == sum(counts.values())
    report = await verify(db_url, min_median_move_ms=0)
    assert report.ok, [str(d) for d in report.differences]


@pytest.mark.parametrize("ended_by", ["clock", "write"])
async def test_the_games_a_race_s_end_abandons_reach_their_streams_at_once(
    db_url: str, transport: dict[str, Any], ended_by: str
) -> None:
    """API.md: a game's stream sends new events as they happen. The games a race's end
    abandons (race_end, by A's clock, or by a move that came after ends_at) are told to
    their streams on both instances at once, as any write's are: with sweeps an hour apart,
    every socket has its game's GameAbandoned within WAKE seconds."""
    clock = 0.2 if ended_by == "clock" else 3600
    a = instance(db_url, ws_sweep=3600, race_minute_s=3.0, race_tick_s=clock, **transport)
    b = instance(db_url, ws_sweep=3600, race_minute_s=3.0, race_tick_s=3600, **transport)
    async with a, b:
        ada, bob = await new_player(a, "ada"), await new_player(b, "bob")
        race = await new_race(a, ada, deal=617, autoplay=False, max_minutes=1)
        rid = race["id"]
        await call(b, "POST", f"/v1/races/{rid}/join", bob)
        await until(race["starts_at"], 0.01)
        running = await call(b, "GET", f"/v1/races/{rid}")  # (started by this request)
        games = [p["game_id"] for p in running["players"]]
        sockets = [await c.ws_connect(f"/v1/games/{gid}/stream?after=1")
                   for c in (a, b) for gid in games]  # fmt: skip
        await until(race["ends_at"], 0.01)
        if ended_by == "write":
            owner = {p["id"]: p for p in (ada, bob)}[running["players"][0]["player"]["id"]]
            r = await a.post(f"/v1/games/{games[0]}/moves", json={"from": "t1", "to": "c"},
                             headers=auth(owner))
            assert r.status == 409 and (await r.json())["type"].endswith("/race-over")
        for ws in sockets:
            async with asyncio.timeout(WAKE):
                told = await ws.receive_json()
            assert (told["seq"], told["type"]) == (2, "GameAbandoned")
            await ws.close()
