"""Trustworthy records: every instance judges by the log, hints and undos are on the
record, boards that a solver or a script cannot top, one clock for every instance."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

from aiohttp.test_utils import TestClient

from engine import VARIANTS, Game, Move
from engine.solver import solve
from service.base.backend import GameCache
from service.base.keys import BACKEND_KEY
from service.games.live_game import LiveGame

from ..helpers import auth, get, instance, new_game, new_player, post, shortest


async def test_moves_undos_and_redos_alternating_between_instances_are_never_refused(
    two: tuple[TestClient, TestClient],
) -> None:
    """FreeCell deal 5, autoplay off, a winning line, each request through the other
    instance than the one before, none with expected_version: every one is legal on the
    log, so every one is a 201, though each instance's memory is a step behind."""
    a, b = two
    ada = await new_player(a)
    game = await new_game(a, ada, variant="freecell", deal=5, autoplay=False)
    gid = game["id"]
    line = solve(VARIANTS["freecell"].deal(5), max_seconds=20).moves
    assert line is not None
    clients = [b, a]
    turn = 0

    def nxt() -> TestClient:
        nonlocal turn
        turn += 1
        return clients[turn % 2]

    for i, move in enumerate(line):
        # both instances read the game now and then, so each has a copy in memory
        if i % 7 == 0:
            await get(a, f"/v1/games/{gid}")
            await get(b, f"/v1/games/{gid}")
        answer = await post(nxt(), ada, f"/v1/games/{gid}/moves", move.to_dict())
        if i % 5 == 2:
            await post(nxt(), ada, f"/v1/games/{gid}/undo")
            await post(nxt(), ada, f"/v1/games/{gid}/redo")
            answer = await post(nxt(), ada, f"/v1/games/{gid}/undo")
            answer = await post(nxt(), ada, f"/v1/games/{gid}/moves", move.to_dict())
    game = answer["game"]
    assert game["status"] == "won" and game["moves"] == len(line)
    # one clock: both instances tell the same times, from the database's
    seen = [await get(c, f"/v1/games/{gid}") for c in (a, b)]
    times = {(g["created_at"], g["finished_at"], g["elapsed_ms"], g["version"]) for g in seen}
    assert times == {(game["created_at"], game["finished_at"], game["elapsed_ms"],
                      game["version"])}
    assert game["elapsed_ms"] >= 0
    created, finished = (datetime.fromisoformat(game[k]) for k in ("created_at", "finished_at"))
    assert game["elapsed_ms"] == int((finished - created).total_seconds() * 1000)
    events = (await get(b, f"/v1/games/{gid}/events"))["events"]
    assert events[0]["at"] == game["created_at"] and events[-1]["at"] == game["finished_at"]
    board = await get(a, "/v1/leaderboards/freecell/5")
    assert board["entries"][0]["elapsed_ms"] == game["elapsed_ms"]


async def test_an_illegal_move_is_still_refused_after_the_log_is_read(
    two: tuple[TestClient, TestClient],
) -> None:
    a, b = two
    ada = await new_player(a)
    game = await new_game(a, ada, deal=617, autoplay=False)
    gid = game["id"]
    await get(b, f"/v1/games/{gid}")
    await post(a, ada, f"/v1/games/{gid}/moves", {"from": "t1", "to": "c"})
    # illegal on the log too: 422 with the rule, and nothing appended
    problem = await post(b, ada, f"/v1/games/{gid}/moves", {"from": "t2", "to": "t1"},
                         status=422)
    assert problem["type"].endswith("/illegal-move")
    assert (await get(b, f"/v1/games/{gid}"))["version"] == 2
    # a stale expected_version is a 409 naming the log's version, from either instance
    problem = await post(b, ada, f"/v1/games/{gid}/undo", {"expected_version": 1}, status=409)
    assert problem["current_version"] == 2
    # the version the client saw, ahead of what this instance holds: judged on the log
    await get(a, f"/v1/games/{gid}")
    await post(b, ada, f"/v1/games/{gid}/undo", {"expected_version": 2})
    await post(a, ada, f"/v1/games/{gid}/redo", {"expected_version": 3})


def test_the_cache_never_goes_back() -> None:
    cache = GameCache(10)
    gid = uuid.uuid4()
    now = datetime.now(UTC)
    old = Game.replay([{"type": "GameCreated", "data": {"variant": "freecell", "deal": 1}}])
    new = old.copy()
    new.play(Move.parse("t1-c1"))
    newer = LiveGame(new, uuid.uuid4(), now, None)
    assert cache.put(gid, newer) is newer
    # a read that started before the write and ends after it puts its older copy back
    assert cache.put(gid, LiveGame(old, newer.player_id, now, None)) is newer
    assert cache.get(gid) is newer and cache.get(gid).game.version == 2  # type: ignore[union-attr]


