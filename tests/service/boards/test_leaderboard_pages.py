"""Reading a deal's board against a real PostgreSQL: pages that neither repeat nor skip
while wins arrive, ranks that continue from the cursor, a player's page (around=me), and
the bins of time (board_bins) that the ranks and the winning times are counted from.

Wins are recorded as in test_leaderboards.py, by the helpers of helpers.py (the fixture:
conftest.py).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from service.base.backend import Backend
from service.base.errors import NotFound
from service.boards import board as leaderboards
from service.boards import times

from .helpers import T0, names, new_player, win


async def test_pages_neither_repeat_nor_skip_while_wins_arrive(backend: Backend) -> None:
    start = []
    for i in range(23):
        p = await new_player(backend, f"s{i:02}")
        # several share a time, so the moves and finish tie-breaks cross page borders
        await win(backend, p, 100_000 + (i // 3) * 1000, 50 + i % 2, T0 + timedelta(seconds=i))
        start.append(str(p.id))
    seen: list[dict[str, Any]] = []
    cursor: str | None = None
    late = 0
    while True:
        page = await leaderboards.board(backend, "freecell", 617, limit=5, cursor=cursor)
        seen.extend(page["entries"])
        if page["next"] is None:
            break
        cursor = page["next"]
        # new wins between page fetches: the fastest ever, one in the middle, the slowest
        for elapsed in (1_000, 104_500, 999_000):
            p = await new_player(backend, f"late{late}")
            late += 1
            await win(backend, p, elapsed, 60, T0 + timedelta(hours=1))
    ids = [e["player"]["id"] for e in seen]
    assert len(ids) == len(set(ids)), "an entry came twice"
    assert set(start) <= set(ids), "an entry that was there from the start was skipped"
    keys = [(e["elapsed_ms"], e["moves"], e["finished_at"], e["player"]["id"]) for e in seen]
    assert keys == sorted(keys)
    # a read from the top ranks everyone, newcomers included
    everything = await leaderboards.board(backend, "freecell", 617, limit=100)
    assert [e["rank"] for e in everything["entries"]] == list(range(1, 23 + late + 1))
    last = everything["entries"][-1]
    assert last["elapsed_ms"] == 999_000


async def test_ranks_continue_from_the_cursor(backend: Backend) -> None:
    players = []
    for i in range(12):
        players.append(p := await new_player(backend, f"p{i:02}"))
        await win(backend, p, 1000 * (i + 1), 10, T0)
    page1 = await leaderboards.board(backend, "freecell", 617, limit=5)
    page2 = await leaderboards.board(backend, "freecell", 617, limit=5, cursor=page1["next"])
    assert [e["rank"] for e in page2["entries"]] == [6, 7, 8, 9, 10]
    await win(backend, await new_player(backend, "fast"), 1, 1, T0)
    page3 = await leaderboards.board(backend, "freecell", 617, limit=5, cursor=page2["next"])
    assert names(page3) == ["p10", "p11"] and page3["next"] is None
    # the pages read on: their ranks follow the previous page's ...
    assert [e["rank"] for e in page3["entries"]] == [11, 12]
    # ... while around=me counts afresh, and a new read from the top sees the newcomer
    assert (await leaderboards.board_around(backend, "freecell", 617, players[11]))["rank"] == 13
    fresh = await leaderboards.board(backend, "freecell", 617, limit=20)
    assert [e["rank"] for e in fresh["entries"]] == list(range(1, 14))


async def test_around_me(backend: Backend) -> None:
    players = []
    for i in range(20):
        p = await new_player(backend, f"p{i:02}")
        await win(backend, p, 1000 * (i + 1), 10, T0)
        players.append(p)
    middle = await leaderboards.board_around(backend, "freecell", 617, players[9])
    assert middle["rank"] == 10 and middle["me"]["player"]["name"] == "p09"
    assert middle["me"]["rank"] == 10
    assert names(middle) == [f"p{i:02}" for i in range(4, 15)]
    assert [e["rank"] for e in middle["entries"]] == list(range(5, 16))
    rest = await leaderboards.board(backend, "freecell", 617, limit=20, cursor=middle["next"])
    assert names(rest) == [f"p{i:02}" for i in range(15, 20)]
    assert [e["rank"] for e in rest["entries"]] == list(range(16, 21))

    top = await leaderboards.board_around(backend, "freecell", 617, players[1])
    assert top["rank"] == 2 and names(top) == [f"p{i:02}" for i in range(7)]
    bottom = await leaderboards.board_around(backend, "freecell", 617, players[19])
    assert bottom["rank"] == 20 and bottom["next"] is None
    assert names(bottom) == [f"p{i:02}" for i in range(14, 20)]
    assert bottom["entries"][0]["rank"] == 15

    nobody = await new_player(backend, "nobody")
    with pytest.raises(NotFound, match="no entry"):
        await leaderboards.board_around(backend, "freecell", 617, nobody)


async def test_ranks_from_the_bins_agree_with_the_whole_board(backend: Backend) -> None:
    """Entries over several bins of time (board_bins, 10 s each), with ties and improved
    wins (an entry that moves to another bin): each player's rank by around=me is its
    place in the whole board sorted by the order, and the bins count the entries."""
    rng = random.Random(7)
    players = [await new_player(backend, f"p{i:02}") for i in range(40)]
    for i, p in enumerate(players):
        elapsed = rng.choice([rng.randrange(1_000, 60_000), 20_000, 29_999, 30_000])
        await win(backend, p, elapsed, rng.randrange(50, 60), T0 + timedelta(seconds=i))
    for p in players[::5]:  # a better win: the entry leaves its bin for an earlier one
        await win(backend, p, rng.randrange(500, 10_000), 40, T0 + timedelta(hours=1))
    whole = await leaderboards.board(backend, "freecell", 617, limit=100)
    ranked = [e["player"]["name"] for e in whole["entries"]]
    assert len(ranked) == len(players)
    for p in players:
        around = await leaderboards.board_around(backend, "freecell", 617, p)
        assert around["rank"] == ranked.index(p.name) + 1, p.name
    async with backend.store.connection() as conn:
        bins = {r["bin"]: r["entries"] for r in await conn.fetch(
            "SELECT bin, entries FROM board_bins WHERE variant = 'freecell' AND deal = 617"
            " AND board = 'default' AND entries > 0")}
        counted = {r["bin"]: r["n"] for r in await conn.fetch(
            "SELECT elapsed_ms / 10000 AS bin, count(*) AS n FROM leaderboard_entries"
            " WHERE variant = 'freecell' AND deal = 617 AND board = 'default'"
            " GROUP BY elapsed_ms / 10000")}
    assert bins == counted


async def test_winning_times_merge_the_bins_into_at_most_thirty(backend: Backend) -> None:
    """Winners from 5 s to 12 min: 72 bins of 10 s become 24 of 30 s, each count the
    winners whose time falls in it; the assisted board's wins are not counted."""
    spread = [5_000, 5_001, 29_999, 30_000, 65_000, 719_999]
    for i, elapsed in enumerate(spread):
        await win(backend, await new_player(backend, f"w{i}"), elapsed, 50, T0)
    await win(backend, await new_player(backend, "helped"), 40_000, 50, T0, hints=1)
    found = await times.winning_times(backend, "freecell", 617)
    assert found["winners"] == len(spread)
    bins = found["bins"]
    assert len(bins) == 24 and len(bins) <= times.MAX_BINS
    assert bins[0]["from_ms"] == 0 and bins[-1]["to_ms"] == 720_000
    assert all(b["to_ms"] - b["from_ms"] == 30_000 for b in bins)
    for elapsed in spread:
        (home,) = [b for b in bins if b["from_ms"] <= elapsed < b["to_ms"]]
        assert home["count"] >= 1
    assert [b["count"] for b in bins[:3]] == [3, 1, 1]
    assert sum(b["count"] for b in bins) == len(spread)
