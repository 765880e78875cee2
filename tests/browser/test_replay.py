"""`/?replay={game_id}`: a game's log replayed in the page, step by step, checked against
the engine's own replay of the same events; and each board entry's link to its replay."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from engine import Game

from .conftest import Pages, screenshot_path
from .helpers import api_get, as_shown, field, idle, open_deal, shown, solution_plan

pytestmark = pytest.mark.browser

VARIANT, DEAL = "freecell", 3


async def new_player(http: aiohttp.ClientSession, name: str) -> dict[str, str]:
    async with http.post("/v1/players", json={"name": name}) as response:
        assert response.status == 201, await response.text()
        player: dict[str, str] = await response.json()
    return {"Authorization": f"Bearer {player['token']}"}


async def post(
    http: aiohttp.ClientSession, path: str, body: dict[str, Any], headers: dict[str, str]
) -> tuple[int, Any]:
    async with http.post(path, json=body, headers=headers) as response:
        return response.status, await response.json()


async def win_through_api(
    http: aiohttp.ClientSession, headers: dict[str, str], twists: bool = False
) -> tuple[str, bool]:
    """FreeCell deal 3 won by Freecell Solver's line, automatic moves on; with `twists`,
    early on a move undone and redone, another undone and played afresh, and a hint asked
    for (where the server records hints). The game's id, and whether a hint was recorded."""
    status, game = await post(
        http, "/v1/games", {"variant": VARIANT, "deal": DEAL, "autoplay": True}, headers
    )
    assert status == 201, game
    gid = game["id"]
    hinted = False
    played = 0
    for card, target in solution_plan(VARIANT, DEAL):
        state = game["state"]
        if state["foundations"][card[-1]] >= _rank(card):
            continue  # it went up by itself already
        move = {"card": card, "to": target}
        status, answer = await post(http, f"/v1/games/{gid}/moves", move, headers)
        assert status == 201, answer
        game = answer["game"]
        played += 1
        if not twists:
            continue
        if played == 2:
            for action in ("undo", "redo"):
                status, answer = await post(http, f"/v1/games/{gid}/{action}", {}, headers)
                assert status == 201, answer
        elif played == 3:
            status, answer = await post(http, f"/v1/games/{gid}/hint", {}, headers)
            assert status == 201, answer
            hinted = True
        elif played == 4:
            status, answer = await post(http, f"/v1/games/{gid}/undo", {}, headers)
            assert status == 201, answer
            status, answer = await post(http, f"/v1/games/{gid}/moves", move, headers)
            assert status == 201, answer
        if played in (2, 4):
            game = answer["game"]
    assert game["status"] == "won"
    return gid, hinted


def _rank(card: str) -> int:
    return {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}.get(card[0]) or int(card[0])


