"""Standings, a player's story and friends in the web client (API.md, "Grades, standings
and a player's story"): after a win the page draws the deal's winning times (the bins of
/times), the win marked in its bin; `/?player={id}` shows the figures and charts of
/stats; Follow buttons on the deal's board and the friends' board. Each view at a phone's
width and a desktop's (screenshots in tests/artifacts), and checked by axe-core."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import re
import time
from typing import Any

import aiohttp
import pytest

from engine import Game

from .conftest import Pages, screenshot_path
from .helpers import api_get, click_card, click_pile, idle, overlap, solution_plan

pytestmark = pytest.mark.browser

DESKTOP = (1280, 900)
PHONE = (390, 844)
VARIANT, DEAL = "freecell", 3
BIN_MS = 10_000  # the boards' bins of time (service/boards/board.py)
# the games as the page names them, in its order (cards.js)
TITLES = {"freecell": "FreeCell", "bakers_game": "Baker's Game",
          "bakers_dozen": "Baker's Dozen", "beleaguered_castle": "Beleaguered Castle"}  # fmt: skip

# the chart `selector` as drawn: its name, its bars (by the data-* of each) and the mark of
# the player's own time, each with its box on the screen
CHART_JS = """(selector) => {
  const svg = document.querySelector(selector);
  if (!svg) return null;
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
  };
  const mark = svg.querySelector('[data-mark="mine"]');
  const axis = svg.querySelector('line.axis');
  return {
    role: svg.getAttribute('role'),
    label: svg.getAttribute('aria-label'),
    title: svg.querySelector('title')?.textContent,
    box: box(svg),
    axis: axis ? box(axis) : null,
    bars: [...svg.querySelectorAll('rect.bar')].map((r) => ({...r.dataset, ...box(r)})),
    texts: [...svg.querySelectorAll('text')].map((t) => ({text: t.textContent, ...box(t)})),
    mark: mark && {ms: Number(mark.dataset.ms), text: mark.querySelector('text').textContent,
                   line: box(mark.querySelector('line')), label: box(mark.querySelector('text'))},
  };
}"""


def fmt(ms: int) -> str:
    """formatTime of format.js: 3:07, 1:02:07."""
    total = max(0, ms // 1000)
    h, m, s = total // 3600, total % 3600 // 60, total % 60
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"


def winning_moves(variant: str = VARIANT, deal: int = DEAL) -> list[dict[str, str]]:
    """The stored winning line as the moves a player makes, automatic moves on: a card
    that went up by itself already is left out (the engine says which)."""
    game, _ = Game.new(variant, deal)
    moves = []
    for card, target in solution_plan(variant, deal):
        if game.position.locate(card)[0] == "f":
            continue
        game.play_card(card, target)
        moves.append({"card": card, "to": target})
    assert game.status == "won"
    return moves


async def new_player(http: aiohttp.ClientSession, name: str) -> dict[str, str]:
    async with http.post("/v1/players", json={"name": name}) as response:
        assert response.status == 201, await response.text()
        player: dict[str, str] = await response.json()
    return player


def auth(player: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


async def post(
    http: aiohttp.ClientSession, player: dict[str, str], path: str, body: Any = None
) -> Any:
    async with http.post(path, json=body or {}, headers=auth(player)) as response:
        assert response.status in (200, 201), await response.text()
        return await response.json()


async def new_game(
    http: aiohttp.ClientSession, player: dict[str, str], variant: str = VARIANT, deal: int = DEAL
) -> dict[str, Any]:
    body = {"variant": variant, "deal": deal, "autoplay": True}
    game: dict[str, Any] = await post(http, player, "/v1/games", body)
    return game


async def play(
    http: aiohttp.ClientSession, player: dict[str, str], game_id: str, moves: list[Any]
) -> dict[str, Any]:
    """`moves` in one batch: the game after them."""
    answer = await post(http, player, f"/v1/games/{game_id}/moves", {"moves": moves})
    game: dict[str, Any] = answer["game"]
    return game


async def win(
    http: aiohttp.ClientSession, player: dict[str, str], variant: str = VARIANT,
    deal: int = DEAL, game_id: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    if game_id is None:
        game_id = (await new_game(http, player, variant, deal))["id"]
    game = await play(http, player, game_id, winning_moves(variant, deal))
    assert game["status"] == "won", game
    return game


async def as_player(pages: Pages, player: dict[str, str], size: tuple[int, int] = DESKTOP) -> Any:
    """A page whose localStorage holds `player` before any script of the page runs."""
    page = await pages.new(width=size[0], height=size[1])
    stored = json.dumps({k: player[k] for k in ("id", "name", "token")})
    await page.add_init_script(f"localStorage.setItem('open-solitaire.player', {stored!r});")
    return page


async def no_axe_violations(page: Any, what: str) -> None:
    """axe-core's rules (WCAG 2 A and AA, and its best practices) on the whole page."""
    from axe_playwright_python.async_playwright import Axe

    results = await Axe().run(page)
    assert results.violations_count == 0, f"{what}: {results.generate_report()}"


