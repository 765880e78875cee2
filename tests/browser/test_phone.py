"""The web client on a phone (390 × 844): the whole board in sight, no column cut off or
out to the side, the columns apart from one another, and the cards' rank and suit large
enough to read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import Pages
from .helpers import open_deal, overlap

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
