"""Deals by difficulty in the web client: the form's Difficulty deals a random deal of that
grade, and Today's deal becomes the day's deal of that grade."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from .helpers import api_get, game_id_of, idle

pytestmark = pytest.mark.browser


async def test_a_random_and_a_daily_deal_of_a_grade(page: Any, http: aiohttp.ClientSession) -> None:
    await page.goto("/")
    await idle(page)
    await page.select_option("#variant", "bakers_game")
    await page.select_option("#grade", "expert")
    await idle(page)
    daily = await api_get(http, "/v1/daily/bakers_game?grade=expert")
    button = page.locator("#daily-deal")
    await page.wait_for_function(
        f"() => document.querySelector('#daily-deal').dataset.deal === '{daily['deal']}'"
    )
    assert await button.inner_text() == f"Today's expert deal ({daily['deal']})"

    for _ in range(3):
        before = page.url
        await page.click("#random-deal")
        await page.wait_for_function(f"() => location.href !== {before!r}")
        await idle(page)
        game = await api_get(http, f"/v1/games/{game_id_of(page.url)}")
        deal = await api_get(http, f"/v1/deals/bakers_game/{game['deal']}")
        assert game["variant"] == "bakers_game" and deal["grade"] == "expert"

    before = page.url
    await button.click()
    await page.wait_for_function(f"() => location.href !== {before!r}")
    await idle(page)
    game = await api_get(http, f"/v1/games/{game_id_of(page.url)}")
    assert game["deal"] == daily["deal"]