async def shoot(page: Any, name: str) -> None:
    """The whole page, from its top (the game's bar is sticky: scrolled, it would show
    halfway down a whole-page picture)."""
    await page.evaluate("window.scrollTo(0, 0)")
    await page.screenshot(path=screenshot_path(name), full_page=True)


def inside(inner: dict[str, float], outer: dict[str, float], slack: float = 0.5) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


# ------------------------------------------------------------------ standings after a win


async def check_standings(page: Any, http: aiohttp.ClientSession, game: dict[str, Any]) -> Any:
    """The chart shows the bins /times gives, bar heights by their counts, and the
    game's own time marked inside the bin it falls in; the sentence above it says the
    rank where the game's view says `standing`. The chart as drawn."""
    times = await api_get(http, f"/v1/leaderboards/{VARIANT}/{DEAL}/times")
    bins = times["bins"]
    assert bins and times["winners"] == sum(b["count"] for b in bins)
    await page.wait_for_function(
        """(n) => document.querySelectorAll(
             '#standings [data-chart="standings"] rect.bar').length === n""",
        arg=len(bins),
    )
    assert await page.is_visible("#standings")
    chart = await page.evaluate(CHART_JS, '#standings [data-chart="standings"]')
    assert chart["role"] == "img" and chart["label"] == chart["title"]
    assert f"{times['winners']} winner" in chart["label"]

    # the bars are the bins, left to right, each as tall as its count
    drawn = [(int(b["fromMs"]), int(b["toMs"]), int(b["count"])) for b in chart["bars"]]
    assert drawn == [(b["from_ms"], b["to_ms"], b["count"]) for b in bins]
    for left, right in itertools.pairwise(chart["bars"]):
        assert left["x"] + left["width"] <= right["x"] + 0.01, (left, right)
    most = max(b["count"] for b in bins)
    tallest = max(b["height"] for b in chart["bars"])
    for bar in chart["bars"]:
        assert abs(bar["height"] - tallest * int(bar["count"]) / most) < 1.5, bar
        assert inside(bar, chart["box"]), bar

    # the game's own time: marked, and inside the bar of its bin (and no other)
    ms = game["elapsed_ms"]
    mine = [i for i, b in enumerate(bins) if b["from_ms"] <= ms < b["to_ms"]]
    assert len(mine) == 1, (ms, bins)
    mark = chart["mark"]
    assert mark is not None and mark["ms"] == ms
    assert fmt(ms) in mark["text"]
    x = mark["line"]["x"] + mark["line"]["width"] / 2
    for i, bar in enumerate(chart["bars"]):
        within = bar["x"] - 0.5 <= x < bar["x"] + bar["width"] + 0.5
        assert within == (i == mine[0]), (i, bar, x)
        assert (bar.get("mine") == "true") == (i == mine[0])
    # the mark's label is whole, inside the chart, and clear of the bars
    assert inside(mark["label"], chart["box"]), (mark, chart["box"])
    for bar in chart["bars"]:
        assert not overlap(mark["label"], bar), (mark["label"], bar)

    sentence = await page.inner_text('#standings [data-field="standing"]')
    view = await api_get(http, f"/v1/games/{game['id']}")
    standing = view.get("standing")
    if standing:
        assert f"rank {standing['rank']} of {standing['of']}" in sentence
    else:
        assert "rank" not in sentence.lower()
    return chart


