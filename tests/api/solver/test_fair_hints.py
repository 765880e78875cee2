"""Hints that are fair (API.md, "Solver" and "Limits that keep one client from hurting the
others"): one address's searches are bounded like one player's, a new game's background
search counts against its creator, a hint that found nothing does not make a game assisted,
a racer gets no hint on the race's deal in any game of theirs, and a hint or an analysis is
read off a game only once it is won or abandoned."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from service.base.keys import BACKEND_KEY
from service.solver.verdicts import PER_OWNER, SOLVER_KEY
from service.verify.run import verify
from tests.faults.helpers import until as wait_for

from ..helpers import OTHER_ADDRESS, auth, from_address, instance, new_game, new_player, shortest
from ..races.helpers import call, new_race, until

# Baker's Dozen openings that no search settles within 10 s, the longest budget here (each
# takes its whole budget; 39, 77, 100, 101 and 170, once here, settle in 5 to 9 s on a fast
# day of these machines, and a hint of the flood then came back winnable)
HARD = [18, 28, 31, 184, 238, 187, 417, 90, 93, 477, 599, 107, 134, 154, 156, 618]


async def ask_hint(client: Any, player: dict[str, Any], gid: str) -> dict[str, Any]:
    r = await client.post(f"/v1/games/{gid}/hint", json={}, headers=auth(player))
    assert r.status == 201, await r.text()
    body: dict[str, Any] = await r.json()
    return body


@pytest.mark.parametrize("workers, budget, deal", [
    (PER_OWNER + 1, 2.0, ("freecell", 617)),
    # (one worker: the other address's search has what is left of its budget once the
    # address's search gives up at half of it: 5 s for a search of about half a second
    # alone, which a loaded machine (the other test worker and more on two cores) has
    # stretched past 3 s)
    (1, 10.0, ("bakers_dozen", 45)),
])
async def test_one_address_flooding_hints_leaves_anothers_hint_answered(
    db_url: str, workers: int, budget: float, deal: tuple[str, int]
) -> None:
    """Eight players of one address ask two hints each at once, on openings no search
    settles: the address has PER_OWNER searches going, its other hints are `unknown` at
    once, and a player of another address is answered: a worker is left for them, or, with
    one worker (the default), the address's search gives it up at half its budget (had it
    waited for the whole of it, the other address would be left too little time for its
    position, which takes a search about half a second)."""
    async with instance(db_url, solver_workers=workers, hint_budget_seconds=budget,
                        solver_prefetch=False) as c:  # fmt: skip
        solver = c.app[SOLVER_KEY]
        players = [await new_player(c, f"p{i}") for i in range(8)]
        games = [
            (p, await new_game(c, p, variant="bakers_dozen", deal=HARD[2 * i + j],
                               autoplay=False))
            for i, p in enumerate(players) for j in range(2)
        ]  # fmt: skip
        async with from_address(c, OTHER_ADDRESS) as other:
            ada = await new_player(other, "ada")
            game = await new_game(other, ada, variant=deal[0], deal=deal[1], autoplay=False)
            flood = [asyncio.create_task(ask_hint(c, p, g["id"])) for p, g in games]
            # every hint of the flood has reached the solver: a search, or an answer
            await wait_for(lambda: solver.searches + sum(t.done() for t in flood) == 16,
                           10, "the flood's hints")
            hint = await ask_hint(other, ada, game["id"])
            assert hint["verdict"] == "winnable" and hint["move"] is not None
            assert hint["game"]["assisted"] is True
            answers = await asyncio.gather(*flood)
        assert [a["verdict"] for a in answers] == ["unknown"] * 16
        assert [a["game"]["hints"] for a in answers] == [1] * 16
        assert solver.searches == PER_OWNER + 1  # the address's two, ada's one


async def test_new_games_of_one_address_search_their_openings_within_its_share(
    db_url: str,
) -> None:
    """A new game's opening is searched in the background, counted against its creator:
    eight players of one address making games start one such search (the address keeps
    its other place for a hint), and a player of another address still gets theirs."""
    async with instance(db_url, solver_workers=PER_OWNER + 1) as c:
        solver = c.app[SOLVER_KEY]
        for i in range(8):
            player = await new_player(c, f"p{i}")
            await new_game(c, player, variant="bakers_dozen", deal=HARD[i], autoplay=False)
        await wait_for(lambda: solver.searches >= 1, 5, "a search of an opening")
        assert solver.searches == 1
        async with from_address(c, OTHER_ADDRESS) as other:
            ada = await new_player(other, "ada")
            game = await new_game(other, ada, variant="freecell", deal=617, autoplay=False)
            await wait_for(lambda: solver.searches >= 2, 5, "the search of ada's opening")
            assert solver.searches == 2
            hint = await ask_hint(other, ada, game["id"])
        assert hint["verdict"] == "winnable" and hint["move"] is not None
        assert solver.searches == 2  # the hint took the opening's search


async def test_one_address_has_one_players_rate_of_searches(db_url: str) -> None:
    """RATE_SEARCHES_PER_MINUTE holds for an address as for a player: two players of one
    address share it (429 with Retry-After past it, nothing recorded), another address
    has its own."""
    async with instance(db_url, rate_limits="on", rate_searches_per_minute=2,
                        solver_prefetch=False) as c:  # fmt: skip
        ada, bob = await new_player(c, "ada"), await new_player(c, "bob")
        games = [await new_game(c, p, deal=d, autoplay=False)
                 for p, d in ((ada, 1), (bob, 2), (bob, 3))]  # fmt: skip
        for player, game in ((ada, games[0]), (bob, games[1])):  # two searches
            assert (await ask_hint(c, player, game["id"]))["verdict"] == "winnable"
        r = await c.post(f"/v1/games/{games[2]['id']}/hint", json={}, headers=auth(bob))
        assert r.status == 429, await r.text()
        problem = await r.json()
        assert problem["type"].endswith("/rate-limited") and "searches" in problem["detail"]
        assert int(r.headers["Retry-After"]) >= 1
        assert (await (await c.get(f"/v1/games/{games[2]['id']}")).json())["hints"] == 0
        async with from_address(c, OTHER_ADDRESS) as other:
            cy = await new_player(other, "cy")
            game = await new_game(other, cy, deal=4, autoplay=False)
            assert (await ask_hint(other, cy, game["id"]))["verdict"] == "winnable"


async def test_a_new_games_background_search_counts_against_its_creators_rate(
    db_url: str,
) -> None:
    """With one search a minute, a new game's opening searched in the background takes
    it: the first hint on that game is free, a hint needing a search of its own is 429."""
    async with instance(db_url, rate_limits="on", rate_searches_per_minute=1) as c:
        ada = await new_player(c)
        first = await new_game(c, ada, deal=1, autoplay=False)
        second = await new_game(c, ada, deal=2, autoplay=False)
        r = await c.post(f"/v1/games/{second['id']}/hint", json={}, headers=auth(ada))
        assert r.status == 429, await r.text()
        assert (await ask_hint(c, ada, first["id"]))["verdict"] == "winnable"


async def test_a_hint_that_found_nothing_leaves_the_win_unassisted(db_url: str) -> None:
    """A hint whose search had no time (`unknown`, no move) is recorded and counted, but
    gives nothing away: the game stays unassisted and its win is on the default boards,
    as the player's record and `verify` agree."""
    deal, line = shortest("freecell")
    async with instance(db_url, hint_budget_seconds=0.01, solver_prefetch=False) as c:
        ada = await new_player(c)
        game = await new_game(c, ada, deal=deal, autoplay=False)
        hint = await ask_hint(c, ada, game["id"])
        assert (hint["verdict"], hint["move"], hint["moves_to_win"]) == ("unknown", None, None)
        assert [e["type"] for e in hint["events"]] == ["HintGiven"]
        assert (hint["game"]["hints"], hint["game"]["assisted"]) == (1, False)
        won = await call(c, "POST", f"/v1/games/{game['id']}/moves", ada,
                         {"moves": [m.to_dict() for m in line]}, 201)
        assert won["game"]["status"] == "won"
        assert (won["game"]["hints"], won["game"]["assisted"]) == (1, False)
        board = await call(c, "GET", f"/v1/leaderboards/freecell/{deal}")
        assert [(e["player"]["name"], e["game_id"], e["assisted"]) for e in board["entries"]] \
            == [("ada", game["id"], False)]
        record = await call(c, "GET", f"/v1/players/{ada['id']}")
        assert (record["won"], record["won_assisted"]) == (1, 0)
    report = await verify(db_url, min_median_move_ms=0)
    assert report.ok, [str(d) for d in report.differences]
    assert (report.games, report.entries) == (1, 4)


