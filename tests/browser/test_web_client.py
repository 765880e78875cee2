"""The reference web client, played and watched in headless Chromium as a person would:
taps, double-clicks and keys; what it outlines, says and shows checked against the API
(moving cards by taps, keys and double-clicks: test_moving_cards.py)."""

from __future__ import annotations

import re
from typing import Any

import aiohttp
import pytest

from engine import Game

from .conftest import Pages, screenshot_path
from .helpers import (
    DEAL,
    VARIANT,
    api_get,
    card_name,
    click_card,
    click_pile,
    field,
    game_id_of,
    idle,
    on_foundation,
    open_deal,
    same_as_api,
    shown,
    solution_plan,
    token_of,
)

pytestmark = pytest.mark.browser


async def test_opening_page_starts_a_shared_deal(pages: Pages, http: aiohttp.ClientSession) -> None:
    page = await pages.new()
    await page.goto("/")
    await idle(page)
    assert await page.is_visible("#welcome")
    # a visit that only looks makes no player: the first deal does (below)
    assert await page.evaluate("localStorage.getItem('open-solitaire.player')") is None
    await page.screenshot(path=screenshot_path("opening.png"), full_page=True)

    # today's deal, where the server has one (the button is hidden where it has none)
    async with http.get("/v1/daily/freecell") as response:
        daily = await response.json() if response.status == 200 else None
    if daily is None:
        assert await page.is_hidden("#daily-deal")
    else:
        await page.click("#daily-deal")
        await idle(page)
        assert await field(page, "deal") == str(daily["deal"])

    await page.select_option("#variant", "freecell")
    await page.fill("#deal-input", "617")
    await page.click("#play-deal")
    await idle(page)
    game_id = game_id_of(page.url)
    assert page.url.endswith(f"/?game={game_id}")
    assert await token_of(page)  # the player the first deal made, kept
    assert await field(page, "deal") == "617"
    assert await page.get_attribute("#share-link", "href") == "/?variant=freecell&deal=617"
    game = await same_as_api(page, http, game_id)
    assert game["deal"] == 617 and game["status"] == "playing"
    assert re.fullmatch(r"\d+:\d\d", await field(page, "time"))
    assert await page.locator("#table [data-card]").count() == 52
    # deal 617 is the same everywhere: its first column as in Windows and fc-solve
    assert (await shown(page))["tableau"][0] == ["7D", "TD", "TH", "KD", "4C", "4S", "JD"]
    await page.screenshot(path=screenshot_path("opening_freecell_617.png"), full_page=True)

    # every game, opened from its shareable address; the same deal again is a new game
    # (deal 614: one every game can win; Beleaguered Castle's 617 has no solution)
    for variant, columns, cells in (
        ("bakers_game", 8, 4),
        ("bakers_dozen", 13, 0),
        ("beleaguered_castle", 8, 0),
        ("freecell", 8, 4),
    ):
        other = await open_deal(page, variant, 614)
        assert other != game_id
        assert await page.locator('#table [data-pile^="t"]').count() == columns
        assert await page.locator('#table [data-pile^="c"]').count() == cells
        assert await page.locator('#table [data-pile="f"]').count() == 1
        await same_as_api(page, http, other)
        await page.screenshot(path=screenshot_path(f"opening_{variant}.png"), full_page=True)

    # the address of an open game opens it again
    await page.goto(f"/?game={game_id}")
    await idle(page)
    assert await page.get_attribute("body", "data-mode") == "play"
    await same_as_api(page, http, game_id)
    # and none of it asked the server anything it refused (each shows in the console)
    assert pages.refused == []


