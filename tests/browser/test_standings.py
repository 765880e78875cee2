"""Standings after a win in the web client (API.md, "Grades, standings and a player's
story"): the page draws the deal's winning times (the bins of /times) as a chart, the win
marked in its bin and the rank the game's view gives said above it; the chart follows /times
as it grows, and thirty bins still fit a phone. At a phone's width and a desktop's
(screenshots in tests/artifacts), and checked by axe-core."""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from typing import Any

import aiohttp
import pytest

from .conftest import Pages, screenshot_path
from .helpers import (
    CHART_JS,
    DEAL,
    PHONE,
    VARIANT,
    api_get,
    as_player,
    click_card,
    click_pile,
    fmt,
    idle,
    inside,
    new_game,
    new_player,
    no_axe_violations,
    overlap,
    play,
    shoot,
    win,
    winning_moves,
)

pytestmark = pytest.mark.browser

BIN_MS = 10_000  # the boards' bins of time (service/boards/board.py)


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
