"""Players' records against a real PostgreSQL: the counts and streaks of a player's
games in the order they finished, the best time of each variant and the deals won, and
the player's games, newest first, in pages.

Games are recorded as in test_leaderboards.py, by the helpers of helpers.py (the fixture:
conftest.py).
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest

from service.base.backend import Backend
from service.base.errors import BadRequest, NotFound
from service.boards import cursors, records

from .helpers import T0, new_player, record_game, win


async def test_record_counts_and_streaks(backend: Backend) -> None:
    ada = await new_player(backend)
    empty = await records.player_record(backend, ada.id)
    assert (empty["games_played"], empty["won"], empty["win_rate"]) == (0, 0, 0.0)
    assert (empty["current_streak"], empty["longest_streak"]) == (0, 0)
    assert empty["best_times"] == {} and empty["won_deals"] == {}

    at = iter(T0 + timedelta(minutes=i) for i in range(100))
    # in order of finish: W W B W W W A W W, and a game still being played in between
    plan = ["won", "won", "blocked", "won", "won", "playing", "won", "abandoned", "won", "won"]
    deal = iter(range(1, 100))
    for status in plan:
        if status == "playing":
            await record_game(backend, ada, "playing", None, deal=500)
        elif status == "won":
            await win(backend, ada, 60_000, 90, next(at), deal=next(deal))
        else:
            await record_game(backend, ada, status, next(at), deal=400)
    record = await records.player_record(backend, ada.id)
    assert record["games_played"] == 10
    assert (record["won"], record["abandoned"], record["blocked"]) == (7, 1, 1)
    assert record["playing"] == 1
    assert record["win_rate"] == pytest.approx(0.7)
    assert (record["current_streak"], record["longest_streak"]) == (2, 3)

    # a loss last breaks the current streak only
    await record_game(backend, ada, "blocked", T0 + timedelta(hours=5))
    record = await records.player_record(backend, ada.id)
    assert (record["current_streak"], record["longest_streak"]) == (0, 3)
    # the order of finish counts, not the order of creation: a win finished earlier than
    # the last loss joins the streak before it
    await win(backend, ada, 1_000, 90, T0 + timedelta(minutes=8, seconds=30), deal=99)
    record = await records.player_record(backend, ada.id)
    assert (record["current_streak"], record["longest_streak"]) == (0, 3)
    await win(backend, ada, 1_000, 90, T0 + timedelta(minutes=9, seconds=30), deal=98)
    record = await records.player_record(backend, ada.id)
    assert (record["current_streak"], record["longest_streak"]) == (0, 4)


async def test_record_best_times_and_won_deals(backend: Backend) -> None:
    ada, bea = await new_player(backend, "ada"), await new_player(backend, "bea")
    await win(backend, ada, 90_000, 100, T0, deal=617)
    best = await win(backend, ada, 80_000, 120, T0, deal=5)
    await win(backend, ada, 85_000, 90, T0, deal=5)  # slower than ada's own best of deal 5
    await win(backend, ada, 80_000, 130, T0, deal=2)  # same time as the best, more moves
    castle = await win(backend, ada, 300_000, 150, T0, variant="beleaguered_castle", deal=7)
    await win(backend, bea, 1_000, 50, T0, deal=617)
    record = await records.player_record(backend, str(ada.id))
    assert record["name"] == "ada"
    assert record["won_deals"] == {"freecell": [2, 5, 617], "beleaguered_castle": [7]}
    fc = record["best_times"]["freecell"]
    assert (fc["elapsed_ms"], fc["moves"], fc["deal"], fc["game_id"]) == (80_000, 120, 5, best)
    bc = record["best_times"]["beleaguered_castle"]
    assert (bc["elapsed_ms"], bc["deal"], bc["game_id"]) == (300_000, 7, castle)
    assert record["won"] == 5 and record["games_played"] == 5

    with pytest.raises(NotFound):
        await records.player_record(backend, uuid.uuid4())
    with pytest.raises(NotFound):
        await records.player_record(backend, "not-a-uuid")


async def test_player_games_newest_first_in_pages(backend: Backend) -> None:
    ada, bea = await new_player(backend, "ada"), await new_player(backend, "bea")
    made = []
    for i in range(7):
        at = T0 + timedelta(seconds=i // 2)  # pairs share a creation time: the id decides
        made.append(await record_game(backend, ada, "playing", None, deal=i + 1, created=at))
    await record_game(backend, bea, "playing", None)
    seen: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await records.player_games(backend, ada.id, limit=3, cursor=cursor)
        seen.extend(page["games"])
        # a game started meanwhile is newer than the first page: it does not come again
        await record_game(backend, ada, "playing", None, deal=100, created=T0 + timedelta(hours=1))
        if page["next"] is None:
            break
        cursor = page["next"]
    newest_first = sorted(
        range(7), key=lambda i: (T0 + timedelta(seconds=i // 2), made[i]), reverse=True
    )
    assert [g["id"] for g in seen] == [made[i] for i in newest_first]
    g = seen[0]
    assert set(g) >= {
        "id", "variant", "deal", "status", "moves", "version", "created_at", "finished_at",
        "elapsed_ms", "foundation_cards",
    }
    assert (g["variant"], g["status"], g["version"]) == ("freecell", "playing", 1)
    assert g["created_at"] == T0 + timedelta(seconds=3)
    assert (await records.player_games(backend, bea.id))["next"] is None
    lonely = await new_player(backend, "lonely")
    assert await records.player_games(backend, lonely.id) == {"games": [], "next": None}
    with pytest.raises(NotFound):
        await records.player_games(backend, uuid.uuid4())
    with pytest.raises(BadRequest):
        await records.player_games(
            backend, ada.id, cursor=cursors.board_cursor((1, 1, T0, ada.id), 1, b"")
        )