async def test_an_address_with_no_deal_says_why_on_the_welcome(page: Any) -> None:
    """A deal that is no deal (out of range, or not a number) opens the welcome, which says
    why and keeps the game and the number asked for in its form (a number: its field
    takes nothing else, and the browser warns of anything else put in it)."""
    warned: list[str] = []
    page.on("console", lambda m: warned.append(m.text) if m.type == "warning" else None)
    for deal, why in (("8589934592", "there is no deal 8589934592"),
                      ("99999999999999999999", "there is no deal 99999999999999999999"),
                      ("1e3", 'a deal is a whole number from 1 up, not "1e3"'),
                      ("abc", 'a deal is a whole number from 1 up, not "abc"')):
        await page.goto(f"/?variant=bakers_game&deal={deal}")
        await idle(page)
        assert await page.is_visible("#welcome") and not await page.is_visible("#game")
        assert await page.is_visible("#welcome-message")
        assert why in await page.text_content("#welcome-message")
        assert await page.input_value("#variant") == "bakers_game"
    assert await page.input_value("#deal-input") == ""  # "abc" is no number to keep
    assert warned == []
    await page.goto("/?variant=freecell&deal=8589934592")
    await idle(page)
    assert await page.input_value("#deal-input") == "8589934592"
    await page.goto("/?variant=spider&deal=5")  # no such game: the number is kept
    await idle(page)
    assert "spider" in await page.text_content("#welcome-message")
    assert await page.input_value("#deal-input") == "5"


async def test_cards_and_piles_are_named_for_screen_readers(page: Any) -> None:
    await open_deal(page, "freecell", 617)
    labels = await page.eval_on_selector_all(
        "#table [data-card]", "(nodes) => nodes.map((n) => [n.dataset.card, n.ariaLabel])"
    )
    assert len(labels) == 52
    for card, label in labels:
        assert label == card_name(card)
    assert await page.get_attribute('[data-card="7H"]', "aria-label") == "seven of hearts"
    column = await page.get_attribute('[data-pile="t1"]', "aria-label")
    assert column == "column 1, 7 cards, free card jack of diamonds"
    assert await page.get_attribute('[data-pile="c1"]', "aria-label") == "cell 1, empty"
    assert await page.get_attribute("#message", "aria-live") == "polite"


async def test_a_whole_deal_won_by_clicks(pages: Pages, http: aiohttp.ClientSession) -> None:
    """FreeCell deal 3 by Freecell Solver's line, tap by tap, automatic moves on: a move
    whose card already went up by itself is left out."""
    page = await pages.new()
    game_id = await open_deal(page, "freecell", 3)
    plan = solution_plan("freecell", 3)
    played = 0
    for card, target in plan:
        if await on_foundation(page, card):
            continue  # it went up by itself already
        await click_card(page, card)
        if played == 40:
            await page.screenshot(path=screenshot_path("in_progress.png"), full_page=True)
        await click_pile(page, target)
        played += 1
        assert await field(page, "moves") == str(played), await field(page, "message")
    game = await same_as_api(page, http, game_id)
    assert game["status"] == "won"
    assert await field(page, "foundation_cards") == "52"
    banner = await page.inner_text("#banner")
    assert banner.startswith("You won! FreeCell deal 3"), banner
    # the game's whole log may be replayed now
    assert await page.is_visible("#replay-game")
    assert await page.get_attribute("#replay-game", "href") == f"/?replay={game_id}"
    # the board of this deal has the winner, marked as this player, with a link to the replay
    await page.wait_for_selector("#leaderboard li.me")
    assert (await field(page, "rank")).startswith("Your rank: 1")
    assert await page.locator(f'#leaderboard li.me a[data-replay="{game_id}"]').count() == 1
    # and so does the player's record
    await page.wait_for_selector('#record a[href="/?variant=freecell&deal=3"]')
    await page.screenshot(path=screenshot_path("won.png"), full_page=True)