async def test_a_read_racing_writes_never_makes_memory_go_back(
    two: tuple[TestClient, TestClient],
) -> None:
    a, b = two
    ada = await new_player(a)
    game = await new_game(a, ada, deal=617, autoplay=False)
    gid = game["id"]
    legal = (await get(a, f"/v1/games/{gid}/legal-moves"))["moves"]
    for move in legal[:6]:
        # a read on a and a write on a at once, then a write on b: a's next write is judged
        # on what a holds (or the log), never on an older copy
        write = post(a, ada, f"/v1/games/{gid}/moves", move)
        reads = [get(a, f"/v1/games/{gid}") for _ in range(3)]
        await asyncio.gather(write, *reads)
        await post(b, ada, f"/v1/games/{gid}/undo")
        await post(a, ada, f"/v1/games/{gid}/redo")
        await post(b, ada, f"/v1/games/{gid}/undo")
    assert (await get(a, f"/v1/games/{gid}"))["moves"] == 0


async def test_hints_are_writes_on_the_game_record(client: TestClient) -> None:
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    game = await new_game(client, ada, deal=617, autoplay=True)
    gid = game["id"]
    url = f"/v1/games/{gid}/hint"
    r = await client.post(url, json={})
    assert r.status == 401
    problem = await post(client, bob, url, status=403)
    assert "another player" in problem["detail"]
    r = await client.get(url)
    assert r.status == 409 and "POST" in (await r.json())["detail"]
    first = await post(client, ada, url, **{"Idempotency-Key": "hint-1"})
    again = await post(client, ada, url, **{"Idempotency-Key": "hint-1"})
    assert again == first
    assert first["verdict"] == "winnable" and first["moves_to_win"] >= 1
    assert first["version"] == game["version"] + 1 == first["game"]["version"]
    [event] = first["events"]
    assert event["type"] == "HintGiven" and event["seq"] == first["version"]
    assert event["data"] == {"verdict": first["verdict"], "move": first["move"],
                             "moves_to_win": first["moves_to_win"]}
    now = await get(client, f"/v1/games/{gid}")
    assert (now["hints"], now["assisted"], now["version"]) == (1, True, first["version"])
    log = (await get(client, f"/v1/games/{gid}/events"))["events"]
    assert [e["type"] for e in log].count("HintGiven") == 1
    # the hinted move is legal and the game replays from its log with the hint in it
    await post(client, ada, f"/v1/games/{gid}/moves", first["move"])
    replayed = Game.replay([{"type": e["type"], "data": e["data"]}
                            for e in (await get(client, f"/v1/games/{gid}/events"))["events"]])
    assert replayed.hints == 1 and replayed.assisted
    # a stale expected_version is a 409, and records nothing
    problem = await post(client, ada, url, {"expected_version": 1}, status=409)
    assert problem["current_version"] > 1
    assert (await get(client, f"/v1/games/{gid}"))["hints"] == 1


