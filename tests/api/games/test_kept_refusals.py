"""A write refused by the rules or the game's state keeps its refusal as its key's first
answer (API.md: the same key with the same body returns the first answer again and
appends nothing), even once the game has changed so that the request would pass."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp.test_utils import TestClient

from service.base.keys import BACKEND_KEY

from ..helpers import auth, get, instance, new_game, new_player, post


async def keyed(client: TestClient, player: dict[str, Any], url: str, body: Any,
                key: str) -> tuple[int, dict[str, Any], str | None]:
    r = await client.post(url, json=body, headers={**auth(player), "Idempotency-Key": key})
    return r.status, await r.json(), r.headers.get("Idempotent-Replayed")


async def test_an_undo_refused_is_not_made_by_its_retry_after_a_move(
    client: TestClient,
) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}"
    status, first, replayed = await keyed(client, ada, f"{url}/undo", {}, "undo-1")
    assert (status, replayed) == (409, None) and first["type"].endswith("/nothing-to-undo")
    await post(client, ada, f"{url}/moves", {"from": "t1", "to": "c"})
    # the answer was lost, say, and the app sends the same request again
    status, again, replayed = await keyed(client, ada, f"{url}/undo", {}, "undo-1")
    assert (status, again, replayed) == (409, first, "true")
    assert (await get(client, url))["version"] == 2  # the move stands
    # the key is the refused request's: another body under it is 422
    status, other, _ = await keyed(client, ada, f"{url}/moves", {"from": "t2", "to": "c"},
                                   "undo-1")
    assert status == 422 and "used before for another request" in other["detail"]


async def test_a_batch_refused_keeps_its_problem_and_index(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}/moves"
    batch = {"moves": [{"from": "t1", "to": "c"}, {"from": "t1", "to": "f"}]}
    status, first, _ = await keyed(client, ada, url, batch, "batch-1")
    assert status == 422 and first["index"] == 1, first
    status, again, replayed = await keyed(client, ada, url, batch, "batch-1")
    assert (status, again, replayed) == (422, first, "true")
    assert (await get(client, f"/v1/games/{game['id']}"))["version"] == 1


async def test_one_key_sent_at_once_to_two_instances_gets_one_answer(db_url: str) -> None:
    """A move of a card that a move on the other instance may or may not have freed
    first: whichever the first answer is, 201 or 422, every copy of the request gets it."""
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        for n in range(6):
            game = await new_game(a, ada, deal=617, autoplay=False)
            url = f"/v1/games/{game['id']}/moves"
            tableau = game["state"]["tableau"]
            # t1's card under its top one is free once that top card goes to a cell
            second = {"card": tableau[0][-2], "to": "c"}
            copies = asyncio.gather(*(keyed(c, ada, url, second, f"k{n}") for c in (a, b) * 3))
            await post(b, ada, url, {"from": "t1", "to": "c"})
            answers = await copies
            statuses = {status for status, _, _ in answers}
            assert len(statuses) == 1 and statuses <= {201, 422}, answers
            assert len({str(body) for _, body, _ in answers}) == 1, answers
            log = await get(a, f"/v1/games/{game['id']}")
            assert log["version"] == (3 if statuses == {201} else 2)


async def test_a_retrys_first_answer_keeps_memorys_copy_of_the_game(
    client: TestClient,
) -> None:
    """Nothing is written by a retry given its first answer: the instance keeps its copy
    of the game, and the next read replays no log."""
    backend = client.app[BACKEND_KEY]
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}"
    first = await keyed(client, ada, f"{url}/moves", {"from": "t1", "to": "c"}, "m-1")
    await post(client, ada, f"{url}/moves", {"from": "t2", "to": "c"})
    replayed = backend.logs_replayed
    again = await keyed(client, ada, f"{url}/moves", {"from": "t1", "to": "c"}, "m-1")
    assert again[:2] == first[:2] and again[2] == "true"
    assert (await get(client, url))["version"] == 3
    assert backend.logs_replayed == replayed
