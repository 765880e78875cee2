"""A race on the web page (`/?race={id}`): made with the welcome's form, joined from its
link, its lobby and countdown, each racer's own board beside every racer's progress live,
someone without a player watching, and the final ranking."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from .conftest import Pages, screenshot_path
from .helpers import (
    DEAL,
    VARIANT,
    api_get,
    click_card,
    field,
    idle,
    new_player,
    play,
    post,
    shown,
    winning_moves,
)

pytestmark = pytest.mark.browser

STARTS_IN_S = 6  # time enough for the second player to open the link and join
LIVE_MS = 5000  # the stream is read every 0.2 s; the rest is slack for a busy machine


async def player_of(page: Any) -> dict[str, Any]:
    stored = await page.evaluate("localStorage.getItem('open-solitaire.player')")
    assert stored, "the page made no player"
    player: dict[str, Any] = json.loads(stored)
    return player


ROWS_JS = """Object.fromEntries([...document.querySelectorAll('#race [data-racer]')]
  .map((row) => [row.dataset.racer, Object.fromEntries([...row.querySelectorAll('[data-field]')]
    .map((node) => [node.dataset.field, node.textContent.trim()]))]))"""


async def racers(page: Any) -> dict[str, dict[str, str]]:
    """The race panel's rows: player id -> {rank, moves, foundation_cards, status}."""
    rows: dict[str, dict[str, str]] = await page.evaluate(f"() => {ROWS_JS}")
    return rows


async def until_racers(page: Any, test: str, arg: Any = None) -> None:
    """Waits until `test` (JS of `rows`, as `racers` reads them, and `arg`) holds."""
    await page.wait_for_function(
        f"(arg) => {{ const rows = {ROWS_JS}; return ({test}); }}", arg=arg, timeout=LIVE_MS
    )


async def test_two_players_race_and_a_third_watches(
    pages: Pages, http: aiohttp.ClientSession
) -> None:
    ada, bob, watcher = await pages.new(), await pages.new(), await pages.new()

    # ada makes a race of FreeCell deal 617 on the welcome's form: its lobby and its link
    await ada.goto("/")
    await idle(ada)
    await ada.select_option("#race-variant", "freecell")
    await ada.fill("#race-deal", "617")
    await ada.fill("#race-starts", str(STARTS_IN_S))
    await ada.click("#race-create")
    await idle(ada)
    match = re.search(r"[?&]race=([0-9a-f-]{36})", ada.url)
    assert match, ada.url
    race_id = match.group(1)
    link = await ada.get_attribute("#race-link", "href")
    assert link == f"/?race={race_id}"
    ada_id = (await player_of(ada))["id"]
    assert await ada.is_visible("#race") and await ada.is_hidden("#race-join")

    # bob opens the link (no player yet: none is made to look) and joins
    await bob.goto(link)
    await idle(bob)
    assert await bob.evaluate("localStorage.getItem('open-solitaire.player')") is None
    await bob.click("#race-join")
    await idle(bob)
    bob_id = (await player_of(bob))["id"]
    for page in (ada, bob):
        await until_racers(page, "Object.keys(rows).length === 2")
        assert set(await racers(page)) == {ada_id, bob_id}
        # the racer's own row says so with a tag, which no name can copy (a name may be
        # "ada (you)"), and only theirs
        me, other = (ada_id, bob_id) if page is ada else (bob_id, ada_id)
        assert await page.text_content(f'[data-racer="{me}"] [data-tag="you"]') == "you"
        assert await page.query_selector(f'[data-racer="{other}"] [data-tag="you"]') is None
        assert re.fullmatch(r"\d+:\d\d", await page.inner_text('[data-field="countdown"]'))
    await bob.screenshot(path=screenshot_path("race_lobby.png"), full_page=True)

    # at the start each racer's own game of the deal opens on the board
    for page in (ada, bob):
        await page.wait_for_function(
            "() => document.body.dataset.mode === 'play'"
            " && document.querySelectorAll('#table [data-card]').length === 52",
            timeout=STARTS_IN_S * 1000 + 15_000,
        )
        await idle(page)
        assert await field(page, "deal") == "617"
        assert await page.is_hidden("#hint")
        # nor the deal's board, whose replays are winning lines of it
        assert await page.is_hidden("#board-panel")

    # the watcher (no player on this browser) sees both racers and no board
    await watcher.goto(link)
    await idle(watcher)
    await until_racers(watcher, "Object.keys(rows).length === 2")
    assert await watcher.is_hidden("#game") and await watcher.is_hidden("#race-join")

    # each plays a move (a double tap: the card goes up, or else to a cell); each sees the
    # other's moves count change live, and so does the watcher
    for page, me in ((ada, ada_id), (bob, bob_id)):
        card = (await shown(page))["tableau"][0][-1]
        await click_card(page, card, double=True)
        assert await field(page, "moves") != "0"
        await until_racers(page, "(rows[arg]?.moves ?? '0') !== '0'", me)
    await until_racers(ada, "(rows[arg]?.moves ?? '0') !== '0'", bob_id)
    await until_racers(bob, "(rows[arg]?.moves ?? '0') !== '0'", ada_id)
    await until_racers(watcher, "Object.values(rows).every((r) => r.moves !== '0')")
    race = await api_get(http, f"/v1/races/{race_id}")
    moves = {p["player"]["id"]: str(p["moves"]) for p in race["players"]}
    for page in (ada, bob, watcher):
        await until_racers(
            page, "Object.entries(arg).every(([id, n]) => rows[id]?.moves === n)", moves
        )
    await ada.screenshot(path=screenshot_path("race_running.png"), full_page=True)
    assert await watcher.evaluate("localStorage.getItem('open-solitaire.player')") is None

    # both give up: the race is over, and every page shows the final ranking
    for racer, page in ((ada_id, ada), (bob_id, bob)):
        token = (await player_of(page))["token"]
        game_id = next(p["game_id"] for p in race["players"] if p["player"]["id"] == racer)
        async with http.post(
            f"/v1/games/{game_id}/abandon", json={}, headers={"Authorization": f"Bearer {token}"}
        ) as response:
            assert response.status == 201, await response.text()
    over = await api_get(http, f"/v1/races/{race_id}")
    assert over["status"] == "over"
    ranks = {p["player"]["id"]: str(p["rank"]) for p in over["players"]}
    assert set(ranks.values()) <= {"1", "2"}  # equal progress shares a rank
    for page in (ada, bob, watcher):
        await page.wait_for_selector('#race[data-status="over"]', timeout=LIVE_MS)
        await until_racers(
            page,
            "Object.entries(arg).every(([id, rank]) => rows[id]?.rank === rank"
            " && rows[id]?.status === 'abandoned')",
            ranks,
        )
        assert await page.inner_text("#race-when") == "Over: the final ranking"
    await watcher.screenshot(path=screenshot_path("race_over.png"), full_page=True)


