"""Leaderboards against a real PostgreSQL: what a deal's board holds and in what order,
and the one order (service/boards/order.py) the database is held to. Reading a board in
pages and ranks: test_leaderboard_pages.py; players' records: test_player_records.py.

Wins are recorded the way the service records them: through EventStore.record, whose
record_events writes the board entry in the transaction of the winning move.
"""

from __future__ import annotations

import itertools
import uuid
from datetime import timedelta
from typing import Any

import pytest

from service.base.backend import Backend
from service.base.errors import BadRequest, NotFound
from service.boards import board as leaderboards
from service.boards import cursors, order, records
from service.boards.board import ENTRY
from service.database.connections import VersionConflict
from service.players.accounts import Player

from .helpers import T0, names, new_player, record_game, win


async def test_order_fastest_then_fewer_moves_then_earlier_finish(backend: Backend) -> None:
    ada, bea, cy, dot = [await new_player(backend, n) for n in ("ada", "bea", "cy", "dot")]
    await win(backend, ada, 100_000, 50, T0 + timedelta(minutes=1))
    await win(backend, bea, 100_000, 40, T0 + timedelta(minutes=2))
    await win(backend, cy, 100_000, 40, T0 + timedelta(minutes=1))
    await win(backend, dot, 90_000, 99, T0 + timedelta(minutes=3))
    page = await leaderboards.board(backend, "freecell", 617)
    assert names(page) == ["dot", "cy", "bea", "ada"]
    assert [e["rank"] for e in page["entries"]] == [1, 2, 3, 4]
    assert page["next"] is None
    first = page["entries"][0]
    assert (first["elapsed_ms"], first["moves"], first["undos"]) == (90_000, 99, 0)
    assert first["finished_at"] == T0 + timedelta(minutes=3)


async def test_full_tie_is_ordered_by_player_id(backend: Backend) -> None:
    players = [await new_player(backend, f"p{i}") for i in range(4)]
    for p in players:
        await win(backend, p, 70_000, 80, T0)
    page = await leaderboards.board(backend, "freecell", 617)
    assert [e["player"]["id"] for e in page["entries"]] == sorted(str(p.id) for p in players)


async def test_an_entry_is_replaced_only_by_a_better_win(backend: Backend) -> None:
    ada = await new_player(backend)

    async def entry() -> dict[str, Any]:
        page = await leaderboards.board(backend, "freecell", 617)
        assert len(page["entries"]) == 1
        return page["entries"][0]  # type: ignore[no-any-return]

    first = await win(backend, ada, 200_000, 80, T0, undos=3)
    assert (await entry())["game_id"] == str(first)
    await win(backend, ada, 250_000, 70, T0 + timedelta(hours=1))  # slower, fewer moves
    await win(backend, ada, 200_000, 81, T0 + timedelta(hours=2))  # same time, more moves
    await win(backend, ada, 200_000, 80, T0 + timedelta(hours=3))  # same, but later
    held = await entry()
    assert (held["game_id"], held["elapsed_ms"], held["moves"], held["undos"]) == (
        str(first), 200_000, 80, 3,
    )
    fewer = await win(backend, ada, 200_000, 79, T0 + timedelta(hours=4), undos=1)
    assert ((await entry())["game_id"], (await entry())["moves"]) == (str(fewer), 79)
    faster = await win(backend, ada, 150_000, 120, T0 + timedelta(hours=5), undos=9)
    held = await entry()
    assert (held["game_id"], held["elapsed_ms"], held["moves"], held["undos"]) == (
        str(faster), 150_000, 120, 9,
    )
    assert held["finished_at"] == T0 + timedelta(hours=5)


async def test_only_recorded_wins_make_entries(backend: Backend) -> None:
    ada = await new_player(backend)
    await record_game(backend, ada, "playing", None)
    await record_game(backend, ada, "abandoned", T0)
    await record_game(backend, ada, "blocked", T0)
    assert (await leaderboards.board(backend, "freecell", 617))["entries"] == []
    # a winning write that loses the race for its seq leaves no entry either
    gid = await record_game(backend, ada, "playing", None)
    with pytest.raises(VersionConflict):
        await backend.store.record(
            game_id=gid, first_seq=1, events=[{"type": "GameWon", "data": {}}],
            player_id=ada.id, variant="freecell", deal=617, autoplay=False, status="won",
            moves=90, undos=0, hints=0, foundation_cards=52, finish="now",
        )
    assert (await leaderboards.board(backend, "freecell", 617))["entries"] == []


