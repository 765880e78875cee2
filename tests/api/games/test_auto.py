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


async def test_a_card_in_a_cell_goes_to_another_when_its_foundation_is_not_ready(
    client: TestClient,
) -> None:
    """A card already in a cell, sent to `auto`, goes to its foundation, else to a free
    cell: another one (RULES.md: a card may go from one cell to another, pointless as that
    is), as the legal moves list it; with no other cell free, 422."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}"

    async def move(body: dict[str, object], status: int = 201) -> dict[str, object]:
        r = await client.post(f"{url}/moves", json=body, headers=auth(ada))
        assert r.status == status, (body, await r.text())
        answer: dict[str, object] = await r.json()
        return answer

    await move({"from": "t1", "to": "c"})  # J♦ to c1
    legal = await (await client.get(f"{url}/legal-moves")).json()
    assert {"from": "c1", "to": "c2", "count": 1} in legal["moves"]
    moved = await move({"from": "c1", "to": "auto"})
    assert moved["game"]["state"]["cells"] == [None, "JD", None, None]  # type: ignore[index]
    moved = await move({"card": "JD", "to": "auto"})
    assert moved["game"]["state"]["cells"] == ["JD", None, None, None]  # type: ignore[index]
    for pile in ("t1", "t1", "t1"):  # 4S, 4C, KD fill the other cells
        await move({"from": pile, "to": "c"})
    refused = await move({"card": "JD", "to": "auto"}, 422)
    assert "every other cell is full" in str(refused["detail"]), refused
