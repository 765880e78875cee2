"""A race over is over for good: no write lands in its games after it ended, however it
ended (every game over, a blocked one included, or its time up); a race whose deal is
blocked as dealt is over at its start."""

from __future__ import annotations

import asyncio
import json
import uuid

import asyncpg
from aiohttp.test_utils import TestClient

from engine import Move
from service.verify.run import verify

from ..helpers import instance, new_player
from .helpers import call, new_race, race_events, until

# Beleaguered Castle deal 2 is blocked after these three moves (autoplay on)
BLOCKING = [Move("t5", "t3"), Move("t5", "t7"), Move("t2", "t5")]
BLOCKED_AS_DEALT = 21173  # Beleaguered Castle: no legal move once its aces are up


async def test_a_race_ended_by_a_blocked_game_takes_no_undo_after(client: TestClient) -> None:
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    race = await new_race(client, ada, variant="beleaguered_castle", deal=2, max_players=2)
    rid = race["id"]
    await call(client, "POST", f"/v1/races/{rid}/join", bob)
    await until(race["starts_at"], 0.01)
    running = await call(client, "GET", f"/v1/races/{rid}")
    games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
    await call(client, "POST", f"/v1/games/{games['bob']}/abandon", bob, {}, 201)
    blocked = await call(client, "POST", f"/v1/games/{games['ada']}/moves", ada,
                         {"moves": [m.to_dict() for m in BLOCKING]}, 201)
    assert blocked["game"]["status"] == "blocked" and blocked["game"]["can_undo"]
    over = await call(client, "GET", f"/v1/races/{rid}")
    assert over["status"] == "over"
    ranking = [(p["player"]["name"], p["rank"], p["status"]) for p in over["players"]]

    # ada's blocked game could be revived by an undo in a game of her own: not in a race
    # that her block ended, whose ranking stands
    refused = await call(client, "POST", f"/v1/games/{games['ada']}/undo", ada, {}, 409)
    assert refused["type"].endswith("/race-over")
    assert "ended" in refused["detail"]
    game = await call(client, "GET", f"/v1/games/{games['ada']}")
    assert game["status"] == "blocked" and game["version"] == blocked["game"]["version"]
    after = await call(client, "GET", f"/v1/races/{rid}")
    assert [(p["player"]["name"], p["rank"], p["status"]) for p in after["players"]] == ranking
    # bob's game, abandoned: a late write is told the race is over, not only the game
    for path, body in (("moves", {"from": "t1", "to": "t2"}), ("undo", {})):
        late = await call(client, "POST", f"/v1/games/{games['bob']}/{path}", bob, body, 409)
        assert late["type"].endswith("/race-over"), late
        assert (late["race_id"], late["ended_at"]) == (rid, over["ended_at"]), late


async def test_no_analysis_nor_hint_after_the_end_of_a_racers_games_of_the_deal_while_it_runs(
    client: TestClient,
) -> None:
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    race = await new_race(client, ada, deal=617, max_players=2)
    rid = race["id"]
    await call(client, "POST", f"/v1/races/{rid}/join", bob)
    await until(race["starts_at"], 0.01)
    running = await call(client, "GET", f"/v1/races/{rid}")
    games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
    # a game of her own on the race's deal, played and given up: its analysis would say
    # which positions of the deal can still be won
    side = await call(client, "POST", "/v1/games", ada, {"variant": "freecell", "deal": 617},
                      201)
    await call(client, "POST", f"/v1/games/{side['id']}/moves", ada,
               {"from": "t1", "to": "c"}, 201)
    await call(client, "POST", f"/v1/games/{side['id']}/abandon", ada, {}, 201)
    for what in ("analysis", "hint"):
        refused = await call(client, "GET", f"/v1/games/{side['id']}/{what}", status=403)
        assert rid in refused["detail"]
    await call(client, "POST", f"/v1/games/{games['bob']}/abandon", bob, {}, 201)
    await call(client, "GET", f"/v1/games/{games['bob']}/analysis", status=403)
    # a game of the deal whose player is in no race is read as ever: a race on a deal
    # (a one-player race on the day's deal, say) does not take its analyses from everyone
    cy = await new_player(client, "cy")
    other = await call(client, "POST", "/v1/games", cy, {"variant": "freecell", "deal": 617},
                       201)
    await call(client, "POST", f"/v1/games/{other['id']}/abandon", cy, {}, 201)
    assert "verdicts" in await call(client, "GET", f"/v1/games/{other['id']}/analysis")
    assert "verdict" in await call(client, "GET", f"/v1/games/{other['id']}/hint")
    # once the race is over, the racers' games are analysed too
    await call(client, "POST", f"/v1/games/{games['ada']}/abandon", ada, {}, 201)
    assert (await call(client, "GET", f"/v1/races/{rid}"))["status"] == "over"
    for gid in (side["id"], games["bob"]):
        assert "verdicts" in await call(client, "GET", f"/v1/games/{gid}/analysis")
    assert "verdict" in await call(client, "GET", f"/v1/games/{side['id']}/hint")


