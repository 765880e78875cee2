"""Several moves in one request: all or none, one transaction, judged move by move."""

from __future__ import annotations

import asyncio

from aiohttp.test_utils import TestClient

from ..helpers import auth, get, instance, new_game, new_player, shortest
from .helpers import batch

# FreeCell deal 617, autoplay off: t2 -> t3 is K♠ onto K♣, against the rules
ILLEGAL = {"from": "t2", "to": "t3"}


async def test_a_whole_game_in_one_batch(client: TestClient) -> None:
    deal, line = shortest("freecell")
    ada = await new_player(client)
    game = await new_game(client, ada, deal=deal, autoplay=False)
    answer = await batch(client, ada, game["id"], [m.to_dict() for m in line],
                         expected_version=1)
    won = answer["game"]
    assert won["status"] == "won" and won["moves"] == len(line)
    assert won["version"] == 1 + len(answer["events"]) and answer["events"][-1]["type"] == "GameWon"
    log = await get(client, f"/v1/games/{game['id']}/events")
    assert [e["seq"] for e in log["events"][1:]] == [e["seq"] for e in answer["events"]]
    assert won["elapsed_ms"] >= 0 and won["created_at"] == game["created_at"]


async def test_automatic_moves_play_between_the_moves_of_a_batch(client: TestClient) -> None:
    """With autoplay on, a batch appends what the same moves sent one by one append."""
    deal, line = shortest("freecell")
    ada = await new_player(client)
    one_by_one = await new_game(client, ada, deal=deal)
    accepted, events = [], []
    for move in line:  # a line played without autoplay: some of its moves autoplay made
        r = await client.post(f"/v1/games/{one_by_one['id']}/moves", json=move.to_dict(),
                              headers=auth(ada))
        if r.status == 201:
            accepted.append(move.to_dict())
            events += (await r.json())["events"]
    assert any(e["data"].get("auto") for e in events)
    # the first move by its card, as a player picks it up
    first = accepted[0]
    column = one_by_one["state"]["tableau"][int(first["from"][1:]) - 1]
    assert first["from"].startswith("t") and first["count"] == 1
    accepted[0] = {"card": column[-1], "to": first["to"]}
    game = await new_game(client, ada, deal=deal)
    answer = await batch(client, ada, game["id"], accepted)
    assert [(e["type"], e["data"]) for e in answer["events"]] == [
        (e["type"], e["data"]) for e in events]
    assert answer["game"]["status"] == "won"