async def test_boards_are_separate_per_variant_and_deal(backend: Backend) -> None:
    ada, bea = await new_player(backend, "ada"), await new_player(backend, "bea")
    await win(backend, ada, 10_000, 10, T0, variant="freecell", deal=1)
    await win(backend, bea, 20_000, 10, T0, variant="freecell", deal=1)
    await win(backend, bea, 5_000, 10, T0, variant="freecell", deal=2)
    await win(backend, ada, 30_000, 10, T0, variant="bakers_game", deal=1)
    assert names(await leaderboards.board(backend, "freecell", 1)) == ["ada", "bea"]
    assert names(await leaderboards.board(backend, "freecell", 2)) == ["bea"]
    assert names(await leaderboards.board(backend, "bakers_game", 1)) == ["ada"]
    assert names(await leaderboards.board(backend, "bakers_game", 2)) == []
    assert names(await leaderboards.board(backend, "bakers_dozen", 1)) == []
    around = await leaderboards.board_around(backend, "freecell", 2, bea)
    assert around["rank"] == 1 and names(around) == ["bea"]
    with pytest.raises(NotFound):
        await leaderboards.board_around(backend, "bakers_game", 1, bea)


async def test_bad_boards_and_cursors(backend: Backend) -> None:
    from engine import InvalidDeal, UnknownVariant

    with pytest.raises(UnknownVariant):
        await leaderboards.board(backend, "spider", 1)
    for deal in (0, -1, 2**33):
        with pytest.raises(InvalidDeal):
            await leaderboards.board(backend, "freecell", deal)
    for cursor in ("x", "!!!", cursors.games_cursor(T0, uuid.uuid4())):
        with pytest.raises(BadRequest):
            await leaderboards.board(backend, "freecell", 1, cursor=cursor)


async def test_forged_cursors_are_bad_requests(backend: Backend) -> None:
    import base64

    def forged(text: str) -> str:
        return base64.urlsafe_b64encode(text.encode()).decode()

    def signed(text: str) -> str:
        """A cursor signed with the backend's key, as the service signs its own."""
        parts = text.split(":")[1:]
        key = cursors.board_key(backend.cursor_key, "freecell", 1, "default")
        return forged(f"{text}:{cursors._mac(key, parts)}")

    pid = uuid.uuid4().hex
    for text in (
        f"b2:{10**30}:1:0:{pid}:0",  # beyond bigint
        f"b2:1:{2**31}:0:{pid}:0",  # beyond integer
        f"b2:1:1:{10**30}:{pid}:0",  # no such time
        f"b2:1:1:0:{pid}:-1",
        "b2:1:1:0:not-a-uuid:0",
        f"b2:1:1:0:{pid}",
    ):
        with pytest.raises(BadRequest):
            await leaderboards.board(backend, "freecell", 1, cursor=signed(text))
    # a cursor whose rank (or any part) is not the one the service signed
    for text in (f"b2:1:1:0:{pid}:7:{'0' * 24}", f"b1:1:1:0:{pid}:7"):
        with pytest.raises(BadRequest):
            await leaderboards.board(backend, "freecell", 1, cursor=forged(text))
    with pytest.raises(BadRequest):
        await records.player_games(backend, uuid.uuid4(), cursor=forged(f"g1:{10**30}:{pid}"))
    ok = await leaderboards.board(backend, "freecell", 1, cursor=signed(f"b2:1:1:0:{pid}:7"))
    assert ok == {"variant": "freecell", "deal": 1, "board": "default", "entries": [], "next": None}


# ---------------------------------------------------------------- the one order


def test_the_order_builds_the_sql_and_the_python_key() -> None:
    assert order.order_by("e") == "e.elapsed_ms, e.moves, e.finished_at, e.player_id"
    assert order.order_by("e", reverse=True) == (
        "e.elapsed_ms DESC, e.moves DESC, e.finished_at DESC, e.player_id DESC"
    )
    assert order.beyond("e", 4, later=True) == (
        "(e.elapsed_ms, e.moves, e.finished_at, e.player_id) > ($4, $5, $6, $7)"
    )
    win = {"elapsed_ms": 1, "moves": 2, "finished_at": T0, "player_id": uuid.UUID(int=3)}
    assert order.sort_key(win) == (1, 2, T0, uuid.UUID(int=3))
    assert order.better_key(win) == (1, 2, T0)


def test_an_order_may_have_a_descending_column() -> None:
    most_first = order.Column("cards", "integer", descending=True)
    columns = (most_first, order.Column("moves", "integer"))
    rows = [{"cards": 1, "moves": 1}, {"cards": 2, "moves": 9}, {"cards": 2, "moves": 3}]
    ranked = sorted(rows, key=lambda row: order.sort_key(row, columns))
    assert ranked == [rows[2], rows[1], rows[0]]
    assert order.order_by("t", columns=columns) == "t.cards DESC, t.moves"
    assert order.order_by("t", reverse=True, columns=columns) == "t.cards, t.moves DESC"
    assert order.beyond("t", 1, later=True, columns=(most_first,)) == "(t.cards) < ($1)"
    with pytest.raises(ValueError):
        order.beyond("t", 1, later=True, columns=columns)


