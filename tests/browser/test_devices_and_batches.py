"""The web client's share of issue 17: moves made while an earlier one is on its way go
in one batch, a game read again is a 304 when it has not changed, and the player's
devices are listed, linked with a code and signed out."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import aiohttp
import pytest

from .conftest import Pages, screenshot_path
from .helpers import (
    api_get,
    as_player,
    as_shown,
    field,
    idle,
    new_player,
    open_deal,
    post,
    shown,
    token_of,
    win,
)

pytestmark = pytest.mark.browser

CODE = re.compile(r"^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$")


async def same_as_api(page: Any, http: aiohttp.ClientSession, game_id: str) -> dict[str, Any]:
    game = await api_get(http, f"/v1/games/{game_id}")
    assert await shown(page) == as_shown(game["state"])
    assert await field(page, "moves") == str(game["moves"])
    assert await field(page, "foundation_cards") == str(game["foundation_cards"])
    return game  # type: ignore[no-any-return]


async def double_click(page: Any, card: str) -> None:
    await page.dblclick(f'#table [data-card="{card}"]', position={"x": 10, "y": 6})


async def slow_first_move(page: Any, game_id: str) -> asyncio.Event:
    """A slow network: the answer to the game's first move takes three seconds to come;
    the event is set once that move is on its way."""
    in_flight = asyncio.Event()

    async def slow_first(route: Any) -> None:
        if not in_flight.is_set():
            in_flight.set()
            await asyncio.sleep(3)
        await route.continue_()

    await page.route(f"**/v1/games/{game_id}/moves", slow_first)
    return in_flight


async def test_moves_made_while_one_is_on_its_way_go_in_one_batch(
    page: Any, http: aiohttp.ClientSession
) -> None:
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    first, second, third = [column[-1] for column in (await shown(page))["tableau"][:3]]

    posts: list[Any] = []
    page.on(
        "request",
        lambda r: (
            posts.append(r.post_data_json)
            if r.method == "POST" and r.url.endswith(f"/v1/games/{game_id}/moves")
            else None
        ),
    )
    in_flight = await slow_first_move(page, game_id)
    await double_click(page, first)
    await asyncio.wait_for(in_flight.wait(), 15)
    # two more double taps while the first move is on its way
    await double_click(page, second)
    await double_click(page, third)
    await idle(page)

    assert posts[0] == {"card": first, "to": "auto", "expected_version": 1}, posts
    assert len(posts) == 2, posts
    assert posts[1]["moves"] == [
        {"card": second, "to": "auto"},
        {"card": third, "to": "auto"},
    ], posts
    assert posts[1]["expected_version"] == 2
    game = await same_as_api(page, http, game_id)
    assert game["moves"] == 3
    assert game["version"] == 4
    tops = [column[-1] if column else None for column in game["state"]["tableau"][:3]]
    for card in (first, second, third):
        assert card not in tops
        assert card in game["state"]["cells"] or game["state"]["foundations"][card[-1]] >= 1


async def test_a_double_tap_waiting_its_turn_is_read_on_the_layout_it_meets(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """A card double-tapped up to a cell, then double-tapped again while that move is on
    its way: by the time the second tap is sent the card is in its cell, where it only
    goes up, and cannot yet; nothing of it is sent, and the tap made after it goes alone."""
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    first, second = [column[-1] for column in (await shown(page))["tableau"][:2]]
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r.post_data_json) if r.method == "POST"
            and r.url.endswith(f"/v1/games/{game_id}/moves") else None)  # fmt: skip
    in_flight = await slow_first_move(page, game_id)
    await double_click(page, first)
    await asyncio.wait_for(in_flight.wait(), 15)
    await double_click(page, first)  # (still drawn in its column)
    await double_click(page, second)
    await idle(page)

    assert posts == [
        {"card": first, "to": "auto", "expected_version": 1},
        {"card": second, "to": "auto", "expected_version": 2},
    ], posts
    game = await same_as_api(page, http, game_id)
    assert game["state"]["cells"][:2] == [first, second]
    assert game["moves"] == 2


async def test_a_move_a_batch_is_refused_for_is_left_out_and_the_others_made(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """Three double taps gathered while a move was on its way, the second of a card under
    others: the server refuses the batch, all or none, naming that move; the page says so
    in words and sends the other two again, which are made."""
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    before = await shown(page)
    first, third = before["tableau"][0][-1], before["tableau"][2][-1]
    buried = before["tableau"][1][0]  # a card under others: it cannot go "auto"
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r.post_data_json) if r.method == "POST"
            and r.url.endswith(f"/v1/games/{game_id}/moves") else None)  # fmt: skip
    # the page's batch path itself, as its queue would call it with three moves waiting
    await page.evaluate(
        """async (cards) => {
          const play = await import('/static/table/play.js');
          const { enqueue } = await import('/static/app.js');
          for (const card of cards) play.queueMove({card, to: 'auto'});
          await enqueue(play.flushMoves);
        }""",
        [first, buried, third],
    )
    await idle(page)
    assert [[m["card"] for m in p["moves"]] for p in posts] == [[first, buried, third],
                                                                 [first, third]], posts
    message = await field(page, "message")
    assert " up or to a cell was refused: " in message, message
    assert message.endswith("The other 2 moves were made."), message
    assert "counting from 0" not in message and message[0].isupper(), message
    game = await same_as_api(page, http, game_id)
    assert game["moves"] == 2 and buried in (await shown(page))["tableau"][1]


async def test_a_game_read_again_unchanged_is_a_304(page: Any, http: aiohttp.ClientSession) -> None:
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    answers: list[int] = []
    page.on(
        "response",
        lambda r: (
            answers.append(r.status)
            if r.request.method == "GET" and r.url.endswith(f"/v1/games/{game_id}")
            else None
        ),
    )

    async def come_back() -> None:  # the page is shown again: it reads the game again
        await page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
        await idle(page)

    await come_back()
    await come_back()
    assert answers == [200, 304], answers
    await same_as_api(page, http, game_id)

    # a move, then the game read again: a new version, a whole answer, the board right
    top = (await shown(page))["tableau"][0][-1]
    await double_click(page, top)
    await idle(page)
    await come_back()
    await come_back()
    assert answers == [200, 304, 200, 304], answers
    game = await same_as_api(page, http, game_id)
    assert game["moves"] == 1


async def stored_player(page: Any) -> Any:
    stored = await page.evaluate("localStorage.getItem('open-solitaire.player')")
    return json.loads(stored or "null")


async def test_devices_are_listed_linked_with_a_code_and_signed_out(pages: Pages) -> None:
    first = await pages.new()
    await open_deal(first, "freecell", 1)  # the first deal makes this browser's player
    mine = first.locator('#devices li[data-current="true"]')
    await mine.wait_for()
    assert await first.locator("#devices li").count() == 1
    assert "this device" in (await mine.inner_text()).lower()
    player = await stored_player(first)

    await first.get_by_role("button", name="Link another device").click()
    await first.wait_for_selector("#link-code", state="visible")
    code = (await first.inner_text("#link-code")).strip()
    assert CODE.match(code), code
    assert (await first.inner_text("#link-expiry")).strip()

    # another browser signs in with the code: the same player, a token of its own
    second = await pages.new()
    await second.goto("/")
    await idle(second)
    await second.get_by_label("Link code").fill("WRNG-CDE2")
    await second.get_by_label("This device's name").fill("Second browser")
    await second.get_by_role("button", name="Sign in on this device").click()
    await idle(second)
    assert "wrong or expired code" in (await second.inner_text("#link-message")).lower()

    await second.get_by_label("Link code").fill(code.lower())
    await second.get_by_role("button", name="Sign in on this device").click()
    await idle(second)
    assert (await second.inner_text("#link-message")).startswith(f"Signed in as {player['name']}")
    linked = await stored_player(second)
    assert linked["id"] == player["id"] and linked["name"] == player["name"]
    assert linked["token"] != player["token"]
    await second.wait_for_function("() => document.querySelectorAll('#devices li').length === 2")
    assert "Second browser" in await second.inner_text('#devices li[data-current="true"]')
    assert await second.inner_text("#who") == f"Playing as {player['name']}"

    # the first browser sees the new device (it reads the list while its code is shown)
    await first.wait_for_function("() => document.querySelectorAll('#devices li').length === 2")
    await first.screenshot(path=screenshot_path("devices.png"), full_page=True)
    other = first.locator('#devices li[data-current="false"]')
    assert "Second browser" in await other.inner_text()
    await other.get_by_role("button").click()
    await idle(first)
    await first.wait_for_function("() => document.querySelectorAll('#devices li').length === 1")

    # the second browser's next request is refused: it is signed out
    async with second.expect_response(lambda r: r.url.endswith("/v1/games")) as refused:
        await second.click("#random-deal")
    assert (await refused.value).status == 401
    await idle(second)
    assert await stored_player(second) is None
    assert await second.inner_text("#who") == "Signed out on this device"
    assert "signed out" in await second.inner_text("#link-message")
    assert await second.is_visible("#welcome")
    assert await second.is_hidden("#devices-panel")
    # its next game is a new player's, with a device list of its own
    await second.click("#random-deal")
    await idle(second)
    assert await second.is_visible("#game")
    renewed = await stored_player(second)
    assert renewed["id"] != player["id"]
    await second.wait_for_selector('#devices li[data-current="true"]')

    # signing the first browser out too: its own entry's button
    await mine.get_by_role("button").click()
    await idle(first)
    assert await stored_player(first) is None
    assert await first.inner_text("#who") == "Signed out on this device"
    assert await first.is_visible("#welcome")


async def test_the_token_decides_who_plays(pages: Pages, http: aiohttp.ClientSession) -> None:
    """A stored player whose id is not its token's player (edited by hand): the game the
    page deals is the token's player's, played, and the stored id gives way."""
    owner, other = await new_player(http, "owner"), await new_player(http, "other")
    page = await as_player(pages, {"id": other["id"], "name": "me", "token": owner["token"]})
    game_id = await open_deal(page, "freecell", 617)
    assert (await api_get(http, f"/v1/games/{game_id}"))["player_id"] == owner["id"]
    assert await page.get_attribute("body", "data-mode") == "play"
    stored = json.loads(await page.evaluate("localStorage.getItem('open-solitaire.player')"))
    assert stored["id"] == owner["id"] and stored["token"] == owner["token"]


async def test_a_game_ended_elsewhere_updates_the_message_and_the_record(
    pages: Pages, http: aiohttp.ClientSession
) -> None:
    """The player's game abandoned from another device: the page says so, and the record
    (whose streak the abandon breaks) is read again."""
    player = await new_player(http, "streaker")
    await win(http, player)
    page = await as_player(pages, player)
    game_id = await open_deal(page, "freecell", 5)
    await page.wait_for_selector("#record >> text=1 in a row")
    await post(http, player, f"/v1/games/{game_id}/abandon", {})
    for _ in range(100):
        if await field(page, "status") == "abandoned" and "in a row" not in (
            await page.text_content("#record") or ""
        ):
            break
        await asyncio.sleep(0.1)
    assert await field(page, "status") == "abandoned"
    assert "in a row" not in (await page.text_content("#record") or "")
    assert "abandoned" in (await page.text_content("#message") or "")


async def test_a_move_that_got_no_answer_is_told_until_the_server_answers_again(
    page: Any, http: aiohttp.ClientSession
) -> None:
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    top = (await shown(page))["tableau"][0][-1]

    async def cut(route: Any) -> None:
        await route.abort()

    # the network goes, for the page's requests (its live stream stays: no tap needed)
    away = re.compile(r"/v1/games/[0-9a-f-]{36}/moves$|/healthz$")
    await page.route(away, cut)
    await double_click(page, top)
    message = page.locator("#message")
    await message.filter(has_text="cannot be reached").wait_for(timeout=10_000)
    await page.unroute(away, cut)
    # back without a tap: the page finds the server again and reads the game
    await message.filter(has_text="Connected again").wait_for(timeout=10_000)
    game = await same_as_api(page, http, game_id)
    assert game["version"] == 1 and game["moves"] == 0


async def test_a_move_whose_answer_is_lost_is_told_as_the_players_own(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """The move reaches the server (201) and its answer is lost on the way back: the
    page hears the move on its live stream and tells it as the player's own, not as one
    played in another window."""
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    await page.wait_for_function("() => document.body.dataset.live === 'live'")
    card = (await shown(page))["tableau"][0][-1]
    lost: list[int] = []

    async def answer_lost(route: Any) -> None:
        if lost:
            await route.continue_()
            return
        lost.append((await route.fetch()).status)  # (made on the server)
        await route.abort("connectionreset")

    await page.route(f"**/v1/games/{game_id}/moves", answer_lost)
    await double_click(page, card)
    await page.wait_for_function(
        "() => document.querySelector('#table').dataset.version === '2'"
        " && document.body.dataset.busy === 'false'"
    )
    assert lost == [201]
    message = await field(page, "message")
    assert "your move was made" in message and "another window" not in message, message
    await same_as_api(page, http, game_id)


async def test_a_players_other_tab_without_websockets_follows_the_game(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """Where no WebSocket gets through (a proxy that drops them), the player's own second
    tab reads the game's log every few seconds, as a watcher's page does: a move made
    elsewhere shows there without a tap."""
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    other = await page.context.new_page()  # the same player: the same stored token
    await other.add_init_script(
        "window.WebSocket = class { constructor() { throw new Error('no WebSockets'); } };")
    await other.goto(f"/?game={game_id}")
    await idle(other)
    assert await other.get_attribute("body", "data-mode") == "play"
    await other.wait_for_function("() => document.body.dataset.live === 'polling'")
    async with http.post(f"/v1/games/{game_id}/moves", json={"from": "t1", "to": "c"},
                         headers={"Authorization": f"Bearer {await token_of(page)}"}) as r:
        assert r.status == 201, await r.text()
    await other.wait_for_function(
        "() => document.querySelector('#table').dataset.version === '2'"
        " && document.body.dataset.busy === 'false'", timeout=10_000)
    await same_as_api(other, http, game_id)
    await other.close()