async def test_automatic_moves_are_shown_one_by_one(
    pages: Pages, http: aiohttp.ClientSession
) -> None:
    plan = solution_plan("freecell", 3)
    game, _ = Game.new("freecell", 3)
    prefix: list[tuple[str, str]] = []
    for card, target in plan:
        if game.position.locate(card)[0] == "f":
            continue
        events = game.play(game.position.move_for_card(card, target))
        if sum(e.data.get("auto", False) for e in events) >= 3:
            break
        prefix.append((card, target))
    else:
        raise AssertionError("no move of this line sets off three automatic moves")
    page = await pages.new(motion="no-preference")
    game_id = await open_deal(page, "freecell", 3)
    headers = {"Authorization": f"Bearer {await token_of(page)}"}
    for earlier, to in prefix:  # up to the move that sets off three automatic moves
        async with http.post(
            f"/v1/games/{game_id}/moves", json={"card": earlier, "to": to}, headers=headers
        ) as response:
            assert response.status == 201, await response.text()
    await page.reload()
    await idle(page)
    before = int(await field(page, "foundation_cards"))
    await page.evaluate("""() => {
      window.seen = [];
      const node = document.querySelector('[data-field="foundation_cards"]');
      new MutationObserver(() => window.seen.push([Number(node.textContent), performance.now()]))
        .observe(node, {childList: true, characterData: true, subtree: true});
    }""")
    await click_card(page, card)
    await click_pile(page, target)
    seen = await page.evaluate("window.seen")
    after = int(await field(page, "foundation_cards"))
    assert after >= before + 3
    firsts: dict[int, float] = {}
    for value, at in seen:
        firsts.setdefault(value, at)
    # one card at a time, each shown for a moment before the next goes up
    ups = [value for value in firsts if value > before]
    assert ups == list(range(before + 1, after + 1)), seen
    gaps = [firsts[v + 1] - firsts[v] for v in ups[:-1]]
    assert min(gaps) >= 100, gaps
    await same_as_api(page, http, game_id)


async def test_a_blocked_game_says_so_and_undo_helps(
    page: Any, http: aiohttp.ClientSession
) -> None:
    # Beleaguered Castle deal 6: moving row 7's free card onto row 2 leaves no legal move
    game_id = await open_deal(page, "beleaguered_castle", 6)
    assert await page.is_hidden("#banner")
    card = (await shown(page))["tableau"][6][-1]
    await click_card(page, card)
    await click_pile(page, "t2")
    game = await same_as_api(page, http, game_id)
    assert game["status"] == "blocked"
    assert (await page.inner_text("#banner")).startswith("No legal move is left.")
    assert "No legal move is left" in await field(page, "message")
    await page.click("#banner button")
    await idle(page)
    game = await same_as_api(page, http, game_id)
    assert game["status"] == "playing" and game["moves"] == 0
    assert await page.is_hidden("#banner")


async def test_a_second_page_watches_the_game_live(
    pages: Pages, http: aiohttp.ClientSession
) -> None:
    player = await pages.new()
    game_id = await open_deal(player, "freecell", 3)
    watcher = await pages.new(width=1000)  # another browser: another player, no token
    await watcher.goto(f"/?game={game_id}")
    await idle(watcher)
    assert await watcher.get_attribute("body", "data-mode") == "watch"
    # watching makes no player
    assert await watcher.evaluate("localStorage.getItem('open-solitaire.player')") is None
    assert await watcher.is_hidden("#record-panel") and await watcher.is_hidden("#devices-panel")
    await watcher.wait_for_function("() => document.body.dataset.live === 'live'")
    assert await watcher.is_hidden("#actions")

    async def follows() -> None:
        game = await api_get(http, f"/v1/games/{game_id}")
        await watcher.wait_for_function(
            f"() => document.querySelector('#table').dataset.version === '{game['version']}'"
            " && document.body.dataset.busy === 'false'"
        )
        await same_as_api(watcher, http, game_id)

    plan = [(c, t) for c, t in solution_plan("freecell", 3)[:8]]
    for card, target in plan[:4]:
        if await on_foundation(player, card):
            continue
        await click_card(player, card)
        await click_pile(player, target)
        await follows()
    await player.keyboard.press("Control+z")
    await idle(player)
    await follows()

    # the watcher cannot move the cards
    free = (await shown(watcher))["tableau"][0][-1]
    await click_card(watcher, free)
    assert "watching" in await field(watcher, "message")
    await follows()

    # after its connection drops, the watcher comes back from the last event it saw
    await watcher.evaluate("() => window.openSolitaire.app.feed.socket.close()")
    await player.keyboard.press("Control+y")
    await idle(player)
    await follows()
    assert await watcher.evaluate("document.body.dataset.live") == "live"
    await watcher.screenshot(path=screenshot_path("watching.png"), full_page=True)


