"""Hints, analysis, solvable and daily deals through the HTTP API (solver in worker
processes, Freecell Solver's library where installed)."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from engine import VARIANTS, Game, Move
from engine.solver import WINNABLE, solve
from service.deals.table import table
from service.solver.pool import search

from ..helpers import auth, new_game, new_player


async def hint(client: TestClient, player: dict[str, Any], gid: str) -> dict[str, Any]:
    """A hint, asked for as the game's player (a write: it goes on the game's record)."""
    r = await client.post(f"/v1/games/{gid}/hint", json={}, headers=auth(player))
    assert r.status == 201, await r.text()
    body: dict[str, Any] = await r.json()
    assert [e["type"] for e in body["events"]] == ["HintGiven"]
    assert body["events"][0]["seq"] == body["version"] == body["game"]["version"]
    assert body["game"]["assisted"] is True
    return body


async def play(client: TestClient, player: dict[str, Any], gid: str, move: dict[str, Any]) -> Any:
    r = await client.post(f"/v1/games/{gid}/moves", json=move, headers=auth(player))
    assert r.status == 201, await r.text()
    return (await r.json())["game"]


@pytest.mark.parametrize(
    ("variant", "deal", "autoplay"),
    [("freecell", 1, True), ("bakers_game", 6, False), ("beleaguered_castle", 2, True),
     ("bakers_dozen", 5, True)],
)  # fmt: skip
async def test_following_hints_from_the_opening_wins(
    client: TestClient, variant: str, deal: int, autoplay: bool
) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, variant=variant, deal=deal, autoplay=autoplay)
    gid = game["id"]
    left = None
    for _ in range(400):
        if game["status"] == "won":
            break
        h = await hint(client, ada, gid)
        assert h["version"] == game["version"] + 1
        assert h["verdict"] == "winnable" and h["moves_to_win"] >= 1
        # the same line, one player move shorter (automatic moves are not counted)
        assert left is None or h["moves_to_win"] == left - 1, (left, h)
        left = h["moves_to_win"]
        # the hint is a legal move of the position the client sees, and played it keeps
        # the game winnable (checked by the engine's solver, not by the service)
        pos = Game.replay(
            [{"type": e["type"], "data": e["data"]} for e in await events(client, gid)]
        ).position
        assert Move.from_dict(h["move"]) in pos.legal_moves
        game = await play(client, ada, gid, h["move"])
    assert game["status"] == "won" and game["assisted"] is True and game["hints"] >= 1
    assert left == 1
    r = await client.post(f"/v1/games/{gid}/hint", json={}, headers=auth(ada))
    assert r.status == 409
    assert (await r.json())["type"].endswith("/game-over")


async def events(client: TestClient, gid: str) -> list[dict[str, Any]]:
    r = await client.get(f"/v1/games/{gid}/events")
    assert r.status == 200
    found: list[dict[str, Any]] = (await r.json())["events"]
    return found


async def test_a_hint_played_leaves_a_position_the_solver_wins(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, variant="freecell", deal=617, autoplay=False)
    gid = game["id"]
    for _ in range(3):
        h = await hint(client, ada, gid)
        assert h["verdict"] == "winnable"
        game = await play(client, ada, gid, h["move"])
        pos = VARIANTS["freecell"].deal(617)
        for e in await events(client, gid):
            if e["type"] == "CardMoved":
                pos.play(Move(e["data"]["from"], e["data"]["to"], e["data"]["count"]))
        verdict, line, _, _ = search(pos, 10.0)  # the library where installed, else ours
        assert verdict == WINNABLE and line is not None
        for move in line:
            pos.play(move)
        assert pos.is_won
    # undo answers from the cache at once, with the same verdict
    r = await client.post(f"/v1/games/{gid}/undo", json={}, headers=auth(ada))
    assert r.status == 201
    again = await hint(client, ada, gid)
    assert again["verdict"] == "winnable" and again["version"] == game["version"] + 2


async def test_an_unwinnable_position_and_the_analysis_of_its_game(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, variant="freecell", deal=1, autoplay=True)
    gid = game["id"]
    r = await client.get(f"/v1/games/{gid}/analysis")
    assert r.status == 409  # still being played
    seqs = []
    for text in ("t7-c1", "t7-c2", "t1-c3", "t5-c4"):  # four cells filled: lost
        m = Move.parse(text)
        r = await client.post(
            f"/v1/games/{gid}/moves",
            json={"from": m.source, "to": m.target},
            headers=auth(ada),
        )
        assert r.status == 201, await r.text()
        seqs.append((await r.json())["events"][0]["seq"])
    h = await hint(client, ada, gid)
    assert h["verdict"] == "unwinnable" and h["move"] is None and h["moves_to_win"] is None
    r = await client.post(f"/v1/games/{gid}/abandon", json={}, headers=auth(ada))
    assert r.status == 201
    r = await client.get(f"/v1/games/{gid}/analysis")
    assert r.status == 200, await r.text()
    body = await r.json()
    assert body["status"] == "abandoned" and body["complete"] is True
    assert body["lost_at"] == seqs[-1]  # the move that filled the last cell
    judged = {v["seq"]: v["verdict"] for v in body["verdicts"]}
    assert judged[seqs[-1]] == "unwinnable"
    assert all(v == "winnable" for s, v in judged.items() if s < seqs[-1])


async def test_analysis_of_a_game_abandoned_while_winnable(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, variant="bakers_game", deal=3, autoplay=True)
    gid = game["id"]
    for move in ({"from": "t6", "to": "c"}, {"from": "t6", "to": "c"}):  # lost...
        await play(client, ada, gid, move)
    r = await client.post(f"/v1/games/{gid}/undo", json={}, headers=auth(ada))
    assert r.status == 201  # ...and saved by the undo
    r = await client.post(f"/v1/games/{gid}/abandon", json={}, headers=auth(ada))
    assert r.status == 201
    body = await (await client.get(f"/v1/games/{gid}/analysis")).json()
    assert body["lost_at"] is None and body["complete"] is True


async def test_a_won_game_has_no_hint_and_was_never_lost(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, variant="freecell", deal=3, autoplay=False)
    gid = game["id"]
    line = solve(VARIANTS["freecell"].deal(3), max_seconds=10).moves
    assert line is not None
    for move in line:
        game = await play(client, ada, gid, move.to_dict())
    assert game["status"] == "won" and game["assisted"] is False
    r = await client.post(f"/v1/games/{gid}/hint", json={}, headers=auth(ada))
    assert r.status == 409
    # once the game is over anyone may ask, and nothing is recorded
    r = await client.get(f"/v1/games/{gid}/hint")
    assert r.status == 200, await r.text()
    read = await r.json()  # the POST's fields (API.md), its events none
    assert (read["verdict"], read["move"], read["moves_to_win"]) == ("winnable", None, 0)
    assert read["version"] == game["version"] and read["events"] == []
    after = await (await client.get(f"/v1/games/{gid}")).json()
    assert after["version"] == game["version"] and after["hints"] == 0
    body = await (await client.get(f"/v1/games/{gid}/analysis")).json()
    assert body["lost_at"] is None and body["status"] == "won"


async def test_hint_for_an_unknown_game(client: TestClient) -> None:
    r = await client.get("/v1/games/5f0c6a44-32c1-4d8e-8f4e-0a8f6f1b2c3d/hint")
    assert r.status == 404


async def test_deals_say_whether_they_are_solvable(client: TestClient) -> None:
    r = await client.get("/v1/deals/freecell/11982")
    assert (await r.json())["solvable"] is False
    r = await client.get("/v1/deals/freecell/617")
    assert (await r.json())["solvable"] is True
    r = await client.get("/v1/deals/freecell/1000000")
    assert (await r.json())["solvable"] is None
    bg = table("bakers_game")
    lost = min(bg.unsolvable)
    r = await client.get(f"/v1/deals/bakers_game/{lost}")
    assert (await r.json())["solvable"] is False
    ada = await new_player(client)
    # a deal without a solution is played when asked for by number (RULES.md: numbers
    # run from 1 to 2^33 - 1), FreeCell's 11982 too; only random deals are solvable
    for variant, deal in (("freecell", 11982), ("bakers_game", lost),
                          ("beleaguered_castle", 617)):
        assert table(variant).solvable(deal) is False
        r = await client.post(
            "/v1/games", json={"variant": variant, "deal": deal}, headers=auth(ada)
        )
        assert r.status == 201, await r.text()
        assert (await r.json())["deal"] == deal


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_random_deals_are_known_to_be_solvable(client: TestClient, variant: str) -> None:
    ada = await new_player(client)
    for _ in range(5):
        game = await new_game(client, ada, variant=variant)
        assert table(variant).solvable(game["deal"]) is True
        r = await client.get(f"/v1/deals/{variant}/{game['deal']}")
        assert (await r.json())["solvable"] is True


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_the_daily_deal(client: TestClient, variant: str) -> None:
    r = await client.get(f"/v1/daily/{variant}")
    assert r.status == 200, await r.text()
    body = await r.json()
    assert body["variant"] == variant
    assert table(variant).solvable(body["deal"]) is True
    again = await (await client.get(f"/v1/daily/{variant}")).json()
    assert again == body


async def test_the_daily_deal_of_an_unknown_game(client: TestClient) -> None:
    r = await client.get("/v1/daily/klondike")
    assert r.status == 400


async def test_a_deal_without_a_solution_is_lost_from_its_opening(client: TestClient) -> None:
    """FreeCell 11982, which the tables' exhaustive search proved lost: its opening's hint
    says so at once, and the analysis of its game puts the loss at the deal itself."""
    ada = await new_player(client)
    game = await new_game(client, ada, variant="freecell", deal=11982, autoplay=True)
    gid = game["id"]
    h = await hint(client, ada, gid)
    assert h["verdict"] == "unwinnable" and h["move"] is None and h["moves_to_win"] is None
    assert h["solver"] == "table"  # no search: the tables' verdict
    await play(client, ada, gid, {"from": "t1", "to": "c"})
    r = await client.post(f"/v1/games/{gid}/abandon", json={}, headers=auth(ada))
    assert r.status == 201
    r = await client.get(f"/v1/games/{gid}/analysis")
    assert r.status == 200, await r.text()
    body = await r.json()
    assert body["lost_at"] == 1 and body["complete"] is True
    assert {"seq": 1, "verdict": "unwinnable"} in body["verdicts"]
