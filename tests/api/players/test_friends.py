"""Friends (API.md, "Grades, standings and a player's story"): follow and unfollow by
player id, the list, and the board of a player and those they follow, ranked as the full
board."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
from aiohttp.test_utils import TestClient

from ..helpers import auth, new_player, play_to_win, shortest


async def friends_of(client: TestClient, player: dict[str, Any]) -> list[str]:
    r = await client.get("/v1/players/me/friends", headers=auth(player))
    assert r.status == 200, await r.text()
    return [f["name"] for f in (await r.json())["friends"]]


async def test_follow_unfollow_and_the_list(client: TestClient) -> None:
    ada, bob, cyd = [await new_player(client, n) for n in ("ada", "bob", "cyd")]
    for friend in (cyd, bob, cyd):  # following again changes nothing
        r = await client.put(f"/v1/players/me/friends/{friend['id']}", headers=auth(ada))
        assert r.status == 204, await r.text()
    assert await friends_of(client, ada) == ["cyd", "bob"]
    assert await friends_of(client, bob) == []
    for _ in range(2):  # so does unfollowing
        r = await client.delete(f"/v1/players/me/friends/{cyd['id']}", headers=auth(ada))
        assert r.status == 204
    assert await friends_of(client, ada) == ["bob"]

    nobody = uuid.uuid4()
    r = await client.put(f"/v1/players/me/friends/{nobody}", headers=auth(ada))
    assert r.status == 404
    r = await client.put(f"/v1/players/me/friends/{ada['id']}", headers=auth(ada))
    assert r.status == 422
    assert (await client.put("/v1/players/me/friends/nope", headers=auth(ada))).status == 404
    assert (await client.put(f"/v1/players/me/friends/{bob['id']}")).status == 401
    assert (await client.get("/v1/players/me/friends")).status == 401


async def test_a_player_follows_a_thousand_at_most(client: TestClient, db_url: str) -> None:
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute(
            """WITH made AS (
                   INSERT INTO players (id, name, token_hash, name_key, shape_key, glyph_key)
                   SELECT gen_random_uuid(), 'f' || i, decode(md5('f' || i), 'hex'), 'f' || i,
                          'f' || i, 'f' || i
                   FROM generate_series(1, 1000) AS i RETURNING id)
               INSERT INTO friends (player_id, friend_id) SELECT $1, id FROM made""",
            uuid.UUID(ada["id"]),
        )
    finally:
        await conn.close()
    assert len(await friends_of(client, ada)) == 1000
    r = await client.put(f"/v1/players/me/friends/{bob['id']}", headers=auth(ada))
    assert r.status == 409, await r.text()
    assert "1000" in (await r.json())["detail"]


async def test_the_friends_board_ranks_as_the_full_board(client: TestClient) -> None:
    deal, moves = shortest("freecell")
    players = [await new_player(client, n) for n in ("ada", "bob", "cyd", "dan", "eve")]
    for p in players:
        await play_to_win(client, p, "freecell", deal, moves)
    full = await (await client.get(f"/v1/leaderboards/freecell/{deal}")).json()
    rank_of = {e["player"]["name"]: e["rank"] for e in full["entries"]}
    assert sorted(rank_of.values()) == [1, 2, 3, 4, 5]
    ada = players[0]
    for friend in (players[4], players[2]):
        assert (await client.put(f"/v1/players/me/friends/{friend['id']}",
                                 headers=auth(ada))).status == 204  # fmt: skip

    url = f"/v1/leaderboards/freecell/{deal}?friends=true"
    r = await client.get(url, headers=auth(ada))
    assert r.status == 200, await r.text()
    board = await r.json()
    shown = [(e["player"]["name"], e["rank"]) for e in board["entries"]]
    assert shown == sorted(((n, rank_of[n]) for n in ("ada", "cyd", "eve")),
                           key=lambda pair: pair[1])  # fmt: skip
    assert board["next"] is None
    # pages by cursor, with the same ranks
    first = await (await client.get(f"{url}&limit=2", headers=auth(ada))).json()
    rest = await (await client.get(f"{url}&limit=2&cursor={first['next']}",
                                   headers=auth(ada))).json()  # fmt: skip
    assert [(e["player"]["name"], e["rank"]) for e in first["entries"] + rest["entries"]] == shown
    # a player who follows nobody sees their own entry
    alone = await (await client.get(url, headers=auth(players[1]))).json()
    assert [(e["player"]["name"], e["rank"]) for e in alone["entries"]] == [("bob", rank_of["bob"])]
    assert (await client.get(url)).status == 401
    assert (await client.get(f"{url}&around=me", headers=auth(ada))).status == 400
