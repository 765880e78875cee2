"""Moves of one game sent at once to two instances, none with `expected_version`: each is
judged on the position the ones committed before it left, and none is refused for
another's write (API.md: 409 only when `expected_version` is not the current version).

An instance whose copy of the game is current writes in one round trip; the other reads
the log first, and lost to it again and again. After two such losses a write reads, judges
and commits under the game's locks (service/games/write.py, lock_game in
migrations/sql/0023_record_events.sql), in the order every write takes them: no deadlock,
a race's games and the race's end included."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from aiohttp.test_utils import TestClient

from ..helpers import auth, db_value, get, instance, new_game, new_player, post
from ..races.helpers import call, new_race, until


async def deadlocks(db_url: str) -> int:
    """The deadlocks PostgreSQL has found in the test's database so far."""
    found: int = await db_value(
        db_url, "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
    )
    return found


async def to_and_fro(client: TestClient, player: dict[str, Any], gid: str, card: str,
                     n: int) -> list[dict[str, Any]]:
    """`n` moves of `card` from its cell to another: legal on every position the game
    passes through while it is played. Each answer's status, and its problem's type."""
    seen = []
    for _ in range(n):
        r = await client.post(f"/v1/games/{gid}/moves", json={"card": card, "to": "c"},
                              headers=auth(player))
        body = await r.json()
        seen.append({"status": r.status, "type": body.get("type", "").rsplit("/", 1)[-1]})
    return seen


async def test_moves_sent_at_once_to_two_instances_all_land(db_url: str) -> None:
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        card = game["state"]["tableau"][0][-1]
        await post(a, ada, f"/v1/games/{game['id']}/moves", {"from": "t1", "to": "c"})
        answers = await asyncio.gather(
            *(to_and_fro(c, ada, game["id"], card, 40) for c in (a, b, a, b))
        )
        statuses = Counter(answer["status"] for each in answers for answer in each)
        assert statuses == Counter({201: 160}), statuses
        assert (await get(b, f"/v1/games/{game['id']}"))["version"] == 2 + 160
    assert await deadlocks(db_url) == 0


async def test_a_races_games_moved_on_two_instances_until_its_end_never_deadlock(
    db_url: str,
) -> None:
    """Two racers' games, each moved at once on both instances while the race's time runs
    out (its end abandons them, taking the race's row, then theirs): every move lands
    until the end, and is refused as the race's after it."""
    # a race's minute lasts 1.5 s here; each instance looks for due races every 0.1 s
    a = instance(db_url, race_minute_s=1.5, race_tick_s=0.1)
    b = instance(db_url, race_minute_s=1.5, race_tick_s=0.1)
    async with a, b:
        ada, bob = await new_player(a, "ada"), await new_player(a, "bob")
        race = await new_race(a, ada, deal=617, autoplay=False, max_players=2, max_minutes=1)
        rid = race["id"]
        await call(b, "POST", f"/v1/races/{rid}/join", bob)
        await until(race["starts_at"], 0.05)
        running = await call(a, "GET", f"/v1/races/{rid}")
        games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
        racers = {"ada": ada, "bob": bob}
        first = await call(a, "GET", f"/v1/games/{games['ada']}")
        card = first["state"]["tableau"][0][-1]
        for name, gid in games.items():
            await call(a, "POST", f"/v1/games/{gid}/moves", racers[name],
                       {"from": "t1", "to": "c"}, 201)
        answers = await asyncio.gather(*(
            to_and_fro(c, racers[name], gid, card, 200)
            for name, gid in games.items() for c in (a, b)
        ))
        assert (await call(a, "GET", f"/v1/races/{rid}"))["status"] == "over"
        for name, gid in games.items():
            mine = [x for i, each in enumerate(answers) if i // 2 == list(games).index(name)
                    for x in each]
            kinds = Counter((x["status"], x["type"]) for x in mine)
            assert set(kinds) <= {(201, ""), (409, "race-over")}, kinds
            assert kinds[(409, "race-over")] > 0, "the race ended after all the moves"
            log = await call(b, "GET", f"/v1/games/{gid}")
            # created, the first move, each move that landed, and the race's abandon
            assert log["version"] == 2 + kinds[(201, "")] + 1
            assert log["status"] == "abandoned"
    assert await deadlocks(db_url) == 0


async def test_keyed_moves_sent_twice_to_two_instances_among_others_never_deadlock(
    db_url: str,
) -> None:
    """Each keyed move is sent to one instance and, while it is in flight, with the same
    key to the other (an app that retries through another address), among unkeyed moves of
    the same game on both: every writer of the game takes its locks in one order (its
    race's row, the game's, then its key), so none deadlocks, and each key acts once."""
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        gid = game["id"]
        url = f"/v1/games/{gid}/moves"
        card = game["state"]["tableau"][0][-1]
        await post(a, ada, url, {"from": "t1", "to": "c"})
        move = {"card": card, "to": "c"}

        async def twice(n: int) -> list[tuple[int, str]]:
            seen = []
            for i in range(n):
                headers = {**auth(ada), "Idempotency-Key": f"k{n}-{i}"}
                first = asyncio.create_task(a.post(url, json=move, headers=headers))
                await asyncio.sleep(0.002 * (i % 5))
                second = await b.post(url, json=move, headers=headers)
                for r in (await first, second):
                    seen.append((r.status, await r.text()))
            return seen

        answers = await asyncio.gather(
            *(twice(n) for n in (20, 21, 22)),
            *(to_and_fro(c, ada, gid, card, 20) for c in (a, b, a, b)),
        )
        keyed = [x for each in answers[:3] for x in each]
        plain = [x for each in answers[3:] for x in each]
        statuses = Counter(s for s, _ in keyed) + Counter(x["status"] for x in plain)
        assert statuses == Counter({201: 2 * 63 + 80}), statuses
        # each key's two answers are one: its write, made once
        assert all(keyed[i][1] == keyed[i + 1][1] for i in range(0, len(keyed), 2))
        assert (await get(b, f"/v1/games/{gid}"))["version"] == 2 + 63 + 80
    assert await deadlocks(db_url) == 0
