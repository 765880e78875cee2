"""A player's story (API.md, "Grades, standings and a player's story"): GET
/v1/players/{id}/stats, kept as the player plays."""

from __future__ import annotations

import statistics
import uuid
from typing import Any

from aiohttp.test_utils import TestClient

from .helpers import auth, new_game, new_player
from .test_leaderboards import play_to_win, shortest


async def stats_of(client: TestClient, player: dict[str, Any]) -> dict[str, Any]:
    r = await client.get(f"/v1/players/{player['id']}/stats")
    assert r.status == 200, await r.text()
    body: dict[str, Any] = await r.json()
    return body


async def hinted_win(client: TestClient, player: dict[str, Any], deal: int,
                     moves: list[Any]) -> dict[str, Any]:  # fmt: skip
    game = await new_game(client, player, variant="freecell", deal=deal, autoplay=False)
    r = await client.post(f"/v1/games/{game['id']}/hint", json={}, headers=auth(player))
    assert r.status == 201, await r.text()
    assert (await r.json())["game"]["assisted"] is True
    for move in moves:
        r = await client.post(f"/v1/games/{game['id']}/moves", json=move.to_dict(),
                              headers=auth(player))  # fmt: skip
        assert r.status == 201, await r.text()
    won: dict[str, Any] = (await r.json())["game"]
    assert won["status"] == "won"
    return won


async def test_a_players_figures_follow_their_games(client: TestClient) -> None:
    deal, moves = shortest("freecell")
    ada = await new_player(client)
    empty = await stats_of(client, ada)
    assert empty == {"player": {"id": ada["id"], "name": "ada"}, "games": {}, "recent": []}

    wins = [await play_to_win(client, ada, "freecell", deal, moves) for _ in range(2)]
    gone = await new_game(client, ada, variant="freecell", deal=deal, autoplay=False)
    r = await client.post(f"/v1/games/{gone['id']}/abandon", json={}, headers=auth(ada))
    assert r.status == 201
    wins.append(await hinted_win(client, ada, deal, moves))
    wins.append(await play_to_win(client, ada, "freecell", deal, moves))
    await new_game(client, ada, variant="bakers_dozen", deal=5)  # begun, not ended

    body = await stats_of(client, ada)
    freecell = body["games"]["freecell"]
    times = [w["elapsed_ms"] for w in wins]
    assert freecell == {
        "played": 5, "won": 4, "won_assisted": 1, "win_rate": 0.8,
        # two clean wins, ended by the abandoned game; the hinted win ends the next
        "streak": 1, "best_streak": 2,
        "best_ms": min(times), "median_ms": int(statistics.median(times)),
    }  # fmt: skip
    assert body["games"]["bakers_dozen"] == {
        "played": 1, "won": 0, "won_assisted": 0, "win_rate": 0.0, "streak": 0,
        "best_streak": 0, "best_ms": None, "median_ms": None,
    }  # fmt: skip
    ended = [wins[0]["id"], wins[1]["id"], gone["id"], wins[2]["id"], wins[3]["id"]]
    assert [g["game_id"] for g in body["recent"]] == ended[::-1]  # newest first
    assert [g["status"] for g in body["recent"]] == ["won", "won", "abandoned", "won", "won"]

    r = await client.get(f"/v1/players/{ada['id']}/stats",
                         headers={"If-None-Match": (await client.get(
                             f"/v1/players/{ada['id']}/stats")).headers["ETag"]})  # fmt: skip
    assert r.status == 304
    assert (await client.get(f"/v1/players/{uuid.uuid4()}/stats")).status == 404
    assert (await client.get("/v1/players/nope/stats")).status == 404