async def test_giving_a_game_up(page: Any, http: aiohttp.ClientSession) -> None:
    """Give up ends the game in play as abandoned, once the player says so; a game over
    offers it no more."""
    game_id = await open_deal(page, "freecell", 5)
    assert await page.is_visible("#give-up")
    page.once("dialog", lambda dialog: dialog.dismiss())  # not now: nothing happens
    await page.click("#give-up")
    await idle(page)
    assert (await api_get(http, f"/v1/games/{game_id}"))["status"] == "playing"
    page.once("dialog", lambda dialog: dialog.accept())
    await page.click("#give-up")
    await idle(page)
    game = await same_as_api(page, http, game_id)
    assert game["status"] == "abandoned"
    assert await field(page, "status") == "abandoned"
    assert "given up" in await page.inner_text("#banner")
    assert await page.is_hidden("#give-up")
    record = await api_get(http, f"/v1/players/{game['player_id']}")
    assert record["abandoned"] == 1 and record["playing"] == 0
    await page.context.clear_cookies()
    await page.evaluate("localStorage.clear()")  # now someone else, who only watches
    await page.goto(f"/?game={game_id}")
    await idle(page)
    said = await field(page, "message")
    assert said == "FreeCell deal 5, abandoned. “Replay this game” shows how it was played."


async def test_another_game_gives_up_the_touched_one_in_play(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """Restart (as any other deal) leaves an untouched game in play as it is; once a move
    was made, it asks, and gives the game up (a lost game in the record) when the player
    says so, or keeps it in play when they do not."""
    asked: list[str] = []
    answer = {"accept": False}

    async def on_dialog(dialog: Any) -> None:
        asked.append(dialog.message)
        await (dialog.accept() if answer["accept"] else dialog.dismiss())

    page.on("dialog", on_dialog)
    untouched = await open_deal(page, VARIANT, DEAL, autoplay=False)
    await page.click("#restart")
    await idle(page)
    touched = game_id_of(page.url)
    assert touched != untouched and asked == []
    assert (await api_get(http, f"/v1/games/{untouched}"))["status"] == "playing"

    card, target = solution_plan(VARIANT, DEAL)[0]
    await click_card(page, card)
    await click_pile(page, target)
    await page.click("#restart")  # not now: the game stays, in play
    await idle(page)
    assert len(asked) == 1 and "lost" in asked[0]
    assert game_id_of(page.url) == touched
    game = await same_as_api(page, http, touched)
    assert (game["status"], game["moves"]) == ("playing", 1)

    answer["accept"] = True
    await page.click("#restart")
    await idle(page)
    assert len(asked) == 2 and game_id_of(page.url) != touched
    assert (await api_get(http, f"/v1/games/{touched}"))["status"] == "abandoned"
    record = await api_get(http, f"/v1/players/{game['player_id']}")
    assert (record["abandoned"], record["playing"]) == (1, 2)


async def test_phone_layout_does_not_scroll_sideways(pages: Pages) -> None:
    page = await pages.new(width=390, height=844)
    await open_deal(page, "bakers_dozen", 5)
    widths = await page.evaluate("""() => {
      const box = document.querySelector('.table-scroll');
      return {inner: box.clientWidth, outer: box.scrollWidth,
              page: document.documentElement.scrollWidth};
    }""")
    assert widths["outer"] <= widths["inner"]  # the thirteen columns fit (in two rows)
    assert widths["page"] <= 390  # and so does the page
    await page.screenshot(path=screenshot_path("phone.png"), full_page=True)