async def test_the_first_illegal_move_refuses_the_whole_batch(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    problem = await batch(client, ada, game["id"], [{"from": "t1", "to": "c"}, ILLEGAL],
                          status=422)
    assert problem["index"] == 1 and problem["type"].endswith("/illegal-move")
    assert "K♠ cannot go on K♣" in problem["detail"]
    assert (await get(client, f"/v1/games/{game['id']}"))["version"] == 1
    assert len((await get(client, f"/v1/games/{game['id']}/events"))["events"]) == 1


async def test_malformed_batches_are_400(client: TestClient) -> None:
    ada = await new_player(client)
    gid = (await new_game(client, ada, deal=617, autoplay=False))["id"]
    for moves in ([], [{"from": "t1", "to": "c"}] * 501, [{"from": "t1", "card": "AS", "to": "c"}],
                  [{"to": "c"}], "t1c"):
        await batch(client, ada, gid, moves, status=400)  # type: ignore[arg-type]
    problem = await batch(client, ada, gid, [{"from": "t1", "to": "c"}, {"from": "t9", "to": "c"}],
                          status=400)
    assert problem["index"] == 1
    # a card not written as the API writes it, or a field of a move, is the body's fault,
    # the move's place said all the same: the first of them
    for wrong in ({"card": "1X", "to": "c"}, {"from": "t1", "to": "c", "count": 0}):
        problem = await batch(client, ada, gid, [{"from": "t1", "to": "c"}, wrong, wrong],
                              status=400)
        assert problem["index"] == 1 and problem["type"].endswith("/validation"), problem
        assert [e["field"].split(".")[:2] for e in problem["errors"]] == [["moves", "1"],
                                                                         ["moves", "2"]]
    for moves in ([], [{"from": "t1", "to": "c"}] * 501):  # (not a move's fault: no place)
        assert "index" not in await batch(client, ada, gid, moves, status=400)
    r = await client.post(f"/v1/games/{gid}/moves", headers=auth(ada),
                          json={"moves": [{"from": "t1", "to": "c"}], "from": "t1", "to": "c"})
    assert r.status == 400
    assert (await get(client, f"/v1/games/{gid}"))["version"] == 1


async def test_who_may_send_a_batch(client: TestClient) -> None:
    ada, bob = await new_player(client), await new_player(client, "bob")
    gid = (await new_game(client, ada, deal=617, autoplay=False))["id"]
    move = [{"from": "t1", "to": "c"}]
    r = await client.post(f"/v1/games/{gid}/moves", json={"moves": move})
    assert r.status == 401
    await batch(client, bob, gid, move, status=403)
    await batch(client, ada, "6f0c6a44-32c1-4d8e-8f4e-0a8f6f1b2c3d", move, status=404)


async def test_a_stale_version_and_a_finished_game_are_409(client: TestClient) -> None:
    deal, line = shortest("freecell")
    ada = await new_player(client)
    gid = (await new_game(client, ada, deal=deal, autoplay=False))["id"]
    moves = [m.to_dict() for m in line]
    problem = await batch(client, ada, gid, moves[:2], status=409, expected_version=5)
    assert problem["current_version"] == 1
    # a move after the winning one: the whole batch is refused, the win too
    problem = await batch(client, ada, gid, [*moves, moves[0]], status=409)
    assert problem["index"] == len(moves) and problem["type"].endswith("/game-over")
    assert (await get(client, f"/v1/games/{gid}"))["version"] == 1


async def test_idempotency_key_for_a_batch(client: TestClient) -> None:
    ada = await new_player(client)
    gid = (await new_game(client, ada, deal=617, autoplay=False))["id"]
    moves = [{"from": "t1", "to": "c"}, {"from": "t1", "to": "c"}]
    key = {"Idempotency-Key": "batch-1"}
    first = await batch(client, ada, gid, moves, headers=key)
    again = await batch(client, ada, gid, moves, headers=key)
    assert again == first
    assert (await get(client, f"/v1/games/{gid}"))["version"] == first["game"]["version"] == 3
    await batch(client, ada, gid, moves[:1], status=422, headers=key)


async def test_a_batch_past_the_log_limit_is_409_and_appends_nothing(db_url: str) -> None:
    async with instance(db_url, max_game_events=10) as client:
        ada = await new_player(client)
        gid = (await new_game(client, ada, deal=617, autoplay=False))["id"]
        shuffle = [{"from": "t1", "to": "c1"}] + [
            {"from": f"c{1 + j % 2}", "to": f"c{1 + (j + 1) % 2}"} for j in range(9)]
        problem = await batch(client, ada, gid, shuffle, status=409)
        assert problem["type"].endswith("/log-full")
        assert (await get(client, f"/v1/games/{gid}"))["version"] == 1
        await batch(client, ada, gid, shuffle[:9], status=409)  # the last is abandoning's
        await batch(client, ada, gid, shuffle[:8])  # up to the limit but one: 9 events


async def test_a_batch_memory_refuses_is_judged_again_on_the_log(
    two: tuple[TestClient, TestClient],
) -> None:
    a, b = two
    ada = await new_player(a)
    gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
    await get(b, f"/v1/games/{gid}")  # b keeps version 1 in memory
    await batch(a, ada, gid, [{"from": "t1", "to": "c1"}])
    # legal only once t1's card is in c1: b's memory says no, the log says yes
    answer = await batch(b, ada, gid, [{"from": "c1", "to": "c2"}, {"from": "c2", "to": "c3"}])
    assert answer["game"]["version"] == 4


async def test_a_batch_is_all_or_nothing_under_a_concurrent_writer(
    two: tuple[TestClient, TestClient],
) -> None:
    """Two instances race on one game, many times: a batch of cell-to-cell moves on one,
    single moves on the other. The log holds each batch whole or not at all, and every
    answer's events are exactly the log's at their seqs."""
    a, b = two
    ada = await new_player(a)
    for round_ in range(8):
        gid = (await new_game(a, ada, deal=617, autoplay=False))["id"]
        await batch(a, ada, gid, [{"from": "t1", "to": "c1"}])
        await get(b, f"/v1/games/{gid}")
        hops = [{"from": f"c{1 + j % 2}", "to": f"c{1 + (j + 1) % 2}"} for j in range(20)]
        # the single writer moves c1's card elsewhere: the batch is then illegal at once
        single = {"from": "c1", "to": "c4"} if round_ % 2 else {"from": "t2", "to": "c3"}
        ra, rb = await asyncio.gather(
            a.post(f"/v1/games/{gid}/moves", json={"moves": hops}, headers=auth(ada)),
            b.post(f"/v1/games/{gid}/moves", json=single, headers=auth(ada)),
        )
        log = {e["seq"]: e for e in (await get(a, f"/v1/games/{gid}/events"))["events"]}
        landed = 0
        for r in (ra, rb):
            body = await r.json()
            if r.status == 201:
                for event in body["events"]:
                    assert log[event["seq"]]["data"] == event["data"]
                landed += len(body["events"])
            else:
                assert r.status in (409, 422), body
        assert len(log) == 2 + landed
        hopped = [e for e in log.values()
                  if e["data"].get("from", "").startswith("c") and e["data"]["to"] != "c4"]
        assert len(hopped) in (0, 20)
        if hopped:
            seqs = [e["seq"] for e in hopped]
            assert seqs == list(range(seqs[0], seqs[0] + 20))
