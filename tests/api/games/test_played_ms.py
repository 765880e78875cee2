"""Offline play: the moves of a batch say when they were played (`played_ms`), and the
pace rule reads those times, so a win played offline at a person's pace is verified as
one played online is; times that go back, or ahead of the batch's arrival, are 422."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from engine import EngineError, Game, Move
from service.games import write
from service.verify.run import verify

from ...conftest import ROOT
from ..helpers import auth, get, instance, new_game, new_player

SOLUTIONS = json.loads((ROOT / "tests" / "data" / "solutions.json").read_text())["solutions"]
TYPE_BASE = "https://open-solitaire.example/problems/"
GAP = 210  # ms between two moves: a person's pace, over MIN_MEDIAN_MOVE_MS (200)


def players_moves(variant: str, deal: int) -> list[dict[str, Any]]:
    """The moves a player makes of a winning line with autoplay on (the others, autoplay
    makes)."""
    game, _ = Game.new(variant, deal, True)
    moves = []
    for text in SOLUTIONS[variant][str(deal)].split():
        try:
            game.play(Move.parse(text))
        except EngineError:
            continue  # played by autoplay already
        moves.append(Move.parse(text).to_dict())
    assert game.status == "won"
    return moves


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


async def until_past(created_at: str, ms: int) -> None:
    """Wait until `ms` milliseconds have passed since `created_at` (the database's clock,
    on this machine)."""
    left = at(created_at) + timedelta(milliseconds=ms + 20) - datetime.now(UTC)
    await asyncio.sleep(max(0.0, left.total_seconds()))


async def batch(client: TestClient, player: dict[str, Any], gid: str, moves: list[Any],
                status: int = 201) -> Any:
    r = await client.post(f"/v1/games/{gid}/moves", json={"moves": moves}, headers=auth(player))
    assert r.status == status, await r.text()
    return await r.json()


def refusal(index: int, detail: str) -> dict[str, Any]:
    return {"type": TYPE_BASE + "played-ms", "title": "Unprocessable Content", "status": 422,
            "detail": f"move {index} of the batch (counting from 0): {detail}", "index": index}


async def test_an_offline_win_at_a_persons_pace_is_verified_and_the_same_batch_untimed_is_not(
    db_url: str,
) -> None:
    """Baker's Dozen deal 5, autoplay on: ada plays it offline, a move every 210 ms, and
    sends the whole game at once with the times; bob sends the same moves without them.
    Ada's win is verified and on the default boards, bob's only on the assisted ones; verify
    (the function and the command) agrees with the boards."""
    moves = players_moves("bakers_dozen", 5)
    async with instance(db_url, min_median_move_ms=200) as client:
        ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
        offline = await new_game(client, ada, variant="bakers_dozen", deal=5)
        untimed = await new_game(client, bob, variant="bakers_dozen", deal=5)
        timed = [{**m, "played_ms": GAP * (i + 1)} for i, m in enumerate(moves)]
        await until_past(offline["created_at"], timed[-1]["played_ms"])
        won = await batch(client, ada, offline["id"], timed)
        assert won["game"]["status"] == "won"
        assert (await batch(client, bob, untimed["id"], moves))["game"]["status"] == "won"

        # each move's events (the move and the automatic moves it set off) keep its time
        played, turn = [], 0
        for e in won["events"]:
            if e["type"] == "CardMoved" and not e["data"]["auto"]:
                turn += 1
            played.append((e["type"], e["data"].get("played_ms")))
        assert turn == len(moves)
        expected, turn = [], 0
        for e in won["events"]:
            turn += e["type"] == "CardMoved" and not e["data"]["auto"]
            expected.append((e["type"], GAP * turn if e["type"] == "CardMoved" else None))
        assert played == expected and expected[-1] == ("GameWon", None)
        log = await get(client, f"/v1/games/{offline['id']}/events")
        assert log["events"][offline["version"]:] == won["events"]

        board = await get(client, "/v1/leaderboards/bakers_dozen/5")
        assert [(e["player"]["name"], e["game_id"]) for e in board["entries"]] == [
            ("ada", offline["id"])]
        everyone = await get(client, "/v1/leaderboards/bakers_dozen/5?assisted=true")
        assert {e["game_id"]: e["verified"] for e in everyone["entries"]} == {
            offline["id"]: True, untimed["id"]: False}

    report = await verify(db_url, min_median_move_ms=200)
    assert report.ok, [str(d) for d in report.differences]
    assert (report.games, report.entries) == (2, 6)  # ada on four boards, bob on two
    run = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "service", "verify"], cwd=ROOT,
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "DATABASE_URL": db_url, "MIN_MEDIAN_MOVE_MS": "200"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().splitlines()[-1] == report.summary()


async def test_times_that_go_back_or_run_ahead_refuse_the_batch(client: TestClient) -> None:
    """FreeCell deal 617, autoplay off: a card from t1 to the cells and from cell to cell."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    gid = game["id"]
    await until_past(game["created_at"], 400)
    first, hop = {"from": "t1", "to": "c1"}, {"from": "c1", "to": "c2"}

    problem = await batch(client, ada, gid, [{**first, "played_ms": 100}, {**hop, "played_ms": 90}],
                          status=422)
    assert problem == refusal(
        1, "played_ms 90 is before move 0 (100 ms after the game's creation): a batch's times"
           " go forward")
    # a move that says no time is timed when the batch is recorded: none may follow it
    problem = await batch(client, ada, gid, [first, {**hop, "played_ms": 100}], status=422)
    assert problem == refusal(
        1, "played_ms 100 follows move 0, which says no time and is timed when the batch is"
           " recorded, after any time a move can say: give the moves before it a played_ms too")
    problem = await batch(client, ada, gid,
                          [{**first, "played_ms": 100}, {**hop, "played_ms": 10_000_000}],
                          status=422)
    arrived = re.fullmatch(r"played_ms 10000000 is after the batch arrived \((\d+) ms after"
                           r" the game's creation\)", problem["detail"].split(": ", 1)[1])
    assert arrived and 400 <= int(arrived[1]) < 10_000_000 and problem["index"] == 1
    # none of them appended anything; malformed times are 400, a single move takes none
    for bad in (-1, 1.5, "100", True):
        await batch(client, ada, gid, [{**first, "played_ms": bad}], status=400)
    r = await client.post(f"/v1/games/{gid}/moves", json={**first, "played_ms": 100},
                          headers=auth(ada))
    assert r.status == 400
    assert (await get(client, f"/v1/games/{gid}"))["version"] == 1

    answer = await batch(client, ada, gid, [{**first, "played_ms": 200}, {**hop, "played_ms": 300}])
    assert [e["data"]["played_ms"] for e in answer["events"]] == [200, 300]
    problem = await batch(client, ada, gid, [{"from": "c2", "to": "c1", "played_ms": 250}],
                          status=422)
    assert problem == refusal(
        0, "played_ms 250 is before the game's previous action (300 ms after the game's"
           " creation): a batch's times go forward")
    # a move that says nothing is timed at its arrival, and the next batch's follow it
    online = (await batch(client, ada, gid, [{"from": "c2", "to": "c3"}]))["events"][0]
    assert "played_ms" not in online["data"]
    arrival = (at(online["at"]) - at(game["created_at"])) // timedelta(milliseconds=1)
    problem = await batch(client, ada, gid, [{"from": "c3", "to": "c4", "played_ms": arrival - 1}],
                          status=422)
    assert problem == refusal(
        0, f"played_ms {arrival - 1} is before the game's previous action ({arrival} ms after"
           " the game's creation): a batch's times go forward")
    answer = await batch(client, ada, gid, [{"from": "c3", "to": "c4", "played_ms": arrival}])
    assert answer["game"]["version"] == 5