async def test_a_race_on_a_deal_blocked_as_dealt_is_over_at_its_start(
    client: TestClient, db_url: str
) -> None:
    """Every game is over as dealt: each is finished at starts_at in 0 ms (its row as its
    log), each player has PlayerFinished and the race ends then (API.md: a race is over
    when every player's game is over), ranked by foundation cards."""
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    race = await new_race(client, ada, variant="beleaguered_castle", deal=BLOCKED_AS_DEALT,
                          max_players=2)
    rid = race["id"]
    await call(client, "POST", f"/v1/races/{rid}/join", bob)
    await until(race["starts_at"], 0.01)
    over = await call(client, "GET", f"/v1/races/{rid}")
    assert over["status"] == "over", over
    assert [(p["status"], p["elapsed_ms"], p["rank"]) for p in over["players"]] == [
        ("blocked", 0, 1), ("blocked", 0, 1)]
    for p in over["players"]:
        game = await call(client, "GET", f"/v1/games/{p['game_id']}")
        assert game["status"] == "blocked" and game["elapsed_ms"] == 0
        assert game["finished_at"] == over["starts_at"]
    events = await race_events(client, rid, until_type="RaceEnded")
    kinds = [e["type"] for e in events]
    assert kinds[-4:] == ["RaceStarted", "PlayerFinished", "PlayerFinished", "RaceEnded"]
    assert {(e["data"]["status"], e["data"]["elapsed_ms"]) for e in events[-3:-1]} == {
        ("blocked", 0)}
    ranking = events[-1]["data"]["ranking"]
    assert [(r["status"], r["elapsed_ms"], r["rank"]) for r in ranking] == [
        ("blocked", 0, 1), ("blocked", 0, 1)]
    report = await verify(db_url)
    assert report.ok, [str(d) for d in report.differences]


async def test_a_race_started_over_as_dealt_before_migration_0029_ends_at_the_upgrade(
    db_url: str,
) -> None:
    """A race started by the race_start of before 0029 on a deal blocked as dealt kept
    running, its games' rows without their end: the migration mends the rows and ends
    the race (a PlayerFinished each, then RaceEnded), and `verify` finds nothing wrong."""
    from alembic import command

    from engine import Game
    from service.database.migrate import alembic_config

    async with instance(db_url) as c:
        ada, bob = await new_player(c, "ada"), await new_player(c, "bob")
        race = await new_race(c, ada, variant="beleaguered_castle", deal=BLOCKED_AS_DEALT,
                              max_players=2, starts_in_s=600)
        await call(c, "POST", f"/v1/races/{race['id']}/join", bob)
    config = alembic_config(db_url)
    await asyncio.to_thread(command.downgrade, config, "0028")
    game, events = Game.new("beleaguered_castle", BLOCKED_AS_DEALT, True)
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("UPDATE races SET starts_at = now() - interval '1 s',"
                           " ends_at = now() + interval '10 min' WHERE id = $1",
                           uuid.UUID(race["id"]))  # fmt: skip
        started = await conn.fetchval(
            "SELECT race_start($1, $2, $3::jsonb, $4, $5, $6, $7, $8)",
            uuid.UUID(race["id"]), BLOCKED_AS_DEALT,
            json.dumps([{"type": e.type, "data": e.data} for e in events]),
            game.status, game.moves, game.undos, game.hints, game.position.foundation_cards,
        )  # fmt: skip
        assert started
        assert await conn.fetchval("SELECT status FROM races WHERE id = $1",
                                   uuid.UUID(race["id"])) == "running"  # fmt: skip
    finally:
        await conn.close()
    await asyncio.to_thread(command.upgrade, config, "head")
    async with instance(db_url) as c:
        over = await call(c, "GET", f"/v1/races/{race['id']}")
        assert over["status"] == "over", over
        assert [(p["status"], p["elapsed_ms"]) for p in over["players"]] == [
            ("blocked", 0), ("blocked", 0)]
        kinds = [e["type"] for e in await race_events(c, race["id"], until_type="RaceEnded")]
        assert kinds[-4:] == ["RaceStarted", "PlayerFinished", "PlayerFinished", "RaceEnded"]
    report = await verify(db_url)
    assert report.ok, [str(d) for d in report.differences]