async def test_standings_after_a_win(pages: Pages, http: aiohttp.ClientSession) -> None:
    """Four winners of FreeCell deal 3 ten seconds apart: three bins. The page's player
    wins in the page, in the middle bin; the chart follows /times as it grows."""
    moves = winning_moves()
    others = [await new_player(http, name) for name in ("quick", "middling", "slow")]
    started = time.monotonic()
    games = [await new_game(http, p) for p in others]
    await win(http, others[0], game_id=games[0]["id"])  # at once: the first bin

    me = await new_player(http, "winner")
    page = await as_player(pages, me)
    await page.goto(f"/?variant={VARIANT}&deal={DEAL}")
    await idle(page)
    gid = re.search(r"game=([0-9a-f-]{36})", page.url).group(1)  # type: ignore[union-attr]
    mine_started = time.monotonic()
    await play(http, me, gid, moves[:-1])  # all but the winning move, then in the page
    await asyncio.sleep(max(0.0, 12.5 - (time.monotonic() - started)))
    await win(http, others[1], game_id=games[1]["id"])  # the second bin
    await asyncio.sleep(max(0.0, 11.5 - (time.monotonic() - mine_started)))
    await page.reload()
    await idle(page)
    assert await page.is_hidden("#standings")  # not won yet: no standings
    await click_card(page, moves[-1]["card"])
    await click_pile(page, moves[-1]["to"])
    game = await api_get(http, f"/v1/games/{gid}")
    assert game["status"] == "won"
    assert BIN_MS <= game["elapsed_ms"] < 2 * BIN_MS
    chart = await check_standings(page, http, game)  # two bins: the win in the second
    assert len(chart["bars"]) == 2 and "You:" in chart["mark"]["text"]

    # a slower winner: the chart read again when the won game is opened again
    await asyncio.sleep(max(0.0, 22.0 - (time.monotonic() - started)))
    await win(http, others[2], game_id=games[2]["id"])
    await page.reload()
    await idle(page)
    chart = await check_standings(page, http, game)
    assert len(chart["bars"]) == 3
    assert [b.get("mine") for b in chart["bars"]] == [None, "true", None]
    await page.locator("#standings").scroll_into_view_if_needed()
    await shoot(page, "standings_desktop.png")
    await page.locator("#standings").screenshot(path=screenshot_path("standings_chart_desktop.png"))
    await no_axe_violations(page, "standings, desktop")

    await page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    await page.wait_for_function(
        """(w) => document.querySelector('#standings svg').getBoundingClientRect().width < w""",
        arg=PHONE[0],
    )
    chart = await check_standings(page, http, game)
    assert chart["box"]["x"] >= 0 and chart["box"]["x"] + chart["box"]["width"] <= PHONE[0]
    for text in chart["texts"]:
        assert text["height"] >= 12, text  # as large at a phone's width
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    await shoot(page, "standings_phone.png")
    await page.locator("#standings").screenshot(path=screenshot_path("standings_chart_phone.png"))
    await no_axe_violations(page, "standings, phone")