async def test_board_index_follows_the_order(backend: Backend) -> None:
    """The index the board's pages and ranks are read from lists the entries in ORDER,
    and holds every column a page shows (its pages are index-only scans)."""
    async with backend.store.connection() as conn:
        rows = await conn.fetch(
            "SELECT k <= i.indnkeyatts AS key, pg_get_indexdef(i.indexrelid, k, true) AS name,"
            " pg_index_column_has_property(i.indexrelid, k, 'desc') AS descending"
            " FROM pg_index i, generate_series(1, i.indnatts) AS k"
            " WHERE i.indexrelid = 'leaderboard_entries_board'::regclass ORDER BY k"
        )
    assert [(r["name"], r["descending"]) for r in rows if r["key"]] == [
        ("variant", False), ("deal", False), ("board", False),
        *((c.name, c.descending) for c in order.ORDER),
    ]
    shown = {part.split()[0].removeprefix("e.") for part in ENTRY.split(",")}
    assert shown <= {r["name"] for r in rows}


async def held_entry(backend: Backend, player: Player, deal: int, board: str) -> Any:
    async with backend.store.connection() as conn:
        return await conn.fetchrow(
            "SELECT * FROM leaderboard_entries WHERE variant = 'freecell' AND deal = $1"
            " AND board = $2 AND player_id = $3",
            deal, board, player.id,
        )


async def test_record_win_keeps_the_best_by_the_order(backend: Backend) -> None:
    """Whatever order a player's wins come in, the entry is the best of them by
    order.better_key: ties on time go to fewer moves, then to the earlier finish, and a
    whole tie keeps the entry it has (Python's min keeps the first of equals too)."""
    ada = await new_player(backend)
    wins = [
        (100_000, 50, T0 + timedelta(minutes=2)),
        (100_000, 50, T0 + timedelta(minutes=1)),  # the same time and moves, earlier
        (100_000, 40, T0 + timedelta(minutes=3)),  # the same time, fewer moves
        (90_000, 99, T0 + timedelta(minutes=4)),  # faster
    ]
    tie = [wins[2], wins[2]]  # a whole tie
    arrivals = [*itertools.permutations(wins), tie]
    for deal, arrival in enumerate(arrivals, start=1000):
        recorded: list[dict[str, Any]] = []
        for elapsed, moves, finished in arrival:
            gid = await win(backend, ada, elapsed, moves, finished, deal=deal)
            recorded.append(
                {"game_id": gid, "elapsed_ms": elapsed, "moves": moves, "finished_at": finished}
            )
            best = min(recorded, key=order.better_key)
            held = await held_entry(backend, ada, deal, "default")
            assert held["game_id"] == best["game_id"], (arrival, recorded)
            assert order.better_key(held) == order.better_key(best)


async def test_record_events_keeps_the_best_by_the_order(backend: Backend) -> None:
    """The same through record_events itself, timed by the database's clock: a game won
    by its first write takes 0 ms (ties on time), one created earlier takes longer."""
    ada = await new_player(backend)

    async def won(moves: int, created_ago: timedelta | None) -> uuid.UUID:
        gid = uuid.uuid4()
        write: dict[str, Any] = dict(
            game_id=gid, player_id=ada.id, variant="freecell", deal=617, autoplay=False,
            moves=moves, undos=0, hints=0, foundation_cards=52,
        )
        created = {"type": "GameCreated", "data": {"variant": "freecell", "deal": 617}}
        if created_ago is None:
            await backend.store.record(
                first_seq=1, events=[created], status="won", finish="now", **write
            )
            return gid
        await backend.store.record(
            first_seq=1, events=[created], status="playing", finish="none", **write
        )
        async with backend.store.connection() as conn:
            await conn.execute(
                "UPDATE games SET created_at = created_at - $2::interval WHERE id = $1",
                gid, created_ago,
            )
        await backend.store.record(
            first_seq=2, events=[{"type": "GameWon", "data": {}}], status="won", finish="now",
            **write,
        )
        return gid

    plan = [
        (10, timedelta(hours=2)),
        (500, timedelta(hours=1)),  # faster, for all its moves
        (60, None),  # 0 ms
        (70, None),  # 0 ms, more moves
        (60, None),  # 0 ms, as many moves, later
        (50, None),  # 0 ms, fewer moves
    ]
    holders = [0, 1, 2, 2, 2, 5]  # which game holds the entry after each win
    games: list[uuid.UUID] = []
    for (moves, created_ago), holder in zip(plan, holders, strict=True):
        games.append(await won(moves, created_ago))
        async with backend.store.connection() as conn:
            won_games = await conn.fetch(
                "SELECT id AS game_id, elapsed_ms, moves, finished_at FROM games"
                " WHERE player_id = $1", ada.id,
            )
        best = min(won_games, key=order.better_key)
        held = await held_entry(backend, ada, 617, "assisted")  # (this quick: no pace)
        assert held["game_id"] == best["game_id"] == games[holder]
        assert order.better_key(held) == order.better_key(best)
