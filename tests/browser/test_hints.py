"""Hints in the reference web client: the button follows the server, the first hint of a
game is asked for twice (it marks the game assisted for good), the hinted move is marked
and played by taps, and a game not in play asks for none."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from .helpers import api_get, click_card, click_pile, field, idle, open_deal, same_as_api, token_of

pytestmark = pytest.mark.browser


async def test_hint(page: Any, http: aiohttp.ClientSession) -> None:
    """The hint button follows the server: hidden while it has no hint endpoint; otherwise
    the hinted card and place are marked, and tapping them plays the move. A hint asked
    for (POST: it goes on the game's record) makes the game assisted, and the page says so,
    and asks to be sure before the first."""
    game_id = await open_deal(page, "freecell", 3)
    async with http.get(f"/v1/games/{game_id}/hint") as response:
        has_hints = response.status != 404
    if not has_hints:
        assert await page.is_hidden("#hint")
        return
    assert await page.is_hidden("#assisted")
    await page.click("#hint")  # the first asks to be sure: the game would be assisted
    await idle(page)
    assert "Ask again for the hint" in await field(page, "message")
    unasked = await api_get(http, f"/v1/games/{game_id}")
    assert unasked["hints"] == 0 and unasked["assisted"] is False
    await page.click("#hint")
    await idle(page)
    assert (await field(page, "message")).startswith("Hint:")
    card = await page.get_attribute("#table .hint-card", "data-card")
    pile = await page.get_attribute("#table [data-hint]", "data-pile")
    assert card and pile
    game = await api_get(http, f"/v1/games/{game_id}")
    if game.get("hints"):  # a server that records hints: the hint is in the log
        assert game["assisted"] is True and game["version"] >= 2
        assert await page.is_visible("#assisted")
        assert await page.get_attribute("#table", "data-version") == str(game["version"])
    else:
        assert await page.is_hidden("#assisted")
    await click_card(page, card)
    await click_pile(page, pile)
    assert await field(page, "moves") == "1"  # the move went with the version after the hint
    await same_as_api(page, http, game_id)


# Baker's Dozen deal 3 played into a position with no legal move left (blocked)
BLOCKING = [("t8", "t3"), ("t2", "t1"), ("t1", "t11"), ("t10", "t3"), ("t10", "t11"),
            ("t7", "t4"), ("t7", "t9"), ("t6", "t9"), ("t6", "t3"), ("t7", "t5")]


async def test_the_hint_key_asks_nothing_where_the_button_is_greyed_out(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """A blocked game's Hint button is greyed out, and the H key asks nothing either: a
    hint there tells nothing and would still mark the game assisted."""
    game_id = await open_deal(page, "bakers_dozen", 3, autoplay=False)
    moves = [{"from": source, "to": target} for source, target in BLOCKING]
    async with http.post(f"/v1/games/{game_id}/moves", json={"moves": moves},
                         headers={"Authorization": f"Bearer {await token_of(page)}"}) as r:
        assert r.status == 201, await r.text()
        assert (await r.json())["game"]["status"] == "blocked"
    await page.reload()
    await idle(page)
    assert await page.is_disabled("#hint")
    await page.keyboard.press("h")
    await idle(page)
    game = await api_get(http, f"/v1/games/{game_id}")
    assert game["hints"] == 0 and game["assisted"] is False, game
