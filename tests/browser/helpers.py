"""Driving the web client as a person would, and reading back what it shows; players,
games and wins made over the API for the pages to show, and checks of a whole page
(its charts, axe-core's rules, screenshots)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import aiohttp

from engine import VARIANTS, Game, Move

from .conftest import Pages, screenshot_path

SOLUTIONS = Path(__file__).resolve().parent.parent / "data" / "solutions.json"
RANKS = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}
RANK_WORDS = [
    "", "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king",
]  # fmt: skip
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

# the layout as the page draws it: columns by data-pile, cells, the foundations' top ranks
SHOWN_JS = """() => {
  const table = document.querySelector('#table');
  const cards = (pile) => [...pile.querySelectorAll('[data-card]')].map((c) => c.dataset.card);
  const num = (el) => Number(el.dataset.pile.slice(1));
  const columns = [...table.querySelectorAll('[data-pile^="t"]')].sort((a, b) => num(a) - num(b));
  const cells = [...table.querySelectorAll('[data-pile^="c"]')].sort((a, b) => num(a) - num(b));
  const foundations = {};
  for (const slot of table.querySelectorAll('[data-pile="f"] [data-suit]')) {
    const card = slot.querySelector('[data-card]');
    foundations[slot.dataset.suit] = card ? card.dataset.card : null;
  }
  return {tableau: columns.map(cards), cells: cells.map((c) => cards(c)[0] || null),
          foundations};
}"""


def rank_of(card: str) -> int:
    return RANKS.get(card[0]) or int(card[0])


def card_name(card: str) -> str:
    return f"{RANK_WORDS[rank_of(card)]} of {SUIT_WORDS[card[-1]]}"


def top_card(rank: int, suit: str) -> str | None:
    if rank == 0:
        return None
    text = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))
    return text + suit


def as_shown(state: dict[str, Any]) -> dict[str, Any]:
    """The API's state in the shape SHOWN_JS reads the page."""
    return {
        "tableau": state["tableau"],
        "cells": state["cells"],
        "foundations": {s: top_card(r, s) for s, r in state["foundations"].items()},
    }


async def idle(page: Any) -> None:
    """Everything the last action set going (requests, moves being shown) is done."""
    await page.wait_for_function("() => document.body.dataset.busy === 'false'")


async def shown(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = await page.evaluate(SHOWN_JS)
    return result


async def field(page: Any, name: str) -> str:
    text: str = await page.inner_text(f'[data-field="{name}"]')
    return text.strip()


async def on_foundation(page: Any, card: str) -> bool:
    top = (await shown(page))["foundations"].get(card[-1])
    return top is not None and rank_of(top) >= rank_of(card)


async def legal_piles(page: Any) -> set[str]:
    found = await page.eval_on_selector_all(
        "#table [data-legal]", "(nodes) => nodes.map((n) => n.dataset.pile)"
    )
    return set(found)


def game_id_of(url: str) -> str:
    match = re.search(r"[?&]game=([0-9a-f-]{36})", url)
    assert match, f"the address does not name a game: {url}"
    return match.group(1)


async def open_deal(page: Any, variant: str, deal: int, autoplay: bool = True) -> str:
    query = f"/?variant={variant}&deal={deal}" + ("" if autoplay else "&autoplay=0")
    await page.goto(query)
    await idle(page)
    return game_id_of(page.url)


async def api_get(http: aiohttp.ClientSession, path: str) -> Any:
    async with http.get(path) as response:
        assert response.status == 200, await response.text()
        return await response.json()


async def same_as_api(page: Any, http: aiohttp.ClientSession, game_id: str) -> dict[str, Any]:
    """The page shows the game as the API has it (layout, moves, status, foundations)."""
    game = await api_get(http, f"/v1/games/{game_id}")
    assert await shown(page) == as_shown(game["state"])
    assert await field(page, "moves") == str(game["moves"])
    assert await field(page, "status") == game["status"]
    assert await field(page, "foundation_cards") == str(game["foundation_cards"])
    return game  # type: ignore[no-any-return]


async def token_of(page: Any) -> str:
    stored = await page.evaluate("localStorage.getItem('open-solitaire.player')")
    assert stored, "the page made no player"
    token: str = json.loads(stored)["token"]
    return token


def expected_targets(
    moves: list[dict[str, Any]], source: str, count: int | None, cells: list[str | None]
) -> set[str]:
    """The piles a card (count cards) or a pile (count None) may go to by the legal-moves
    answer: a move to a cell stands for every empty cell."""
    targets: set[str] = set()
    for move in moves:
        if move["from"] != source or (count is not None and move["count"] != count):
            continue
        if move["to"].startswith("c"):
            targets |= {f"c{i + 1}" for i, held in enumerate(cells) if held is None}
        else:
            targets.add(move["to"])
    return targets


def solution_plan(variant: str, deal: int) -> list[tuple[str, str]]:
    """A stored winning line as (card, destination pile) pairs, single cards each."""
    text = json.loads(SOLUTIONS.read_text())["solutions"][variant][str(deal)]
    position = VARIANTS[variant].deal(deal)
    plan = []
    for item in text.split():
        move = Move.parse(item)
        card = position.card_at(move.source)
        assert card is not None
        position.play(move)
        plan.append((card.text, move.target))
    return plan


async def click_card(page: Any, card: str, double: bool = False) -> None:
    """A tap on a card, near its top left corner: the part of a buried card in sight."""
    where = f'#table [data-card="{card}"]'
    if double:
        await page.dblclick(where, position={"x": 10, "y": 6})
    else:
        await page.click(where, position={"x": 10, "y": 6})
    await idle(page)


async def click_pile(page: Any, pile: str) -> None:
    """A tap on a pile: on its free card, or on the empty pile itself."""
    target = page.locator(f'#table [data-pile="{pile}"]')
    if pile.startswith("t"):
        last = target.locator("[data-card]").last
        if await last.count():
            await last.click()
            await idle(page)
            return
    await target.click()
    await idle(page)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes ({x, y, width, height}) overlap."""
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


# ------------------------------------------------------------------ players and whole pages
# (test_story.py, test_standings.py)

DESKTOP = (1280, 900)
PHONE = (390, 844)
VARIANT, DEAL = "freecell", 3

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