async def test_a_racer_gets_no_hint_on_the_races_deal_in_a_game_of_their_own(
    client: TestClient,
) -> None:
    """While ada races on a deal, a game of her own of that deal (the race's moves played
    again in a batch) gets no hint, asked for or read once abandoned: 403. Another deal
    does, and so does the race's deal once the race is over."""
    deal, line = shortest("freecell")
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    race = await new_race(client, ada, deal=deal, autoplay=False, max_players=2)
    await call(client, "POST", f"/v1/races/{race['id']}/join", bob)
    await until(race["starts_at"], 0.01)
    running = await call(client, "GET", f"/v1/races/{race['id']}")
    games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
    played = [m.to_dict() for m in line[:5]]
    await call(client, "POST", f"/v1/games/{games['ada']}/moves", ada, {"moves": played}, 201)
    side = await new_game(client, ada, deal=deal, autoplay=False)
    await call(client, "POST", f"/v1/games/{side['id']}/moves", ada, {"moves": played}, 201)
    problem = await call(client, "POST", f"/v1/games/{side['id']}/hint", ada, {}, 403)
    assert problem["detail"] == (
        f"the game's player races on this deal in race {race['id']}: hints of their games"
        " of the deal are refused until the race is over"
    )
    await call(client, "POST", f"/v1/games/{side['id']}/abandon", ada, {}, 201)
    await call(client, "GET", f"/v1/games/{side['id']}/hint", status=403)
    other = await new_game(client, ada, deal=deal + 1, autoplay=False)
    await ask_hint(client, ada, other["id"])  # another deal: a hint
    bobs = await new_game(client, bob, deal=deal, autoplay=False)  # bob races too
    await call(client, "POST", f"/v1/games/{bobs['id']}/hint", bob, {}, 403)
    for name, player in (("ada", ada), ("bob", bob)):
        await call(client, "POST", f"/v1/games/{games[name]}/abandon", player, {}, 201)
    assert (await call(client, "GET", f"/v1/races/{race['id']}"))["status"] == "over"
    after = await new_game(client, ada, deal=deal, autoplay=False)
    await ask_hint(client, ada, after["id"])
    assert (await call(client, "GET", f"/v1/games/{side['id']}/hint"))["verdict"] == "winnable"


