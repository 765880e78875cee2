"""The web client on a phone (390 × 844): the whole board in sight, no column cut off or
out to the side, the columns apart from one another, and the cards' rank and suit large
enough to read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import Pages
from .helpers import idle, open_deal, overlap

pytestmark = pytest.mark.browser

PHONE = (390, 844)

# each pile's box, each card corner's box beside its card's, the cards' font sizes (rank
# and suit in the corners, the suit or face in the middle) and how wide things are
LAYOUT_JS = """() => {
  const box = (node) => {
    const r = node.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
  };
  const piles = [...document.querySelectorAll('#table [data-pile]')]
    .map((node) => ({pile: node.dataset.pile, ...box(node)}));
  const corners = [...document.querySelectorAll('#table .card .corner')]
    .filter((node) => getComputedStyle(node).display !== 'none')
    .map((node) => ({card: node.closest('.card').dataset.card, corner: box(node),
                     of: box(node.closest('.card'))}));
  const fonts = [...document.querySelectorAll('#table .card .corner, #table .card .pip')]
    .map((node) => parseFloat(getComputedStyle(node).fontSize));
  const scroll = document.querySelector('.table-scroll');
  return {piles, corners, fonts, viewport: window.innerWidth,
          page: document.documentElement.scrollWidth,
          inner: scroll.clientWidth, outer: scroll.scrollWidth};
}"""


@pytest.mark.parametrize(
    ("variant", "columns"), [("freecell", 8), ("bakers_dozen", 13), ("beleaguered_castle", 8)]
)
async def test_the_whole_board_fits_a_phone(
    pages: Pages, tmp_path: Path, variant: str, columns: int
) -> None:
    width, height = PHONE
    page = await pages.new(width=width, height=height)
    await open_deal(page, variant, 614)
    shot = tmp_path / f"phone_{variant}.png"
    await page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 0
    layout: dict[str, Any] = await page.evaluate(LAYOUT_JS)
    assert layout["viewport"] == width

    # every column (and cell, and the foundations) inside the window: none cut off
    tableau = [pile for pile in layout["piles"] if pile["pile"].startswith("t")]
    assert len(tableau) == columns
    for pile in layout["piles"]:
        assert pile["x"] >= 0, pile
        assert pile["x"] + pile["width"] <= width, pile
    # nothing to scroll sideways: not the table, not the page
    assert layout["outer"] <= layout["inner"], layout
    assert layout["page"] <= width
    # the columns (in two rows for Baker's Dozen) stand apart
    for i, one in enumerate(tableau):
        for other in tableau[i + 1 :]:
            assert not overlap(one, other), (one, other)

    # the rank and suit of every card: at least 12px, inside its card
    assert layout["fonts"], "no card drawn"
    assert min(layout["fonts"]) >= 12, sorted(layout["fonts"])[:5]
    assert layout["corners"]
    for seen in layout["corners"]:
        corner, card = seen["corner"], seen["of"]
        assert corner["x"] >= card["x"] - 0.5, seen
        assert corner["x"] + corner["width"] <= card["x"] + card["width"] + 0.5, seen


async def test_a_phone_folds_the_new_game_form_while_a_game_is_on(pages: Pages) -> None:
    """On a phone the form for a new game folds under its button once a game is shown, so
    the table comes up; the button opens it, and the next deal folds it again. A desktop
    keeps it open, with no such button."""
    width, height = PHONE
    page = await pages.new(width=width, height=height)
    await open_deal(page, "freecell", 614)
    assert await page.is_hidden("#new-game") and await page.is_visible("#new-game-toggle")
    table = await page.locator("#table").bounding_box()
    assert table["y"] < 0.4 * height, table  # the cards in the first third of the screen

    await page.click("#new-game-toggle")
    assert await page.is_visible("#new-game")
    assert await page.get_attribute("#new-game-toggle", "aria-expanded") == "true"
    await page.click("#random-deal")
    await idle(page)
    assert await page.is_hidden("#new-game")
    assert await page.get_attribute("#new-game-toggle", "aria-expanded") == "false"

    desktop = await pages.new()
    await open_deal(desktop, "freecell", 614)
    assert await desktop.is_visible("#new-game") and await desktop.is_hidden("#new-game-toggle")


async def test_large_text_on_a_phone_fits_its_width(pages: Pages) -> None:
    """The browser's text at 200 %: the welcome's form and a game's page wrap to the
    phone's width rather than scroll sideways."""
    width, height = PHONE
    page = await pages.new(width=width, height=height)
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Page.enable")
    await cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 32, "fixed": 26}})
    for path in ("/", "/?variant=beleaguered_castle&deal=4"):
        await page.goto(path)
        await idle(page)
        wide = await page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= width, (path, wide)