async def log_of(http: aiohttp.ClientSession, gid: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = (await api_get(http, f"/v1/games/{gid}/events"))["events"]
    return events


def steps_in(events: list[dict[str, Any]]) -> int:
    """The replay's steps: one an event after GameCreated, GameWon ending the winning move's."""
    return len(events) - 1 - sum(e["type"] == "GameWon" for e in events)


async def step_of(page: Any) -> int:
    return int(await page.get_attribute("#table", "data-step"))


async def test_a_won_game_replays_to_the_end_and_back(
    pages: Pages, http: aiohttp.ClientSession
) -> None:
    headers = await new_player(http, "ada")
    gid, hinted = await win_through_api(http, headers, twists=True)
    events = await log_of(http, gid)
    assert {"MoveUndone", "MoveRedone", "GameWon"} <= {e["type"] for e in events}
    game = await api_get(http, f"/v1/games/{gid}")
    opening = (await api_get(http, f"/v1/deals/{VARIANT}/{DEAL}"))["state"]

    page = await pages.new()  # another browser: no token, a replay needs none
    await page.goto(f"/?replay={gid}")
    await idle(page)
    assert await page.get_attribute("body", "data-mode") == "replay"
    assert await page.is_visible("#replay-controls")
    assert await page.is_hidden("#actions")
    total = steps_in(events)
    assert await field(page, "steps") == str(total)
    assert await field(page, "step") == "0"
    assert await shown(page) == as_shown(opening)
    assert await field(page, "foundation_cards") == "0"
    assert await field(page, "moves") == "0"
    assert await field(page, "status") == "playing"
    assert await page.is_disabled("#replay-back")

    # step by step through the opening, where the undo, the redo and the hint are: each
    # step shows what the engine's replay of the same events shows
    for step in range(1, 17):
        await page.click("#replay-forward")
        await idle(page)
        assert await step_of(page) == step
        seq = int(await page.get_attribute("#table", "data-seq"))
        expected = Game.replay(events[:seq])
        assert await shown(page) == as_shown(expected.position.to_dict()), step
        assert await field(page, "moves") == str(expected.moves), step
        assert await field(page, "foundation_cards") == str(
            sum(expected.position.to_dict()["foundations"].values())
        )
        assert await page.is_hidden("#assisted") == (expected.hints == 0)
        assert await field(page, "message"), step  # each step says what it did
    await page.screenshot(path=screenshot_path("replay_opening.png"), full_page=True)

    # then as fast as it goes, to the end: the game as the server has it
    await page.select_option("#replay-speed", "max")
    await page.click("#replay-play")
    await page.wait_for_function(
        "() => document.querySelector('#replay-controls').dataset.state === 'ended'"
    )
    assert await step_of(page) == total
    assert await field(page, "step") == str(total)
    assert await field(page, "foundation_cards") == "52"
    assert await field(page, "status") == "won"
    assert await field(page, "moves") == str(game["moves"])
    assert await shown(page) == as_shown(game["state"])
    assert (await field(page, "message")).endswith("The game is won!")
    assert await page.is_disabled("#replay-forward")
    assert await page.is_hidden("#assisted") == (not hinted)
    await page.screenshot(path=screenshot_path("replay_end.png"), full_page=True)

    # a step back takes the winning move back
    await page.click("#replay-back")
    await idle(page)
    assert await step_of(page) == total - 1
    assert int(await field(page, "foundation_cards")) < 52
    assert await field(page, "status") == "playing"
    # the keys: → forward, Home to the deal as dealt, End to the end
    await page.keyboard.press("ArrowRight")
    assert await field(page, "foundation_cards") == "52"
    await page.keyboard.press("Home")
    assert await step_of(page) == 0
    assert await shown(page) == as_shown(opening)
    await page.keyboard.press("End")
    assert await step_of(page) == total
    # a jump into the middle of the log (by the slider) shows that step's layout
    middle = total // 2
    await page.locator("#replay-position").fill(str(middle))
    assert await step_of(page) == middle
    seq = int(await page.get_attribute("#table", "data-seq"))
    assert await shown(page) == as_shown(Game.replay(events[:seq]).position.to_dict())

    if hinted:
        # the hinted win is on the board of wins with hints only, marked
        async with http.get(f"/v1/leaderboards/{VARIANT}/{DEAL}") as response:
            board = await response.json()
        assert gid not in {e["game_id"] for e in board["entries"]}
        await page.check("#board-assisted")
        entry = page.locator(f'#leaderboard li[data-game-id="{gid}"]')
        await entry.locator('[data-tag="assisted"]').wait_for()
        assert "this-game" in (await entry.get_attribute("class") or "")


async def test_a_board_entry_links_to_its_replay(pages: Pages, http: aiohttp.ClientSession) -> None:
    headers = await new_player(http, "bea")
    gid, _ = await win_through_api(http, headers)
    events = await log_of(http, gid)
    async with http.get(f"/v1/leaderboards/{VARIANT}/{DEAL}") as response:
        board = await response.json()
    on_default = any(e["game_id"] == gid for e in board["entries"])

    # another player opens the deal: its board is beside the cards
    page = await pages.new()
    await open_deal(page, VARIANT, DEAL)
    if not on_default:
        # a scripted win played faster than a hand plays is off the default board: it is
        # on the board with hints and such, marked unverified
        async with http.get(f"/v1/leaderboards/{VARIANT}/{DEAL}?assisted=true") as response:
            wide = await response.json()
        [entry] = [e for e in wide["entries"] if e["game_id"] == gid]
        await page.check("#board-assisted")
        if entry.get("verified") is False:
            line = page.locator(f'#leaderboard li[data-game-id="{gid}"]')
            await line.locator('[data-tag="unverified"]').wait_for()
    link = page.locator(f'#leaderboard a[data-replay="{gid}"]')
    await link.wait_for()
    assert await link.get_attribute("href") == f"/?replay={gid}"
    await page.screenshot(path=screenshot_path("board_with_replay_links.png"), full_page=True)
    await link.click()
    await page.wait_for_url(f"**/?replay={gid}")
    await idle(page)
    assert await page.get_attribute("body", "data-mode") == "replay"
    assert await field(page, "steps") == str(steps_in(events))
    assert await field(page, "step") == "0"
    opening = (await api_get(http, f"/v1/deals/{VARIANT}/{DEAL}"))["state"]
    assert await shown(page) == as_shown(opening)
    await page.click("#replay-end")
    assert await field(page, "foundation_cards") == "52"
    assert await field(page, "status") == "won"


async def test_a_replay_of_no_game_says_so(page: Any) -> None:
    await page.goto("/?replay=5f0c6a44-32c1-4d8e-8f4e-0a8f6f1b2c3d")
    await idle(page)
    assert await page.is_visible("#welcome")
    assert "no game" in await field(page, "message")


def long_log(pairs_a_move: int = 25) -> list[dict[str, Any]]:
    """Deal 3 won by the engine, each player move undone and redone `pairs_a_move` times
    after it is played: a log near the longest a game may have (MAX_GAME_EVENTS, 5000)."""
    game, made = Game.new(VARIANT, DEAL)
    events = list(made)
    for card, target in solution_plan(VARIANT, DEAL):
        if game.position.locate(card)[0] == "f":
            continue
        events += game.play(game.position.move_for_card(card, target))
        if game.status != "playing":
            break
        for _ in range(pairs_a_move):
            events += game.undo()
            events += game.redo()
    assert game.status == "won"
    t0 = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    return [
        {
            "seq": i + 1,
            "type": e.type,
            "at": (t0 + timedelta(milliseconds=50 * i)).isoformat(),
            "data": e.data,
        }
        for i, e in enumerate(events)
    ]


@pytest.mark.parametrize("with_next", [True, False], ids=["next", "short-page"])
async def test_a_long_log_is_read_by_pages_and_stepped_back(
    pages: Pages, http: aiohttp.ClientSession, with_next: bool
) -> None:
    """A log of nearly 5000 events, served by the page's own route: read 1000 at a time
    (to `next`, or, where the server gives no `next`, to a short page), then stepped
    through and back across its checkpoints."""
    events = long_log()
    assert 4500 < len(events) <= 5000
    gid = str(uuid.uuid4())
    asked: list[tuple[int, int]] = []

    async def serve(route: Any) -> None:
        query = parse_qs(urlsplit(route.request.url).query)
        after, limit = int(query["after"][0]), int(query.get("limit", ["1000"])[0])
        asked.append((after, limit))
        page_events = events[after : after + limit]
        body: dict[str, Any] = {"events": page_events}
        if with_next:
            body["next"] = page_events[-1]["seq"] if after + limit < len(events) else None
        await route.fulfill(status=200, json=body)

    page = await pages.new()
    await page.route(f"**/v1/games/{gid}/events?*", serve)
    await page.goto(f"/?replay={gid}")
    await idle(page)
    assert [after for after, _ in asked] == list(range(0, len(events), 1000))
    assert all(limit == 1000 for _, limit in asked)
    total = steps_in(events)
    assert await field(page, "steps") == str(total)

    async def check(step: int) -> None:
        assert await step_of(page) == step
        seq = int(await page.get_attribute("#table", "data-seq"))
        expected = Game.replay(events[:seq])
        assert await shown(page) == as_shown(expected.position.to_dict()), step
        assert await field(page, "moves") == str(expected.moves), step

    await page.click("#replay-end")
    await check(total)
    assert await field(page, "foundation_cards") == "52"
    seconds = (len(events) - 1) * 50 // 1000  # the events are 50 ms apart
    assert await field(page, "time") == f"{seconds // 60}:{seconds % 60:02d}"
    await page.click("#replay-back")
    await check(total - 1)
    assert int(await field(page, "foundation_cards")) < 52
    # back and forth around a checkpoint, and jumps into the middle
    for step in (3000, 2000, 129, 128, 127, 64, 63, 1, 0):
        await page.locator("#replay-position").fill(str(step))
        await check(step)
    await page.locator("#replay-position").fill("129")
    for step in range(128, 120, -1):
        await page.click("#replay-back")
        await check(step)
    # the last steps played at the fastest speed
    await page.locator("#replay-position").fill(str(total - 300))
    await page.select_option("#replay-speed", "max")
    await page.click("#replay-play")
    await page.wait_for_function(
        "() => document.querySelector('#replay-controls').dataset.state === 'ended'"
    )
    await check(total)


async def test_board_entries_mark_hinted_and_unverified_wins(pages: Pages) -> None:
    """The board panel as the contract describes the boards (served here by the page's own
    route): the default board, then, with the box ticked, `?assisted=true` with its marks."""

    def entry(rank: int, name: str, **more: Any) -> dict[str, Any]:
        return {
            "rank": rank, "player": {"id": str(uuid.uuid4()), "name": name},
            "elapsed_ms": 60_000 * rank, "moves": 90 + rank, "undos": more.pop("undos", 0),
            "assisted": False, "game_id": str(uuid.uuid4()),
            "finished_at": "2026-11-30T08:00:00+00:00", **more,
        }  # fmt: skip

    plain = entry(1, "ada", undos=2)
    hinted = entry(2, "bea", assisted=True, verified=True)
    hasty = entry(3, "cy", verified=False)
    asked: list[str] = []

    async def serve(route: Any) -> None:
        query = parse_qs(urlsplit(route.request.url).query)
        if "around" in query:
            await route.fulfill(status=404, json={"title": "Not Found", "status": 404})
            return
        wide = query.get("assisted") == ["true"]
        asked.append("assisted" if wide else "default")
        entries = [plain, hinted, hasty] if wide else [{**plain, "verified": True}]
        if wide:
            entries = [{**e, "verified": e.get("verified", True)} for e in entries]
        await route.fulfill(status=200, json={"entries": entries, "next": None})

    page = await pages.new()
    await page.route("**/v1/leaderboards/freecell/617?*", serve)
    await open_deal(page, VARIANT, 617)
    board = page.locator("#leaderboard")
    await board.locator(f'a[data-replay="{plain["game_id"]}"]').wait_for()
    assert await board.locator("li").count() == 1
    assert await board.locator("[data-tag]").count() == 0
    assert "2 undos" in await board.inner_text()
    await page.check("#board-assisted")
    await board.locator(f'a[data-replay="{hasty["game_id"]}"]').wait_for()
    assert asked[-1] == "assisted"
    lines = board.locator("li")
    assert await lines.count() == 3
    assert await lines.nth(0).locator("[data-tag]").count() == 0
    assert await lines.nth(1).locator('[data-tag="assisted"]').count() == 1
    assert await lines.nth(2).locator('[data-tag="unverified"]').count() == 1
    for e in (plain, hinted, hasty):
        link = board.locator(f'a[data-replay="{e["game_id"]}"]')
        assert await link.get_attribute("href") == f"/?replay={e['game_id']}"
    await page.screenshot(path=screenshot_path("board_with_marks.png"), full_page=True)
    await page.uncheck("#board-assisted")
    await page.wait_for_function("() => document.querySelectorAll('#leaderboard li').length === 1")
    assert asked[-1] == "default"
