"""Leaderboards and players' records through the HTTP API.

Real wins are Freecell Solver's solutions from tests/data/solutions.json, played move by
move with autoplay off. Boards with many players are made by recording wins through the
event store (record_events, as the service does) for players made through the API.
"""

from __future__ import annotations

import base64
import uuid
from datetime import UTC, datetime

from aiohttp.test_utils import TestClient

from service.database.store import EventStore

from ..helpers import auth, get, new_game, new_player, play_to_win, shortest
from .helpers import record_win

T0 = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


async def test_a_game_won_through_the_api_is_on_the_board(client: TestClient) -> None:
    ada = await new_player(client, "ada")
    deal, moves = shortest("freecell")
    game = await play_to_win(client, ada, "freecell", deal, moves)
    stored = await get(client, f"/v1/games/{game['id']}")
    created, finished = at(stored["created_at"]), at(stored["finished_at"])
    elapsed = int((finished - created).total_seconds() * 1000)
    assert stored["elapsed_ms"] == elapsed

    board = await get(client, f"/v1/leaderboards/freecell/{deal}")
    assert board["next"] is None
    [entry] = board["entries"]
    assert entry["rank"] == 1
    assert entry["player"] == {"id": ada["id"], "name": "ada"}
    assert entry["game_id"] == game["id"]
    assert entry["elapsed_ms"] == elapsed
    assert entry["moves"] == len(moves) == stored["moves"]
    assert entry["undos"] == 0
    assert at(entry["finished_at"]) == finished

    mine = await get(client, f"/v1/leaderboards/freecell/{deal}?around=me", headers=auth(ada))
    assert mine["rank"] == 1 and mine["me"] == entry and mine["entries"] == [entry]

    # other deals and variants have boards of their own
    assert (await get(client, f"/v1/leaderboards/freecell/{deal + 1}"))["entries"] == []
    assert (await get(client, f"/v1/leaderboards/bakers_game/{deal}"))["entries"] == []

    record = await get(client, f"/v1/players/{ada['id']}")
    assert (record["games_played"], record["won"], record["win_rate"]) == (1, 1, 1.0)
    assert (record["current_streak"], record["longest_streak"]) == (1, 1)
    assert record["won_deals"] == {"freecell": [deal]}
    best = record["best_times"]["freecell"]
    assert (best["elapsed_ms"], best["deal"], best["game_id"]) == (elapsed, deal, game["id"])

    games = await get(client, f"/v1/players/{ada['id']}/games")
    [summary] = games["games"]
    assert games["next"] is None
    assert summary["id"] == game["id"] and summary["status"] == "won"
    assert summary["elapsed_ms"] == elapsed and summary["foundation_cards"] == 52


async def test_a_slower_win_keeps_the_better_entry_and_undos_are_kept(
    client: TestClient,
) -> None:
    ada = await new_player(client, "ada")
    deal, moves = shortest("bakers_dozen")
    first = await play_to_win(client, ada, "bakers_dozen", deal, moves)
    # the same deal again, with a move taken back and played again: a longer game
    game = await new_game(client, ada, variant="bakers_dozen", deal=deal, autoplay=False)
    gid = game["id"]
    for i, move in enumerate(moves):
        r = await client.post(f"/v1/games/{gid}/moves", json=move.to_dict(), headers=auth(ada))
        assert r.status == 201, await r.text()
        if i == 3:
            r = await client.post(f"/v1/games/{gid}/undo", json={}, headers=auth(ada))
            assert r.status == 201
            r = await client.post(f"/v1/games/{gid}/redo", json={}, headers=auth(ada))
            assert r.status == 201
    second = (await r.json())["game"]
    assert second["status"] == "won" and second["undos"] == 1
    board = await get(client, f"/v1/leaderboards/bakers_dozen/{deal}")
    [entry] = board["entries"]
    faster = min((first, second), key=lambda g: (g["elapsed_ms"], g["moves"], g["finished_at"]))
    assert entry["game_id"] == faster["id"]
    assert entry["elapsed_ms"] == faster["elapsed_ms"]
    assert entry["undos"] == faster["undos"]
    record = await get(client, f"/v1/players/{ada['id']}")
    assert record["won"] == 2 and record["won_deals"] == {"bakers_dozen": [deal]}
    assert record["current_streak"] == 2