async def test_standings_say_the_rank_when_the_view_has_it(
    pages: Pages, http: aiohttp.ClientSession
) -> None:
    """`standing` in the game's view (a newer server) shows as "rank N of M"; without it
    (a hinted win, an older server) the page shows the chart and no rank."""
    me = await new_player(http, "ranked")
    game = await win(http, me)
    given: dict[str, Any] = {"standing": {"rank": 7, "of": 41}}

    async def answer(route: Any) -> None:
        # the whole view every time (no 304 for what the page kept), `standing` as given
        headers = {k: v for k, v in route.request.headers.items() if k != "if-none-match"}
        response = await route.fetch(headers=headers)
        body = await response.json()
        body.pop("standing", None)
        if given["standing"]:
            body["standing"] = given["standing"]
        await route.fulfill(response=response, json=body)

    page = await as_player(pages, me)
    await page.route(re.compile(r"/v1/games/[0-9a-f-]{36}$"), answer)
    await page.goto(f"/?game={game['id']}")
    await idle(page)
    await page.wait_for_selector('#standings [data-chart="standings"]')
    sentence = await page.inner_text('#standings [data-field="standing"]')
    assert "rank 7 of 41" in sentence and fmt(game["elapsed_ms"]) in sentence
    assert "Rank 7 of 41" in await page.get_attribute(
        '#standings [data-chart="standings"]', "aria-label"
    )

    given["standing"] = None
    await page.reload()
    await idle(page)
    await page.wait_for_selector('#standings [data-chart="standings"] [data-mark="mine"]')
    sentence = await page.inner_text('#standings [data-field="standing"]')
    assert "rank" not in sentence.lower() and "1 winner" in sentence


async def test_thirty_bins_fit_a_phone(pages: Pages, http: aiohttp.ClientSession) -> None:
    """The most bins /times gives (30), on a phone: a bar each, the axis' labels clear of
    one another and inside the chart, the win marked in its bin."""
    me = await new_player(http, "thirty")
    game = await win(http, me)
    width = 40_000
    bins = [{"from_ms": i * width, "to_ms": (i + 1) * width, "count": (i * 7) % 5 + (i == 0)}
            for i in range(30)]  # fmt: skip
    times = {"variant": VARIANT, "deal": DEAL, "winners": sum(b["count"] for b in bins),
             "bins": bins}  # fmt: skip

    async def answer(route: Any) -> None:
        await route.fulfill(json=times)

    page = await as_player(pages, me, PHONE)
    await page.route(re.compile(rf"/v1/leaderboards/{VARIANT}/{DEAL}/times$"), answer)
    await page.goto(f"/?game={game['id']}")
    await idle(page)
    await page.wait_for_selector('#standings [data-chart="standings"] [data-mark="mine"]')
    chart = await page.evaluate(CHART_JS, '#standings [data-chart="standings"]')
    drawn = [(int(b["fromMs"]), int(b["toMs"]), int(b["count"])) for b in chart["bars"]]
    assert drawn == [(b["from_ms"], b["to_ms"], b["count"]) for b in bins]
    assert [b.get("mine") for b in chart["bars"]] == ["true"] + [None] * 29
    x = chart["mark"]["line"]["x"] + chart["mark"]["line"]["width"] / 2
    first = chart["bars"][0]
    assert first["x"] - 0.5 <= x < first["x"] + first["width"] + 0.5
    texts = chart["texts"]
    assert len([t for t in texts if re.fullmatch(r"\d+:\d\d", t["text"])]) >= 4
    for i, one in enumerate(texts):
        assert inside(one, chart["box"]), one
        for other in texts[i + 1 :]:
            assert not overlap(one, other), (one, other)
    await page.locator("#standings").screenshot(path=screenshot_path("standings_30_phone.png"))


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
    await page.wait_for_selector(f'#record a[href="{story}"]')
    await page.click(entry)
    await page.wait_for_url(f"**{story}")
    await idle(page)
    assert await page.is_hidden("#game") and await page.is_hidden("#board-panel")
    assert await page.inner_text("#story-title") == f"Your games ({me['name']})"
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
    race = await post(http, me, "/v1/races", {"variant": VARIANT, "deal": DEAL,
                                              "starts_in_s": 600})  # fmt: skip
    await reader.goto(f"/?race={race['id']}")
    await idle(reader)
    racer = f'[data-racer="{me["id"]}"] a.player-link'
    await reader.wait_for_selector(racer)
    assert await reader.get_attribute(racer, "href") == story

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
