"""Moving cards in the reference web client as a person would: a tapped card outlines
the piles the legal-moves answer allows, an illegal try shows the service's rule, keys pick
and move cards (all thirteen columns of Baker's Dozen too) and undo and redo, and a
double-click sends a card up or to a cell; the page checked against the API after each."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from engine import VARIANTS

from .helpers import (
    api_get,
    card_name,
    click_card,
    click_pile,
    expected_targets,
    field,
    game_id_of,
    idle,
    legal_piles,
    open_deal,
    same_as_api,
    shown,
    token_of,
)

pytestmark = pytest.mark.browser


async def test_outlined_destinations_are_the_legal_moves(
    page: Any, http: aiohttp.ClientSession
) -> None:
    game_id = await open_deal(page, "freecell", 617)
    for round_ in range(2):
        game = await api_get(http, f"/v1/games/{game_id}")
        legal = (await api_get(http, f"/v1/games/{game_id}/legal-moves"))["moves"]
        state = game["state"]
        checked = 0
        for i, column in enumerate(state["tableau"]):
            for depth in range(1, min(3, len(column)) + 1):
                card = column[-depth]
                await click_card(page, card)
                expected = expected_targets(legal, f"t{i + 1}", depth, state["cells"])
                assert await legal_piles(page) == expected, (card, depth)
                assert await page.get_attribute("#table", "data-selected") == card
                if checked == 0:
                    # the same card again drops the choice (unless tapped twice at once:
                    # that is a double tap)
                    await page.wait_for_timeout(600)
                    await click_card(page, card)
                else:
                    await page.keyboard.press("Escape")
                    await idle(page)
                assert await legal_piles(page) == set()
                assert await page.get_attribute("#table", "data-selected") == ""
                checked += 1
        assert checked >= 20
        # a column picked with the keyboard: where any number of its cards may go
        await page.keyboard.press("5")
        await idle(page)
        assert await legal_piles(page) == expected_targets(legal, "t5", None, state["cells"])
        await page.keyboard.press("Escape")
        await idle(page)
        assert await legal_piles(page) == set()
        if round_ == 0:
            # move something to a cell and check again in the new position
            await click_card(page, state["tableau"][1][-1])
            await click_pile(page, "c1")
            assert await field(page, "moves") == "1"


async def test_an_illegal_try_shows_the_rule(page: Any, http: aiohttp.ClientSession) -> None:
    game_id = await open_deal(page, "freecell", 617)
    game = await api_get(http, f"/v1/games/{game_id}")
    legal = (await api_get(http, f"/v1/games/{game_id}/legal-moves"))["moves"]
    tableau = game["state"]["tableau"]
    card, target = next(
        (column[-1], f"t{j + 1}")
        for i, column in enumerate(tableau)
        for j in range(len(tableau))
        if j != i and f"t{j + 1}" not in expected_targets(legal, f"t{i + 1}", 1, [])
    )
    await click_card(page, card)
    await click_pile(page, target)
    # the page says what the service says about that move
    async with http.post(
        f"/v1/games/{game_id}/moves",
        json={"card": card, "to": target},
        headers={"Authorization": f"Bearer {await token_of(page)}"},
    ) as response:
        assert response.status == 422
        detail = (await response.json())["detail"]
    assert await field(page, "message") == detail
    assert "error" in (await page.get_attribute("#message", "class") or "")
    assert await field(page, "moves") == "0"
    await same_as_api(page, http, game_id)
    assert await legal_piles(page) == set()


async def test_keyboard_moves_undo_and_redo(page: Any, http: aiohttp.ClientSession) -> None:
    game_id = await open_deal(page, "freecell", 617)
    legal = (await api_get(http, f"/v1/games/{game_id}/legal-moves"))["moves"]
    move = next(m for m in legal if m["from"].startswith("t") and m["to"].startswith("t"))
    source, target = move["from"][1:], move["to"][1:]
    await page.keyboard.press(source)
    await idle(page)
    assert move["to"] in await legal_piles(page)
    await page.keyboard.press(target)
    await idle(page)
    after_one = await same_as_api(page, http, game_id)
    assert after_one["moves"] == 1

    # a column's free card to a cell with L, then back from the cell with L and a digit
    column = next(i for i, c in enumerate(after_one["state"]["tableau"]) if c)
    card = after_one["state"]["tableau"][column][-1]
    await page.keyboard.press(str(column + 1))
    await page.keyboard.press("l")
    await idle(page)
    game = await same_as_api(page, http, game_id)
    assert card in game["state"]["cells"]
    assert game["moves"] == 2

    await page.keyboard.press("Control+z")
    await idle(page)
    game = await same_as_api(page, http, game_id)
    assert game["moves"] == 1 and card not in game["state"]["cells"]
    await page.keyboard.press("Control+y")
    await idle(page)
    game = await same_as_api(page, http, game_id)
    assert game["moves"] == 2 and card in game["state"]["cells"]
    await page.keyboard.press("Control+z")
    await page.keyboard.press("Control+z")
    await idle(page)
    assert (await same_as_api(page, http, game_id))["moves"] == 0
    await page.keyboard.press("Control+Shift+z")
    await idle(page)
    assert (await same_as_api(page, http, game_id))["moves"] == 1

    # L picks the cells' cards one after the other; Esc drops the choice
    await page.keyboard.press("Escape")
    await page.keyboard.press(str(column + 1))
    await page.keyboard.press("l")
    await idle(page)
    await page.keyboard.press("l")
    await idle(page)
    assert await page.get_attribute("#table", "data-selected") == "c1"
    await page.keyboard.press("Escape")
    await idle(page)
    assert await page.get_attribute("#table", "data-selected") == ""


async def test_keys_reach_all_thirteen_columns_of_bakers_dozen(page: Any) -> None:
    await open_deal(page, "bakers_dozen", 5)
    for key, pile in (
        ("1", "t1"),
        ("9", "t9"),
        ("0", "t10"),
        ("-", "t11"),
        ("=", "t12"),
        ("\\", "t13"),
        ("Shift+Digit1", "t11"),
        ("Shift+Digit3", "t13"),
    ):
        await page.keyboard.press(key)
        await idle(page)
        assert await page.get_attribute("#table", "data-selected") == pile, key
        await page.keyboard.press("Escape")
        await idle(page)


async def test_double_click_sends_a_card_up_or_to_a_cell(
    page: Any, http: aiohttp.ClientSession
) -> None:
    # a deal with an ace free at the start, played without automatic moves
    deal, ace = next(
        (n, column[-1].text)
        for n in range(1, 500)
        for column in VARIANTS["freecell"].deal(n).tableau
        if column[-1].rank == 1
    )
    game_id = await open_deal(page, "freecell", deal, autoplay=False)
    await click_card(page, ace, double=True)
    game = await same_as_api(page, http, game_id)
    assert game["state"]["foundations"][ace[-1]] == 1
    assert await field(page, "foundation_cards") == "1"
    assert await page.get_attribute("#table", "data-selected") == ""

    # a card that cannot go up goes to the first free cell
    tops = [column[-1] for column in game["state"]["tableau"] if column]
    card = next(c for c in tops if game["state"]["foundations"][c[-1]] != _rank(c) - 1)
    await click_card(page, card, double=True)
    game = await same_as_api(page, http, game_id)
    assert game["state"]["cells"][0] == card
    assert game["moves"] == 2

    # that card, in its cell, only goes up: a double click says why it cannot yet, and
    # does not spend a move on another free cell
    await click_card(page, card, double=True)
    await idle(page)
    assert "error" in (await page.get_attribute("#message", "class") or "")
    game = await same_as_api(page, http, game_id)
    assert game["state"]["cells"][0] == card
    assert game["moves"] == 2


def _rank(card: str) -> int:
    return {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}.get(card[0]) or int(card[0])


async def test_a_card_dragged_onto_a_pile_moves_there(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """A drag with the mouse: the card (with the cards on it) goes where it is dropped, as
    taps would send it; dropped where it may not go, it stays, with the rule said."""
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    game = await api_get(http, f"/v1/games/{game_id}")
    legal = (await api_get(http, f"/v1/games/{game_id}/legal-moves"))["moves"]
    to_column = next(m for m in legal if m["to"][0] == "t")
    source = game["state"]["tableau"][int(to_column["from"][1:]) - 1]
    card = source[-1]
    await page.drag_and_drop(f'#table [data-card="{card}"]',
                             f'#table [data-pile="{to_column["to"]}"] [data-card]:last-child')
    await idle(page)
    after = await same_as_api(page, http, game_id)
    assert after["version"] == game["version"] + 1
    target = after["state"]["tableau"][int(to_column["to"][1:]) - 1]
    assert target[-1] == card
    # onto a column where it may not go: nothing moves, and the message says why
    legal = (await api_get(http, f"/v1/games/{game_id}/legal-moves"))["moves"]
    column = next(i for i, c in enumerate(after["state"]["tableau"])
                  if c and f"t{i + 1}" != to_column["to"]
                  and not any(m == {"from": to_column["to"], "to": f"t{i + 1}", "count": 1}
                              for m in legal))
    await page.drag_and_drop(f'#table [data-card="{card}"]',
                             f'#table [data-pile="t{column + 1}"] [data-card]:last-child')
    await idle(page)
    assert (await same_as_api(page, http, game_id))["version"] == after["version"]
    assert "cannot go" in (await page.text_content("#message") or "")
    # a drag into a free cell
    await page.drag_and_drop(f'#table [data-card="{card}"]', '#table [data-pile="c2"]')
    await idle(page)
    assert (await same_as_api(page, http, game_id))["state"]["cells"][1] == card


async def test_the_keyboards_focus_stays_on_the_table_after_a_move(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """Enter on a focused card chooses it, Enter on a focused pile moves it there: the
    table is drawn again, and the focus stays with the card moved (Tab goes on from
    there, not from the top of the page)."""
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    card = (await shown(page))["tableau"][0][-1]
    await page.focus(f'#table [data-card="{card}"]')
    await page.keyboard.press("Enter")
    await idle(page)
    await page.focus('#table [data-pile="c1"]')
    await page.keyboard.press("Enter")
    await idle(page)
    assert (await api_get(http, f"/v1/games/{game_id}"))["state"]["cells"][0] == card
    assert await page.evaluate("document.activeElement.closest('#table') !== null")
    assert await page.evaluate("document.activeElement.dataset.card") == card


async def test_keys_play_while_a_checkbox_has_the_focus(page: Any) -> None:
    """A box just ticked keeps the focus: the game's keys still play (a text field's keys
    stay the field's)."""
    await open_deal(page, "freecell", 617)
    await page.focus("#autoplay")
    await page.keyboard.press("1")
    await idle(page)
    assert await page.get_attribute("#table", "data-selected") != ""
    await page.keyboard.press("Escape")
    await page.focus("#deal-input")
    await page.keyboard.press("2")
    await idle(page)
    assert await page.get_attribute("#table", "data-selected") == ""


