"""Grades through the HTTP API (API.md, "Grades, standings and a player's story"): a deal
says its grade, a new game and the day's deal may ask for one."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from engine import VARIANTS
from service.deals.grades import GRADES, grades

from ..helpers import auth, new_game, new_player


async def deal_of(client: TestClient, variant: str, deal: int) -> dict[str, Any]:
    r = await client.get(f"/v1/deals/{variant}/{deal}")
    assert r.status == 200, await r.text()
    body: dict[str, Any] = await r.json()
    return body


async def test_a_deal_says_its_grade(client: TestClient) -> None:
    body = await deal_of(client, "freecell", 617)
    assert body["grade"] in GRADES and body["grade"] == grades("freecell").grade(617)
    unsolvable = await deal_of(client, "bakers_game", 10)  # no solution: no grade
    assert unsolvable["solvable"] is False and unsolvable["grade"] is None
    beyond = await deal_of(client, "freecell", 32001)  # not known to be solvable
    assert beyond["solvable"] is None and beyond["grade"] is None


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_a_new_game_of_a_grade(client: TestClient, variant: str) -> None:
    ada = await new_player(client)
    for grade in GRADES:
        game = await new_game(client, ada, variant=variant, grade=grade)
        assert (await deal_of(client, variant, game["deal"]))["grade"] == grade


async def test_a_grade_with_a_deal_or_no_grade_at_all_is_refused(client: TestClient) -> None:
    ada = await new_player(client)
    for body in (
        {"variant": "freecell", "deal": 617, "grade": "easy"},
        {"variant": "freecell", "grade": "impossible"},
        {"variant": "freecell", "grade": 3},
    ):
        r = await client.post("/v1/games", json=body, headers=auth(ada))
        assert r.status == 400, (body, await r.text())
        assert r.content_type == "application/problem+json"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_the_days_deal_of_each_grade(client: TestClient, variant: str) -> None:
    plain = await (await client.get(f"/v1/daily/{variant}")).json()
    assert plain["grade"] == grades(variant).grade(plain["deal"])
    seen = set()
    for grade in GRADES:
        r = await client.get(f"/v1/daily/{variant}", params={"grade": grade})
        assert r.status == 200, await r.text()
        body = await r.json()
        assert body["grade"] == grade == grades(variant).grade(body["deal"])
        assert body["date"] == plain["date"]
        again = await (await client.get(f"/v1/daily/{variant}", params={"grade": grade})).json()
        assert again == body
        seen.add(body["deal"])
        # the day's deal asked with its own grade is the day's deal: one deal of the day
        assert (body["deal"] == plain["deal"]) is (grade == plain["grade"])
    assert len(seen) == len(GRADES)
    r = await client.get(f"/v1/daily/{variant}", params={"grade": "nightmare"})
    assert r.status == 400
    assert "easy, medium, hard or expert" in (await r.json())["detail"]