async def test_the_previous_action_is_timed_by_the_log_on_every_instance(
    two: tuple[TestClient, TestClient],
) -> None:
    """Instance b reads the time of the last move or undo from the log: when its memory
    has none of the game, and when its memory is a write behind."""
    a, b = two
    ada = await new_player(a)
    game = await new_game(a, ada, deal=617, autoplay=False)
    gid = game["id"]
    await until_past(game["created_at"], 400)
    await batch(a, ada, gid, [{"from": "t1", "to": "c1", "played_ms": 300}])
    problem = await batch(b, ada, gid, [{"from": "c1", "to": "c2", "played_ms": 250}], status=422)
    assert problem == refusal(
        0, "played_ms 250 is before the game's previous action (300 ms after the game's"
           " creation): a batch's times go forward")
    # b keeps the game at version 2; an undo on a, timed at its arrival
    r = await a.post(f"/v1/games/{gid}/undo", json={}, headers=auth(ada))
    assert r.status == 201
    undone = (await r.json())["events"][0]
    arrival = (at(undone["at"]) - at(game["created_at"])) // timedelta(milliseconds=1)
    problem = await batch(b, ada, gid, [{"from": "t1", "to": "c1", "played_ms": 350}], status=422)
    assert problem == refusal(
        0, f"played_ms 350 is before the game's previous action ({arrival} ms after the"
           " game's creation): a batch's times go forward")
    answer = await batch(b, ada, gid, [{"from": "t1", "to": "c1", "played_ms": arrival}])
    assert answer["game"]["version"] == 4


class Skewed(datetime):
    """The service's clock, `by` off the database's (this machine's)."""

    by = timedelta(0)

    @classmethod
    def now(cls, tz: Any = None) -> Any:
        return datetime.now(tz) + cls.by


async def test_times_are_bounded_by_the_databases_clock_not_the_services(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game is timed by the database's clock. A service whose own clock runs 5 s
    ahead refuses a move said to be played after the batch came; one whose clock runs 5 s
    behind takes a move played before it came. A refused write keeps no Idempotency-Key."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url, headers = f"/v1/games/{game['id']}/moves", {**auth(ada), "Idempotency-Key": "offline"}
    await until_past(game["created_at"], 400)
    offline = {"moves": [{"from": "t1", "to": "c1", "played_ms": 1000}]}
    monkeypatch.setattr(write, "datetime", Skewed)
    monkeypatch.setattr(Skewed, "by", timedelta(seconds=5))
    r = await client.post(url, json=offline, headers=headers)
    problem = await r.json()
    assert r.status == 422, problem
    arrived = re.fullmatch(r"played_ms 1000 is after the batch arrived \((\d+) ms after"
                           r" the game's creation\)", problem["detail"].split(": ", 1)[1])
    assert arrived and 400 <= int(arrived[1]) < 1000 and problem["index"] == 0
    assert (await get(client, f"/v1/games/{game['id']}"))["version"] == 1
    monkeypatch.setattr(Skewed, "by", timedelta(seconds=-5))
    await until_past(game["created_at"], 1000)
    r = await client.post(url, json=offline, headers=headers)
    assert r.status == 201, await r.text()
    assert (await r.json())["events"][0]["data"]["played_ms"] == 1000