async def test_a_retried_hint_gets_its_first_answer_once_the_game_is_over(
    client: TestClient,
) -> None:
    """A hint's Idempotency-Key is kept as a move's is: a retry that finds the game over
    (or moved on) gets the first answer again, not a 409; the key with another body is a
    422, as on /moves; and the retries record nothing."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    gid = game["id"]
    url = f"/v1/games/{gid}/hint"
    key = {"Idempotency-Key": "hint-then-abandon"}
    first = await post(client, ada, url, **key)
    await post(client, ada, f"/v1/games/{gid}/abandon")
    version = (await get(client, f"/v1/games/{gid}"))["version"]
    assert await post(client, ada, url, **key) == first
    problem = await post(client, ada, url, {"expected_version": first["version"]}, status=422,
                         **key)
    assert "Idempotency-Key" in problem["detail"]
    problem = await post(client, ada, url, status=409)  # a new request: the game is over
    assert problem["type"].endswith("/game-over")
    after = await get(client, f"/v1/games/{gid}")
    assert (after["version"], after["hints"]) == (version, 1)


async def _win(client: TestClient, player: dict[str, Any], deal: int, line: list[Move],
               *, hint: bool = False, undo: bool = False, pause: float = 0.0) -> dict[str, Any]:
    game = await new_game(client, player, variant="freecell", deal=deal, autoplay=False)
    gid = game["id"]
    if hint:
        await post(client, player, f"/v1/games/{gid}/hint")
    for i, move in enumerate(line):
        if pause:
            await asyncio.sleep(pause)
        answer = await post(client, player, f"/v1/games/{gid}/moves", move.to_dict())
        if undo and i == 3:
            await post(client, player, f"/v1/games/{gid}/undo")
            answer = await post(client, player, f"/v1/games/{gid}/redo")
    game = answer["game"]
    assert game["status"] == "won"
    return game  # type: ignore[no-any-return]


def _board(page: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["player"]["name"]: e for e in page["entries"]}


async def test_hinted_undone_and_clean_wins_land_on_their_boards(client: TestClient) -> None:
    deal, line = shortest("freecell")
    ada, bob, cy = [await new_player(client, n) for n in ("ada", "bob", "cy")]
    clean = await _win(client, ada, deal, line)
    undone = await _win(client, bob, deal, line, undo=True)
    hinted = await _win(client, cy, deal, line, hint=True)
    assert (clean["assisted"], undone["undos"], hinted["assisted"]) == (False, 1, True)
    base = f"/v1/leaderboards/freecell/{deal}"
    default = _board(await get(client, base))
    assert set(default) == {"ada", "bob"}
    assert default["bob"]["undos"] == 1 and default["ada"]["undos"] == 0
    assert not any(e["assisted"] for e in default.values())
    assert set(_board(await get(client, f"{base}?no_undo=true"))) == {"ada"}
    everyone = _board(await get(client, f"{base}?assisted=true"))
    assert set(everyone) == {"ada", "bob", "cy"}
    assert everyone["cy"]["assisted"] is True and everyone["cy"]["game_id"] == hinted["id"]
    assert all(e["verified"] for e in everyone.values())
    both = _board(await get(client, f"{base}?assisted=true&no_undo=true"))
    assert set(both) == {"ada", "cy"}
    for query in ("assisted=maybe", "no_undo=true&no_undo=false"):  # (which is meant?)
        r = await client.get(f"{base}?{query}")
        assert r.status == 400, (query, await r.text())
    record = await get(client, f"/v1/players/{cy['id']}")
    assert (record["won"], record["won_assisted"]) == (0, 1)
    assert record["best_times"] == {} and record["won_deals"] == {}
    record = await get(client, f"/v1/players/{ada['id']}")
    assert (record["won"], record["won_assisted"]) == (1, 0)


async def test_a_win_faster_than_a_hand_is_unverified(db_url: str) -> None:
    deal, line = shortest("bakers_game")
    base = f"/v1/leaderboards/bakers_game/{deal}"

    async def win(client: TestClient, player: dict[str, Any], pause: float) -> dict[str, Any]:
        game = await new_game(client, player, variant="bakers_game", deal=deal, autoplay=False)
        for move in line:
            await asyncio.sleep(pause)
            answer = await post(client, player, f"/v1/games/{game['id']}/moves", move.to_dict())
        assert answer["game"]["status"] == "won"
        return answer["game"]  # type: ignore[no-any-return]

    async with instance(db_url, min_median_move_ms=200) as strict:  # the default
        bot = await new_player(strict, "bot")
        fast = await win(strict, bot, 0.0)
        assert (await get(strict, base))["entries"] == []
        [entry] = (await get(strict, f"{base}?assisted=true"))["entries"]
        assert entry["game_id"] == fast["id"] and entry["verified"] is False
        assert entry["assisted"] is False
    async with instance(db_url, min_median_move_ms=20) as paced:
        ada = await new_player(paced, "ada")
        slow = await win(paced, ada, 0.025)
        [entry] = (await get(paced, base))["entries"]
        assert entry["game_id"] == slow["id"] and entry["verified"] is True


async def test_batched_writes_of_two_instances_racing_on_the_same_games_lose_nothing(
    db_url: str,
) -> None:
    """Two instances with one write lane each (so writes that arrive together go in one
    statement), the same moves sent through both at once on twelve games: for each, one
    instance's write lands and the other's is judged again on the log (a batch holding a
    collision appends nothing and its writes go again one by one). Every 201's events are
    in the log, once, in order, with no gap; nothing else is."""
    a, b = instance(db_url, write_lanes=1), instance(db_url, write_lanes=1)
    async with a, b:
        ada = await new_player(a)
        games = [(await new_game(a, ada, variant="freecell", deal=617, autoplay=False))["id"]
                 for _ in range(12)]  # fmt: skip
        for gid in games:  # both hold the games in memory
            await get(b, f"/v1/games/{gid}")
        accepted: dict[str, list[dict[str, Any]]] = {gid: [] for gid in games}
        moves = [{"from": "t1", "to": "c1"}, {"from": "c1", "to": "c2"},
                 {"from": "c2", "to": "c3"}, {"from": "c3", "to": "c4"}]  # fmt: skip
        for move in moves:
            sends = [(c, gid) for gid in games for c in (a, b)]
            answers = await asyncio.gather(*(
                c.post(f"/v1/games/{gid}/moves", json=move, headers=auth(ada))
                for c, gid in sends
            ))  # fmt: skip
            statuses: dict[str, list[int]] = {gid: [] for gid in games}
            for (_c, gid), r in zip(sends, answers, strict=True):
                body = await r.json()
                statuses[gid].append(r.status)
                if r.status == 201:
                    accepted[gid].extend(body["events"])
            # the same move twice: the first to land is taken, the other is illegal after it
            assert all(sorted(s) == [201, 422] for s in statuses.values()), statuses
        batched = sum(c.app[BACKEND_KEY].store.batched_writes for c in (a, b))
        assert batched > 0, "no write went in a batch: the test shows nothing"
        for gid in games:
            log = (await get(a, f"/v1/games/{gid}/events"))["events"][1:]
            assert [e["seq"] for e in log] == list(range(2, 2 + len(moves)))
            assert [(e["seq"], e["data"]) for e in accepted[gid]] == [
                (e["seq"], e["data"]) for e in log
            ]