async def test_a_blocked_game_has_no_hint_or_analysis_to_read(client: TestClient) -> None:
    """A blocked game is not over (an undo revives it): GET …/hint and …/analysis are 409,
    pointing to the POST; once abandoned both answer."""
    ada = await new_player(client)
    # Beleaguered Castle deal 6: row 7's free card onto row 2 leaves no legal move
    game = await new_game(client, ada, variant="beleaguered_castle", deal=6)
    url = f"/v1/games/{game['id']}"
    blocked = await call(client, "POST", f"{url}/moves", ada, {"from": "t7", "to": "t2"}, 201)
    assert blocked["game"]["status"] == "blocked"
    readings = {
        "hint": "a hint read without a record is only for a game won or abandoned; a hint on"
        " a game not over is part of its record: its player asks for one with POST"
        f" {url}/hint and their token",
        "analysis": "its analysis is only for a game won or abandoned; the analysis of a game"
        " still played would show its player the way to win: ask again once the game is over",
    }
    for what, reading in readings.items():
        problem = await call(client, "GET", f"{url}/{what}", status=409)
        assert problem["type"].endswith("/conflict")
        assert problem["current_version"] == blocked["game"]["version"]
        assert problem["detail"] == f"the game is blocked (an undo can still revive it): {reading}"
    # its hint needs no search: unwinnable, even while the solver takes no more searches
    client.app[SOLVER_KEY].max_pending = 0
    hint = await call(client, "POST", f"{url}/hint", ada, {}, 201)
    assert (hint["verdict"], hint["move"], hint["moves_to_win"]) == ("unwinnable", None, None)
    await call(client, "POST", f"{url}/abandon", ada, {}, 201)
    hint = await call(client, "GET", f"{url}/hint")
    assert (hint["verdict"], hint["move"]) == ("unwinnable", None)
    analysis = await call(client, "GET", f"{url}/analysis")
    assert (analysis["status"], analysis["version"]) == ("abandoned", hint["version"])