async def test_automatic_moves_switched_mid_game_wait_for_the_next_deal(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """A game keeps the `autoplay` it was dealt with: unticking the box mid-game says so,
    and the next deal is dealt without automatic moves."""
    game_id = await open_deal(page, "freecell", 617)
    if not await page.is_visible("#autoplay"):  # (the new-game bar folded, on a phone)
        await page.click("#new-game-toggle")
    await page.uncheck("#autoplay")
    message = await page.inner_text("#message")
    assert "no longer go up by themselves from the next deal on" in message, message
    assert (await api_get(http, f"/v1/games/{game_id}"))["autoplay"] is True
    await page.fill("#deal-input", "617")
    await page.click("#play-deal")
    await idle(page)
    again = game_id_of(page.url)
    assert again != game_id
    assert (await api_get(http, f"/v1/games/{again}"))["autoplay"] is False


async def test_a_column_chosen_by_key_says_which_cards_go_where(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """A column picked with its digit says, for each place, which of its cards a move
    there takes (as many as may go), and the move takes them."""
    game_id = await open_deal(page, "freecell", 617, autoplay=False)
    async with http.post(f"/v1/games/{game_id}/moves", json={"from": "t5", "to": "t8"},
                         headers={"Authorization": f"Bearer {await token_of(page)}"}) as r:
        assert r.status == 201, await r.text()
        run = (await r.json())["game"]["state"]["tableau"][7][-2:]  # two cards, on t2
    await page.reload()
    await idle(page)
    await page.keyboard.press("8")
    await idle(page)
    message = await field(page, "message")
    assert message.startswith("Column 8: "), message
    assert f"the {card_name(run[1])} to cell 1, cell 2, cell 3 or cell 4" in message, message
    assert f"the {card_name(run[0])} and the 1 card on it to column 2" in message, message
    await page.keyboard.press("2")
    await idle(page)
    game = await same_as_api(page, http, game_id)
    assert game["state"]["tableau"][1][-2:] == run and game["moves"] == 2


async def test_a_card_under_others_is_told_as_its_game_moves_cards(
    page: Any, http: aiohttp.ClientSession
) -> None:
    """A card with others on it: in FreeCell a run may move as one, and the page says
    where the card and those on it may go, if anywhere; in a game that moves one card at a
    time (the service says which, GET /v1/variants), that only the top card moves."""
    for variant, says in (("bakers_game", "is not free: only the card on top moves"),
                          ("freecell", "no legal place to go now")):  # fmt: skip
        game_id = await open_deal(page, variant, 617, autoplay=False)
        card = (await api_get(http, f"/v1/games/{game_id}"))["state"]["tableau"][0][0]
        await click_card(page, card)
        message = await field(page, "message")
        assert says in message, (variant, message)