async def test_pages_by_cursor_and_around_me(client: TestClient, store: EventStore) -> None:
    players = []
    for i in range(14):
        p = await new_player(client, f"p{i:02}")
        await record_win(store, p["id"], 60_000 + 1000 * (i // 2), 90 - i % 2, T0)
        players.append(p)
    order = [f"p{i ^ 1:02}" for i in range(14)]  # fewer moves first within each time
    names: list[str] = []
    url: str | None = "/v1/leaderboards/freecell/617?limit=4"
    ranks: list[int] = []
    while url:
        page = await get(client, url)
        names += [e["player"]["name"] for e in page["entries"]]
        ranks += [e["rank"] for e in page["entries"]]
        url = page["next"] and f"/v1/leaderboards/freecell/617?limit=4&cursor={page['next']}"
        if url:  # a new win between pages, ahead of everyone (each newcomer their own name)
            newcomer = await new_player(client, f"newcomer {len(names)}")
            await record_win(store, newcomer["id"], 1_000, 50, T0)
    assert names == order and ranks == list(range(1, 15))

    around = await get(
        client, "/v1/leaderboards/freecell/617?around=me", headers=auth(players[6])
    )
    # the three newcomers are ahead of everyone: p06 is 8th of the fourteen, 11th in all
    assert around["rank"] == 11 and around["me"]["player"]["name"] == "p06"
    assert [e["rank"] for e in around["entries"]] == list(range(6, 17))
    assert [e["player"]["name"] for e in around["entries"]] == order[2:13]
    rest = await get(client, f"/v1/leaderboards/freecell/617?cursor={around['next']}")
    assert [e["player"]["name"] for e in rest["entries"]] == ["p12"]
    assert rest["entries"][0]["rank"] == 17 and rest["next"] is None
    # the ranks a page counts from are the service's: a cursor given another rank is 400,
    # not a page that shows p12 first
    text = base64.urlsafe_b64decode(around["next"] + "==").decode().split(":")
    text[-2] = "0"
    forged = base64.urlsafe_b64encode(":".join(text).encode()).decode().rstrip("=")
    r = await client.get(f"/v1/leaderboards/freecell/617?cursor={forged}")
    assert r.status == 400, await r.text()
    # and a board's cursor is no other board's: another deal, variant or kind
    for other in ("freecell/618?", "bakers_game/617?", "freecell/617?no_undo=true&",
                  "freecell/617?assisted=true&"):
        r = await client.get(f"/v1/leaderboards/{other}cursor={around['next']}")
        assert r.status == 400, (other, await r.text())
        assert "not given by this board" in (await r.json())["detail"], other


async def test_bad_requests(client: TestClient, store: EventStore) -> None:
    from tests.openapi_check import unchecked

    ada = await new_player(client, "ada")
    for url, status in [
        ("/v1/leaderboards/spider/1", 400),
        ("/v1/leaderboards/freecell/abc", 400),
        ("/v1/leaderboards/freecell/0", 422),
        ("/v1/leaderboards/freecell/-3", 422),
        ("/v1/leaderboards/freecell/8589934592", 422),
        ("/v1/leaderboards/freecell/1?limit=0", 400),
        ("/v1/leaderboards/freecell/1?limit=101", 400),
        ("/v1/leaderboards/freecell/1?cursor=nonsense", 400),
        ("/v1/leaderboards/freecell/1?around=you", 400),
        ("/v1/leaderboards/freecell/1?around=me", 401),
        (f"/v1/players/{uuid.uuid4()}", 404),
        ("/v1/players/ada", 404),
        (f"/v1/players/{uuid.uuid4()}/games", 404),
        (f"/v1/players/{ada['id']}/games?cursor=nonsense", 400),
        # the other lists' way to page (a log's `after`), or other APIs' (`offset`, `page`),
        # is a slip, not the first page again
        ("/v1/leaderboards/freecell/1?after=20", 400),
        (f"/v1/players/{ada['id']}/games?after=20", 400),
        ("/v1/leaderboards/freecell/1?limit=100&offset=50", 400),
        ("/v1/leaderboards/freecell/1?page=2", 400),
        (f"/v1/players/{ada['id']}/games?offset=20", 400),
    ]:
        r = await client.get(url)
        assert r.status == status, (url, await r.text())
        assert r.content_type == "application/problem+json"
        problem = await r.json()
        assert problem["status"] == status and problem["detail"]
    # 8589934591 is the last deal there is: its board exists (and is empty)
    assert (await get(client, "/v1/leaderboards/freecell/8589934591"))["entries"] == []
    r = await client.get("/v1/leaderboards/freecell/1?around=me", headers=auth({"token": "x"}))
    assert r.status == 401
    r = await client.get("/v1/leaderboards/freecell/1?around=me", headers=auth(ada))
    assert r.status == 404
    assert "no entry" in (await r.json())["detail"]
    # no route writes a time: the board is read-only
    with unchecked():
        r = await client.post("/v1/leaderboards/freecell/1", json={"elapsed_ms": 1})
    assert r.status == 405


async def test_winning_times_in_bins(client: TestClient) -> None:
    """A deal nobody won has no bins; a win puts its time in the bins of the default
    board (answer checked against openapi.yaml), with an ETag."""
    deal, moves = shortest("freecell")
    r = await client.get(f"/v1/leaderboards/freecell/{deal}/times")
    assert r.status == 200, await r.text()
    assert await r.json() == {"variant": "freecell", "deal": deal, "winners": 0, "bins": []}
    ada = await new_player(client)
    game = await play_to_win(client, ada, "freecell", deal, moves)
    r = await client.get(f"/v1/leaderboards/freecell/{deal}/times")
    body = await r.json()
    assert body["winners"] == 1 and len(body["bins"]) == 1
    (only,) = body["bins"]
    assert only["count"] == 1 and only["from_ms"] <= game["elapsed_ms"] < only["to_ms"]
    assert only["to_ms"] - only["from_ms"] == 10_000
    again = await client.get(f"/v1/leaderboards/freecell/{deal}/times",
                             headers={"If-None-Match": r.headers["ETag"]})  # fmt: skip
    assert again.status == 304
    assert (await client.get("/v1/leaderboards/freecell/0/times")).status == 422