async def test_a_win_faster_than_a_hand_is_marked_unverified_in_the_ranking(
    pages: Pages, http: aiohttp.ClientSession
) -> None:
    """A race's winner whose win the boards call unverified (`verified: false`, a race's
    GET) is ranked by its time and marked so on the race panel; a verified one is not."""
    ada, bob = await new_player(http, "ada"), await new_player(http, "bob")
    race = await post(http, ada, "/v1/races",
                      {"variant": VARIANT, "deal": DEAL, "starts_in_s": 3, "max_players": 2})
    await post(http, bob, f"/v1/races/{race['id']}/join")
    starts_in = datetime.fromisoformat(race["starts_at"]) - datetime.now(UTC)
    await asyncio.sleep(max(0.0, starts_in.total_seconds()) + 0.2)
    running = await api_get(http, f"/v1/races/{race['id']}")
    games = {p["player"]["id"]: p["game_id"] for p in running["players"]}
    assert (await play(http, ada, games[ada["id"]], winning_moves()))["status"] == "won"
    await post(http, bob, f"/v1/games/{games[bob['id']]}/abandon")
    over = await api_get(http, f"/v1/races/{race['id']}")
    # (this site has no pace rule: every win is verified)
    assert [(p["rank"], p["verified"]) for p in over["players"]] == [(1, True), (2, None)]

    async def unverified(route: Any) -> None:  # the same race, ada's win judged scripted
        answer = await route.fetch()
        body = await answer.json()
        for p in body["players"]:
            if p["player"]["id"] == ada["id"]:
                p["verified"] = False
        await route.fulfill(response=answer, json=body)

    plain, marked = await pages.new(), await pages.new()
    await marked.route(f"**/v1/races/{race['id']}", unverified)
    for page in (plain, marked):
        await page.goto(f"/?race={race['id']}")
        await page.wait_for_selector('#race[data-status="over"]')
        await until_racers(page, "rows[arg]?.rank === '1'", ada["id"])
    assert await plain.locator("#race [data-tag]").count() == 0
    tagged = marked.locator(f'#race [data-racer="{ada["id"]}"] [data-tag="unverified"]')
    assert await tagged.count() == 1
    assert await marked.locator("#race [data-tag]").count() == 1
    await marked.screenshot(path=screenshot_path("race_unverified.png"), full_page=True)
