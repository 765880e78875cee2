"""A won game's standing (API.md, "Grades, standings and a player's story"): its rank on
its deal's default board and of how many winners, in its view, with an ETag that changes
as others win."""

from __future__ import annotations

from datetime import UTC, datetime

from aiohttp.test_utils import TestClient

from service.database.store import EventStore

from ..helpers import auth, hinted_win, new_game, new_player, play_to_win, shortest
from .helpers import record_win

T0 = datetime(2026, 1, 1, tzinfo=UTC)


async def test_a_won_games_standing_follows_the_board(
    client: TestClient,
    store: EventStore,
) -> None:
    deal, moves = shortest("freecell")
    ada = await new_player(client, "ada")
    won = await play_to_win(client, ada, "freecell", deal, moves)
    assert won["standing"] == {"rank": 1, "of": 1}  # the winning move's answer says it too
    url = f"/v1/games/{won['id']}"
    r = await client.get(url)
    assert r.status == 200
    first = await r.json()
    assert first["standing"] == {"rank": 1, "of": 1}
    tag = r.headers["ETag"]
    assert (await client.get(url, headers={"If-None-Match": tag})).status == 304

    # a faster and a slower winner: ada is second of three, and her old tag no longer holds
    for name, elapsed in (("bob", 1), ("cy", 3_600_000)):
        other = await new_player(client, name)
        await record_win(store, other["id"], elapsed, 90, T0, deal=deal)
    r = await client.get(url, headers={"If-None-Match": tag})
    assert r.status == 200
    assert (await r.json())["standing"] == {"rank": 2, "of": 3}
    assert r.headers["ETag"] != tag
    again = await client.get(url, headers={"If-None-Match": r.headers["ETag"]})
    assert again.status == 304

    # the standing's figures are the board's
    board = await (await client.get(f"/v1/leaderboards/freecell/{deal}")).json()
    assert [e["game_id"] for e in board["entries"]].index(won["id"]) == 1
    times = await (await client.get(f"/v1/leaderboards/freecell/{deal}/times")).json()
    assert times["winners"] == 3


async def test_no_standing_off_the_default_board_or_before_the_end(client: TestClient) -> None:
    deal, moves = shortest("freecell")
    ada = await new_player(client, "ada")
    hinted = await hinted_win(client, ada, deal, moves)
    view = await (await client.get(f"/v1/games/{hinted['id']}")).json()
    assert view["status"] == "won" and view["standing"] is None
    playing = await new_game(client, ada, variant="freecell", deal=deal)
    view = await (await client.get(f"/v1/games/{playing['id']}", headers=auth(ada))).json()
    assert "standing" not in view
