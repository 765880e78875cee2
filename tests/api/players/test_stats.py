"""A player's story (API.md, "Grades, standings and a player's story"): GET
/v1/players/{id}/stats, kept as the player plays."""

from __future__ import annotations

import statistics
import uuid
from typing import Any

from aiohttp.test_utils import TestClient

from engine import Move

from ..helpers import auth, hinted_win, new_game, new_player, play_to_win, shortest


async def stats_of(client: TestClient, player: dict[str, Any]) -> dict[str, Any]:
    r = await client.get(f"/v1/players/{player['id']}/stats")
    assert r.status == 200, await r.text()
    body: dict[str, Any] = await r.json()
    return body


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
        # won and win_rate as the record counts them: wins without a hint
        "played": 5, "won": 3, "won_assisted": 1, "win_rate": 0.6,
        # two clean wins, ended by the abandoned game; the hinted win ends the next
        "streak": 1, "best_streak": 2,
        # the best time is the record's: off the hinted win, which goes on no default board
        "best_ms": min(times[:2] + times[3:]), "median_ms": int(statistics.median(times)),
    }  # fmt: skip
    assert body["games"]["bakers_dozen"] == {
        "played": 1, "won": 0, "won_assisted": 0, "win_rate": 0.0, "streak": 0,
        "best_streak": 0, "best_ms": None, "median_ms": None,
    }  # fmt: skip
    record = await (await client.get(f"/v1/players/{ada['id']}")).json()
    assert record["best_times"]["freecell"]["elapsed_ms"] == freecell["best_ms"]
    assert (record["won"], record["won_assisted"]) == (freecell["won"], 1)
    # a player whose one win had a hint: an assisted win, and no best time
    bob = await new_player(client, "bob")
    await hinted_win(client, bob, deal, moves)
    bobs = (await stats_of(client, bob))["games"]["freecell"]
    assert (bobs["won"], bobs["won_assisted"], bobs["win_rate"], bobs["best_ms"]) == (
        0, 1, 0.0, None)
    ended = [wins[0]["id"], wins[1]["id"], gone["id"], wins[2]["id"], wins[3]["id"]]
    assert [g["game_id"] for g in body["recent"]] == ended[::-1]  # newest first
    assert [g["status"] for g in body["recent"]] == ["won", "won", "abandoned", "won", "won"]

    r = await client.get(f"/v1/players/{ada['id']}/stats",
                         headers={"If-None-Match": (await client.get(
                             f"/v1/players/{ada['id']}/stats")).headers["ETag"]})  # fmt: skip
    assert r.status == 304
    assert (await client.get(f"/v1/players/{uuid.uuid4()}/stats")).status == 404
    assert (await client.get("/v1/players/nope/stats")).status == 404
    # `me` is not an id: the refusal says where the caller's own is
    for tail in ("stats", "games"):
        r = await client.get(f"/v1/players/me/{tail}", headers=auth(ada))
        assert r.status == 404 and "GET /v1/players/me gives" in (await r.json())["detail"]


BLOCKS_DEAL_9 = ["t2-c1", "t4-c2", "t2-c3", "t6-c4", "c3-t3", "t8-c3", "c3-t8", "t4-c3"]


async def blocked_game(client: TestClient, player: dict[str, Any]) -> str:
    """A FreeCell game (deal 9, autoplay off) played into a block: its id."""
    game = await new_game(client, player, variant="freecell", deal=9, autoplay=False)
    moves = [Move.parse(m).to_dict() for m in BLOCKS_DEAL_9]
    r = await client.post(f"/v1/games/{game['id']}/moves", json={"moves": moves},
                          headers=auth(player))  # fmt: skip
    assert r.status == 201, await r.text()
    assert (await r.json())["game"]["status"] == "blocked"
    return str(game["id"])


async def streaks(client: TestClient, player: dict[str, Any]) -> tuple[int, int, int, int]:
    """(streak, best_streak) of the stats' FreeCell and (current, longest) of the record."""
    freecell = (await stats_of(client, player))["games"]["freecell"]
    r = await client.get(f"/v1/players/{player['id']}")
    record = await r.json()
    return (freecell["streak"], freecell["best_streak"], record["current_streak"],
            record["longest_streak"])  # fmt: skip


async def test_a_blocked_game_that_an_undo_revives_ends_no_streak(client: TestClient) -> None:
    deal, moves = shortest("freecell")
    ada = await new_player(client)
    await play_to_win(client, ada, "freecell", deal, moves)
    blocked = await blocked_game(client, ada)
    assert await streaks(client, ada) == (0, 1, 0, 1)
    r = await client.post(f"/v1/games/{blocked}/undo", json={}, headers=auth(ada))
    assert r.status == 201 and (await r.json())["game"]["status"] == "playing"
    assert await streaks(client, ada) == (1, 1, 1, 1)  # played again: it ends nothing
    await play_to_win(client, ada, "freecell", deal, moves)
    assert await streaks(client, ada) == (2, 2, 2, 2)


async def test_a_blocked_game_abandoned_later_ends_the_streak_when_abandoned(
    client: TestClient,
) -> None:
    """Blocked, then a win, then the blocked game abandoned: in the order the games
    ended, two wins then the abandoned game."""
    deal, moves = shortest("freecell")
    ada = await new_player(client)
    await play_to_win(client, ada, "freecell", deal, moves)
    blocked = await blocked_game(client, ada)
    await play_to_win(client, ada, "freecell", deal, moves)
    assert await streaks(client, ada) == (1, 1, 1, 1)
    r = await client.post(f"/v1/games/{blocked}/abandon", json={}, headers=auth(ada))
    assert r.status == 201
    assert await streaks(client, ada) == (0, 2, 0, 2)


async def test_a_win_with_a_hint_ends_the_records_streak_as_the_stats(
    client: TestClient,
) -> None:
    deal, moves = shortest("freecell")
    ada = await new_player(client)
    await play_to_win(client, ada, "freecell", deal, moves)
    await hinted_win(client, ada, deal, moves)
    await play_to_win(client, ada, "freecell", deal, moves)
    assert await streaks(client, ada) == (1, 1, 1, 1)
