"""A player's story and friends in the web client (API.md, "Grades, standings and a
player's story"): `/?player={id}` shows the figures and charts of /stats; Follow buttons on
the deal's board and the friends' board. Each view at a phone's width and a desktop's
(screenshots in tests/artifacts), and checked by axe-core."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import aiohttp
import pytest

from .conftest import Pages, screenshot_path
from .helpers import (
    CHART_JS,
    DEAL,
    DESKTOP,
    PHONE,
    VARIANT,
    api_get,
    as_player,
    auth,
    fmt,
    idle,
    inside,
    new_game,
    new_player,
    no_axe_violations,
    open_deal,
    play,
    post,
    shoot,
    win,
    winning_moves,
)

pytestmark = pytest.mark.browser

# the games as the page names them, in its order (cards.js)
TITLES = {"freecell": "FreeCell", "bakers_game": "Baker's Game",
          "bakers_dozen": "Baker's Dozen", "beleaguered_castle": "Beleaguered Castle"}  # fmt: skip

# ------------------------------------------------------------------ a player's story

STORY = '[data-page="stats"]'
FIELDS = ("played", "won", "won_assisted", "win_rate", "streak", "best_streak", "best_ms",
          "median_ms")  # fmt: skip


def written(field: str, value: Any) -> str:
    """A figure as the page writes it."""
    if field == "win_rate":
        return f"{math.floor(value * 100 + 0.5)}%"
    if field.endswith("_ms"):
        return "none yet" if value is None else fmt(value)
    return str(value)


async def check_story(page: Any, stats: dict[str, Any], width: int) -> None:
    """Every game's block shows the figures of /stats, and its charts the recent games
    of /stats, oldest on the left: the wins' times as tall as they are, the wins above
    the line and the losses below it."""
    await page.wait_for_selector(f'{STORY}[data-state="shown"]')
    shown = await page.eval_on_selector_all(
        f"{STORY} [data-variant]", "(nodes) => nodes.map((n) => n.dataset.variant)"
    )
    assert shown == [v for v in TITLES if v in stats["games"]]
    for variant, figures in stats["games"].items():
        block = f'{STORY} [data-variant="{variant}"]'
        assert await page.inner_text(f"{block} h3") == TITLES[variant]
        for name in FIELDS:
            dd = page.locator(f'{block} [data-field="{name}"]')
            raw = await dd.get_attribute("data-value")
            value = figures[name]
            same = raw == "" if value is None else float(raw) == value
            assert same, (variant, name, raw)
            assert (await dd.inner_text()).strip() == written(name, value), (variant, name)

        recent = [g for g in reversed(stats["recent"]) if g["variant"] == variant]
        wins = [g for g in recent if g["status"] == "won" and g["elapsed_ms"] is not None]
        times = await page.evaluate(CHART_JS, f'{block} [data-chart="times"]')
        if wins:
            assert times["role"] == "img" and f"last {len(wins)} win" in times["label"]
            assert [b["gameId"] for b in times["bars"]] == [g["game_id"] for g in wins]
            assert [int(b["ms"]) for b in times["bars"]] == [g["elapsed_ms"] for g in wins]
            xs = [b["x"] for b in times["bars"]]
            assert xs == sorted(xs)
            slowest = max(g["elapsed_ms"] for g in wins)
            tallest = max(b["height"] for b in times["bars"])
            for bar, g in zip(times["bars"], wins, strict=True):
                assert abs(bar["height"] - tallest * g["elapsed_ms"] / slowest) < 1.5, bar
        else:
            assert times is None
        results = await page.evaluate(CHART_JS, f'{block} [data-chart="results"]')
        if not recent:
            assert results is None
            continue
        assert results["role"] == "img"
        lost = sum(g["status"] != "won" for g in recent)
        assert f"{len(recent) - lost} won, {lost} lost" in results["label"]
        assert [(b["gameId"], b["status"]) for b in results["bars"]] == [
            (g["game_id"], g["status"]) for g in recent
        ]
        axis = results["axis"]["y"]
        for bar, g in zip(results["bars"], recent, strict=True):
            if g["status"] == "won":  # standing on the line
                assert abs(bar["y"] + bar["height"] - axis) < 1.5, bar
            else:  # hanging from it
                assert abs(bar["y"] - axis) < 1.5, bar
            assert bar["height"] > 5
        for chart in (times, results):
            if chart is None:
                continue
            assert chart["box"]["x"] >= 0 and chart["box"]["x"] + chart["box"]["width"] <= width
            for text in chart["texts"]:
                assert inside(text, chart["box"]), text
    assert await page.evaluate("document.documentElement.scrollWidth") <= width


async def test_a_players_story(pages: Pages, http: aiohttp.ClientSession) -> None:
    me = await new_player(http, "storyteller")
    first = await win(http, me)
    hinted = await new_game(http, me)
    await post(http, me, f"/v1/games/{hinted['id']}/hint")
    await win(http, me, game_id=hinted["id"])
    given_up = await new_game(http, me)
    await play(http, me, given_up["id"], winning_moves()[:6])
    await post(http, me, f"/v1/games/{given_up['id']}/abandon")
    slow = await new_game(http, me)
    await asyncio.sleep(2.5)
    await win(http, me, game_id=slow["id"])
    await win(http, me)
    await win(http, me, "bakers_game", 1)
    await new_game(http, me, "bakers_game", 2)  # still in play: played, not in `recent`
    stats = await api_get(http, f"/v1/players/{me['id']}/stats")
    assert set(stats["games"]) == {"freecell", "bakers_game"}

    # from the player's entry on a deal's board to their story
    page = await as_player(pages, me)
    await page.goto(f"/?game={first['id']}")
    await idle(page)
    entry = f'#leaderboard a.player-link[data-player="{me["id"]}"]'
    await page.wait_for_selector(entry)
    # their name in the header and the record panel leads there too
    story = f"/?player={me['id']}"
    assert await page.get_attribute("#who a", "href") == story
    assert await page.inner_text("#who a") == me["name"]
    # each name shown isolated from its neighbours, in its own direction (a Hebrew or an
    # Arabic name is drawn as it is alone: as names are compared, names.two_directions)
    for name in ("#who a", entry):
        assert await page.get_attribute(name, "dir") == "auto", name
    await page.wait_for_selector(f'#record a[href="{story}"]')
    await page.click(entry)
    await page.wait_for_url(f"**{story}")
    await idle(page)
    assert await page.is_hidden("#game") and await page.is_hidden("#board-panel")
    assert await page.inner_text("#story-title") == f"Your games ({me['name']})"
    assert await page.get_attribute("#story-title span", "dir") == "auto"
    await check_story(page, stats, DESKTOP[0])
    await shoot(page, "story_desktop.png")
    await no_axe_violations(page, "the story, desktop")

    # someone else reads it on a phone
    reader = await pages.new(width=PHONE[0], height=PHONE[1])
    await reader.goto(story)
    await idle(reader)
    assert await reader.inner_text("#story-title") == f"{me['name']}'s games"
    await check_story(reader, stats, PHONE[0])
    await shoot(reader, "story_phone.png")
    await no_axe_violations(reader, "the story, phone")

    # the player's name on a replay, and in a race's list of racers
    await reader.goto(f"/?replay={first['id']}")
    await idle(reader)
    await reader.wait_for_selector("#played-by:not([hidden])")
    assert await reader.get_attribute("#played-by-link", "href") == story
    assert await reader.inner_text("#played-by-link") == me["name"]
    assert await reader.get_attribute("#played-by-link", "dir") == "auto"
    race = await post(http, me, "/v1/races", {"variant": VARIANT, "deal": DEAL,
                                              "starts_in_s": 600})  # fmt: skip
    await reader.goto(f"/?race={race['id']}")
    await idle(reader)
    racer = f'[data-racer="{me["id"]}"] a.player-link'
    await reader.wait_for_selector(racer)
    assert await reader.get_attribute(racer, "href") == story
    assert await reader.get_attribute(racer, "dir") == "auto"

    # no such player: the welcome says so
    await reader.goto("/?player=00000000-0000-0000-0000-000000000000")
    await idle(reader)
    assert await reader.is_visible("#welcome") and await reader.is_hidden(STORY)
    assert "There is no player" in await reader.inner_text("#message")


# ------------------------------------------------------------------ friends


async def board_players(page: Any) -> list[str]:
    ids: list[str] = await page.eval_on_selector_all(
        "#leaderboard li a.player-link", "(nodes) => nodes.map((n) => n.dataset.player)"
    )
    return ids


async def friends_of(http: aiohttp.ClientSession, player: dict[str, str]) -> list[str]:
    async with http.get("/v1/players/me/friends", headers=auth(player)) as response:
        assert response.status == 200, await response.text()
        return [f["id"] for f in (await response.json())["friends"]]


async def test_following_players_from_the_board(pages: Pages, http: aiohttp.ClientSession) -> None:
    me, ann, bob = [await new_player(http, name) for name in ("follower", "ann", "bob")]
    for player in (ann, bob, me):
        mine = await win(http, player)
    page = await as_player(pages, me)
    await page.goto(f"/?game={mine['id']}")
    await idle(page)
    await page.wait_for_function("() => document.querySelectorAll('#leaderboard li').length === 3")
    assert set(await board_players(page)) == {me["id"], ann["id"], bob["id"]}
    # a button for each other player, none for the player's own entry
    follow = {p["id"]: page.locator(f'#leaderboard [data-follow="{p["id"]}"]') for p in (ann, bob)}
    assert await page.locator(f'#leaderboard [data-follow="{me["id"]}"]').count() == 0
    for button in follow.values():
        assert await button.get_attribute("aria-pressed") == "false"
    assert await friends_of(http, me) == []

    await follow[ann["id"]].click()
    await page.wait_for_selector(f'[data-follow="{ann["id"]}"][aria-pressed="true"]')
    assert await friends_of(http, me) == [ann["id"]]
    assert await follow[bob["id"]].get_attribute("aria-pressed") == "false"
    assert "You follow ann" in await page.inner_text("#board-message")

    # the friends' board: the player and those they follow, as the API ranks them
    await page.check('[data-board="friends"]')
    await page.wait_for_selector('#board-panel[data-showing="friends"]')
    await page.wait_for_function("() => document.querySelectorAll('#leaderboard li').length === 2")
    async with http.get(
        f"/v1/leaderboards/{VARIANT}/{DEAL}?friends=true&limit=20", headers=auth(me)
    ) as response:
        board = await response.json()
    expected = [e["player"]["id"] for e in board["entries"]]
    assert sorted(expected) == sorted([me["id"], ann["id"]])
    assert await board_players(page) == expected
    ranks = await page.eval_on_selector_all(
        "#leaderboard li > span:first-child", "(nodes) => nodes.map((n) => n.textContent)"
    )
    assert ranks == [f"{e['rank']}." for e in board["entries"]]
    await page.locator("#board-panel").scroll_into_view_if_needed()
    await shoot(page, "friends_desktop.png")
    await page.locator("#board-panel").screenshot(path=screenshot_path("friends_panel_desktop.png"))
    await no_axe_violations(page, "the friends' board, desktop")

    await page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    await page.locator("#board-panel").scroll_into_view_if_needed()
    panel = await page.locator("#board-panel").bounding_box()
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= PHONE[0]
    button = await follow[ann["id"]].bounding_box()
    assert button["x"] + button["width"] <= panel["x"] + panel["width"]
    assert button["height"] >= 24 and button["width"] >= 24  # a finger's target
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    await shoot(page, "friends_phone.png")
    await page.locator("#board-panel").screenshot(path=screenshot_path("friends_panel_phone.png"))
    await no_axe_violations(page, "the friends' board, phone")

    # unfollowing: gone from the friends' board and from the API's list
    await follow[ann["id"]].click()
    await page.wait_for_function("() => document.querySelectorAll('#leaderboard li').length === 1")
    assert await board_players(page) == [me["id"]]
    assert await friends_of(http, me) == []
    # the full board again, with bob followed from there this time
    await page.uncheck('[data-board="friends"]')
    await page.wait_for_selector('#board-panel[data-showing="all"]')
    await page.wait_for_function("() => document.querySelectorAll('#leaderboard li').length === 3")
    assert await follow[ann["id"]].get_attribute("aria-pressed") == "false"
    await follow[bob["id"]].click()
    await page.wait_for_selector(f'[data-follow="{bob["id"]}"][aria-pressed="true"]')
    assert await friends_of(http, me) == [bob["id"]]
    # read again with the page: the button says who is followed
    await page.reload()
    await idle(page)
    await page.wait_for_selector(f'[data-follow="{bob["id"]}"][aria-pressed="true"]')
    assert await follow[ann["id"]].get_attribute("aria-pressed") == "false"


async def test_the_record_panel_counts_what_the_server_counts(pages: Pages) -> None:
    """A win this device kept (a hinted one, say) that the server's record does not count
    is no best time and no deal won in the panel: the server's record is the judge."""
    page = await pages.new()
    await open_deal(page, VARIANT, DEAL)
    kept = {VARIANT: {"won": [10], "best": {"elapsed_ms": 27_000, "moves": 65, "deal": 10}}}
    await page.evaluate(
        "(kept) => localStorage.setItem('open-solitaire.record', JSON.stringify(kept))", kept
    )
    await page.reload()
    await idle(page)
    await page.wait_for_selector("#record >> text=0 won of 1 played")
    text = await page.text_content("#record") or ""
    assert "Best time" not in text and "Deals won" not in text, text
