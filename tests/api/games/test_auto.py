"""`"to": "auto"` (API.md, moves the way a player makes them): a pile's free card to its
foundation, else to a free cell; one card, whatever `count` says."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from ..helpers import auth, new_game, new_player


async def test_a_run_to_auto_is_illegal_and_one_card_goes(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617)  # t1: 7D TD TH KD 4C 4S JD
    url = f"/v1/games/{game['id']}"
    for body in ({"from": "t1", "to": "auto", "count": 7},
                 {"moves": [{"from": "t1", "to": "auto", "count": 2}]}):  # fmt: skip
        r = await client.post(f"{url}/moves", json=body, headers=auth(ada))
        assert r.status == 422, (body, await r.text())
        problem = await r.json()
        assert problem["type"].endswith("illegal-move"), problem
        assert "cannot go to 'auto': only a single free card" in problem["detail"], problem
    assert (await (await client.get(url)).json())["version"] == game["version"]
    for count in ({}, {"count": 1}):
        r = await client.post(f"{url}/moves", json={"from": "t1", "to": "auto", **count},
                              headers=auth(ada))  # fmt: skip
        assert r.status == 201, await r.text()
        moved = (await r.json())["events"][0]["data"]
        assert moved["count"] == 1 and moved["to"].startswith("c"), moved
    assert (await r.json())["game"]["state"]["cells"][:2] == ["JD", "4S"]