async def test_a_race_whose_start_has_come_refuses_hints_before_any_clock_starts_it(
    db_url: str,
) -> None:
    """The race runs from its starts_at: a hint on the deal in a racer's game of their own
    is 403 from then on, even before a clock or a request has started the race."""
    deal, _line = shortest("freecell")
    async with instance(db_url, race_tick_s=3600) as c:  # no clock starts it here
        ada = await new_player(c, "ada")
        race = await new_race(c, ada, deal=deal, autoplay=False, max_players=2)
        side = await new_game(c, ada, deal=deal, autoplay=False)
        await c.app[BACKEND_KEY].store.pool.execute(
            "UPDATE races SET starts_at = clock_timestamp() - interval '1 second',"
            " ends_at = clock_timestamp() + interval '10 minutes' WHERE id = $1",
            uuid.UUID(race["id"]),
        )
        problem = await call(c, "POST", f"/v1/games/{side['id']}/hint", ada, {}, 403)
        assert f"races on this deal in race {race['id']}" in problem["detail"]


async def test_the_creator_of_a_race_on_a_deal_they_chose_gets_no_hint_on_it_before_it(
    client: TestClient,
) -> None:
    """The creator chose the deal: from the race's creation, a game of their own of that
    deal gets no hint (403). A player who joined is not shown the deal before the start, so
    a refusal would tell it them: their hints are answered until then, and so are the hint
    and the analysis that anyone may read of the creator's finished games of the deal
    (a 403 there, and a 200 for the creator's other deals, would name the race's deal)."""
    deal, _line = shortest("freecell")
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    practised = await new_game(client, ada, deal=deal, autoplay=False)
    await call(client, "POST", f"/v1/games/{practised['id']}/abandon", ada, {}, 201)
    race = await new_race(client, ada, deal=deal, autoplay=False, max_players=2)
    for read in ("hint", "analysis"):  # by anyone: bob, who joins
        await call(client, "GET", f"/v1/games/{practised['id']}/{read}", None, None, 200)
    await call(client, "POST", f"/v1/races/{race['id']}/join", bob)
    assert (await call(client, "GET", f"/v1/races/{race['id']}"))["deal"] is None
    adas = await new_game(client, ada, deal=deal, autoplay=False)
    problem = await call(client, "POST", f"/v1/games/{adas['id']}/hint", ada, {}, 403)
    assert f"races on this deal in race {race['id']}" in problem["detail"]
    bobs = await new_game(client, bob, deal=deal, autoplay=False)
    assert (await ask_hint(client, bob, bobs["id"]))["verdict"] == "winnable"
