"""`python -m service verify`: every game replayed against its projection and its
leaderboard entry; damage done on purpose is reported, exit code 1."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from typing import Any

import asyncpg
from aiohttp.test_utils import TestClient

from engine import Move
from service.verify.run import verify

from ...api.helpers import auth, new_game, new_player, shortest
from ...api.races.helpers import call, give_up_with_a_card_up, new_race, until
from ..helpers import ROOT

SOLUTIONS = json.loads((ROOT / "tests" / "data" / "solutions.json").read_text())["solutions"]


def shortest_win(variant: str) -> tuple[int, list[dict[str, Any]]]:
    deal, text = min(SOLUTIONS[variant].items(), key=lambda item: len(item[1].split()))
    return int(deal), [Move.parse(m).to_dict() for m in text.split()]


async def play(client: TestClient, player: dict[str, Any], game_id: str,
               moves: list[dict[str, Any]]) -> dict[str, Any]:
    game: dict[str, Any] = {}
    for move in moves:
        r = await client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(player))
        assert r.status == 201, await r.text()
        game = (await r.json())["game"]
    return game


async def write(client: TestClient, player: dict[str, Any], game_id: str, action: str) -> None:
    r = await client.post(f"/v1/games/{game_id}/{action}", json={}, headers=auth(player))
    assert r.status == 201, await r.text()


async def games_of_every_kind(client: TestClient) -> dict[str, str]:
    """Won twice (the same deal, by the same player), undone and redone, abandoned,
    blocked, and still being played, in every variant."""
    ada, bob = await new_player(client, "ada"), await new_player(client, "bob")
    deal, moves = shortest_win("freecell")
    ids = {}
    for name in ("won", "won again"):
        game = await new_game(client, ada, deal=deal, autoplay=False)
        assert (await play(client, ada, game["id"], moves))["status"] == "won"
        ids[name] = game["id"]
    game = await new_game(client, bob, deal=deal, autoplay=False)
    await play(client, bob, game["id"], moves[:10])
    await write(client, bob, game["id"], "undo")
    await write(client, bob, game["id"], "undo")
    await write(client, bob, game["id"], "redo")
    await play(client, bob, game["id"], moves[9:])  # bob wins after an undo
    ids["won after undos"] = game["id"]
    game = await new_game(client, bob, deal=5)
    await play(client, bob, game["id"], [{"from": "t1", "to": "c"}])
    await write(client, bob, game["id"], "abandon")
    ids["abandoned"] = game["id"]
    for variant in ("bakers_game", "bakers_dozen", "beleaguered_castle"):
        game = await new_game(client, ada, variant=variant, deal=7)  # solvable in each
        r = await client.get(f"/v1/games/{game['id']}/legal-moves")
        legal = (await r.json())["moves"]
        await play(client, ada, game["id"], legal[:1])
        ids[variant] = game["id"]
    return ids


async def test_verify_finds_nothing_wrong_then_every_damage_done_on_purpose(
    client: TestClient, db_url: str
) -> None:
    ids = await games_of_every_kind(client)
    report = await verify(db_url, min_median_move_ms=0)
    assert report.ok, [str(d) for d in report.differences]
    # ada's best on the four boards (no undo), bob's on the two that allow undos
    assert report.games == len(ids) and report.entries == 6
    # at a hand's pace of 200 ms, every scripted win here is too fast for the default
    # boards, where the entries are: each is reported
    fast = await verify(db_url, min_median_move_ms=200)
    found = "\n".join(str(d) for d in fast.differences)
    assert "(default), player" in found and "an entry, but the log has no won game" in found
    assert "verified: the entry says True, the log False" in found
    assert "the pace rule at MIN_MEDIAN_MOVE_MS=200:" in fast.summary()

    conn = await asyncpg.connect(db_url)
    try:
        won = uuid.UUID(ids["won"])
        moves = (await (await client.get(f"/v1/games/{won}")).json())["moves"]
        await conn.execute("UPDATE games SET moves = moves + 1 WHERE id = $1", won)
        report = await verify(db_url, min_median_move_ms=0)
        assert [str(d) for d in report.differences] == [
            f"game {won}: moves: the projection says {moves + 1}, the log {moves}"
        ]

        abandoned = uuid.UUID(ids["abandoned"])
        await conn.execute(
            "UPDATE games SET status = 'playing', finished_at = NULL, elapsed_ms = NULL"
            " WHERE id = $1", abandoned,
        )
        # ada's entry is whichever of her two wins was faster
        ada_best = await conn.fetchval(
            "UPDATE leaderboard_entries SET elapsed_ms = elapsed_ms - 1"
            " WHERE game_id = ANY($1::uuid[]) AND board = 'default' RETURNING game_id",
            [won, uuid.UUID(ids["won again"])],
        )
        bob_won = uuid.UUID(ids["won after undos"])
        await conn.execute(
            "DELETE FROM leaderboard_entries WHERE game_id = $1 AND board = 'default'", bob_won
        )
        # a hinted win passed off as a clean one
        await conn.execute(
            "UPDATE leaderboard_entries SET assisted = true"
            " WHERE game_id = $1 AND board = 'assisted'", bob_won,
        )
        # the log is append-only, but a bad event can still be appended past the end
        playing = uuid.UUID(ids["bakers_dozen"])
        version = await conn.fetchval("SELECT version FROM games WHERE id = $1", playing)
        await conn.execute(
            "INSERT INTO game_events (game_id, seq, type, data, at)"
            " VALUES ($1, $2, 'CardMoved', $3::jsonb, now())",
            playing, version + 1, json.dumps({"from": "t1", "to": "t1", "count": 1}),
        )
        report = await verify(db_url, min_median_move_ms=0)
        found = "\n".join(str(d) for d in report.differences)
        for expected in [
            f"game {won}: moves: the projection says",
            f"game {abandoned}: status: the projection says playing, the log abandoned",
            f"game {abandoned}: finished_at: the projection says None",
            f"game {abandoned}: elapsed_ms: the projection says None",
            f"game {ada_best}: leaderboard freecell",
            "won in the log, but no entry",
            f"game {playing}: event {version + 1} (CardMoved) breaks the rules",
            f"game {bob_won}: leaderboard freecell {await deal_of(conn, bob_won)} (assisted),"
            f" player {await player_of(conn, bob_won)}: assisted: the entry says True,"
            " the log False",
        ]:
            assert expected in found, (expected, found)
        assert len(report.differences) == 8, found
    finally:
        await conn.close()

    # the command: the same report, exit code 1
    run = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "service", "verify"], cwd=ROOT,
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "DATABASE_URL": db_url, "MIN_MEDIAN_MOVE_MS": "0"},
    )
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[:-1] == [str(d) for d in report.differences]
    assert lines[-1] == report.summary() and "8 differences" in lines[-1]
    print("\nverify after the damage:\n" + run.stdout)


async def deal_of(conn: asyncpg.Connection, game_id: uuid.UUID) -> int:
    deal: int = await conn.fetchval("SELECT deal FROM games WHERE id = $1", game_id)
    return deal


async def player_of(conn: asyncpg.Connection, game_id: uuid.UUID) -> uuid.UUID:
    player: uuid.UUID = await conn.fetchval("SELECT player_id FROM games WHERE id = $1", game_id)
    return uuid.UUID(str(player))


async def test_verify_checks_automatic_moves_and_hints(client: TestClient, db_url: str) -> None:
    """A log whose automatic moves break the game's setting, and a hint, as verify sees them."""
    ada = await new_player(client)
    deal, moves = shortest_win("freecell")
    # autoplay off: the moves up to the line's first move to the foundations, which is
    # then appended (past the end) as an automatic move
    off = await new_game(client, ada, deal=deal, autoplay=False)
    first_home = next(i for i, m in enumerate(moves) if m["to"] == "f")
    await play(client, ada, off["id"], moves[:first_home])
    r = await client.post(f"/v1/games/{off['id']}/hint", json={}, headers=auth(ada))
    assert r.status == 201, await r.text()
    hinted = await (await client.get(f"/v1/games/{off['id']}")).json()
    assert hinted["hints"] == 1 and hinted["assisted"] is True
    report = await verify(db_url, min_median_move_ms=0)
    assert report.ok, [str(d) for d in report.differences]

    conn = await asyncpg.connect(db_url)
    try:
        gid = uuid.UUID(off["id"])
        version = hinted["version"]
        home = moves[first_home]
        await conn.execute(
            "INSERT INTO game_events (game_id, seq, type, data, at)"
            " VALUES ($1, $2, 'CardMoved', $3::jsonb, now())",
            gid, version + 1,
            json.dumps({"from": home["from"], "to": "f", "count": 1, "auto": True}),
        )
        await conn.execute("UPDATE games SET hints = 0 WHERE id = $1", gid)
    finally:
        await conn.close()
    report = await verify(db_url, min_median_move_ms=0)
    found = [str(d) for d in report.differences]
    assert f"game {gid}: event {version + 1} is an automatic move, but autoplay is off" in found
    assert f"game {gid}: hints: the projection says 0, the log 1" in found


async def test_verify_recomputes_a_races_progress_finishes_and_ranking_from_the_games(
    client: TestClient, db_url: str
) -> None:
    """A race's Progress, PlayerFinished and RaceEnded (their `verified` too), each damaged
    in the database as a bug or an attacker would: verify recomputes them from the
    players' game logs and reports each difference; the race as written passes."""
    deal, line = shortest("freecell")
    ada, bob, cy = [await new_player(client, n) for n in ("ada", "bob", "cy")]
    race = await new_race(client, ada, deal=deal, autoplay=False, max_players=3)
    rid = race["id"]
    for racer in (bob, cy):
        await call(client, "POST", f"/v1/races/{rid}/join", racer)
    await until(race["starts_at"], 0.01)
    running = await call(client, "GET", f"/v1/races/{rid}")
    games = {p["player"]["name"]: p["game_id"] for p in running["players"]}
    await give_up_with_a_card_up(client, client, bob, games["bob"], line)
    await write(client, cy, games["cy"], "abandon")
    await call(client, "POST", f"/v1/games/{games['ada']}/moves", ada,
               {"moves": [m.to_dict() for m in line]}, 201)
    over = await call(client, "GET", f"/v1/races/{rid}")
    assert [(p["player"]["name"], p["rank"]) for p in over["players"]] == [
        ("ada", 1), ("bob", 2), ("cy", 3)]
    them = {p["player"]["name"]: p for p in over["players"]}
    report = await verify(db_url, min_median_move_ms=0)
    assert report.ok, [str(d) for d in report.differences]

    events = (await call(client, "GET", f"/v1/races/{rid}/events"))["events"]

    def seq_of(kind: str, name: str | None = None) -> int:
        return next(e["seq"] for e in events if e["type"] == kind
                    and (name is None or e["data"]["player"] == them[name]["player"]["id"]))

    conn = await asyncpg.connect(db_url)

    async def damaged(seq: int, change: Any) -> list[str]:
        """verify's differences while the race's event `seq` is changed by `change`."""
        text = await conn.fetchval(
            "SELECT data::text FROM race_events WHERE race_id = $1 AND seq = $2", rid, seq)
        data = json.loads(text)
        change(data)
        update = "UPDATE race_events SET data = $3::jsonb WHERE race_id = $1 AND seq = $2"
        await conn.execute(update, rid, seq, json.dumps(data))
        try:
            return [str(d) for d in (await verify(db_url, min_median_move_ms=0)).differences]
        finally:
            await conn.execute(update, rid, seq, text)

    def entry(name: str, rank: int | None = None, **changed: Any) -> str:
        p = {**them[name], **changed}
        return (f"#{rank or p['rank']} ({p['status']}, {p['elapsed_ms']} ms, {p['moves']} moves,"
                f" {p['foundation_cards']} foundation cards)")

    def ranked(data: dict[str, Any], name: str) -> dict[str, Any]:
        pid = them[name]["player"]["id"]
        found: dict[str, Any] = next(r for r in data["ranking"] if r["player"] == pid)
        return found

    ids = {name: p["player"]["id"] for name, p in them.items()}
    at = f"race {rid}: player"
    try:
        won_in = them["ada"]["elapsed_ms"]
        found = await damaged(seq_of("PlayerFinished", "ada"),
                              lambda d: d.update(elapsed_ms=d["elapsed_ms"] - 1000))
        assert found == [f"{at} {ids['ada']}: PlayerFinished says won in {won_in - 1000} ms,"
                         f" the game's log won in {won_in} ms"], found
        found = await damaged(seq_of("PlayerFinished", "bob"), lambda d: d.update(status="won"))
        assert found == [f"{at} {ids['bob']}: PlayerFinished says won in"
                         f" {them['bob']['elapsed_ms']} ms, the game's log abandoned in"
                         f" {them['bob']['elapsed_ms']} ms"], found
        # a win's verdict turned over: in PlayerFinished, in RaceEnded, on the game's row
        found = await damaged(seq_of("PlayerFinished", "ada"), lambda d: d.update(verified=False))
        assert found == [f"{at} {ids['ada']}: PlayerFinished says verified False, the game's"
                         " log True"], found
        found = await damaged(seq_of("RaceEnded"), lambda d: ranked(d, "bob").update(verified=True))
        assert found == [f"race {rid}: RaceEnded's entry of player {ids['bob']} says verified"
                         " True, the game's log None"], found
        await conn.execute("UPDATE games SET verified = false WHERE id = $1", games["ada"])
        found = [str(d) for d in (await verify(db_url, min_median_move_ms=0)).differences]
        await conn.execute("UPDATE games SET verified = true WHERE id = $1", games["ada"])
        assert found == [f"game {games['ada']}: verified: the projection says False, the log"
                         " True"], found
        # a win from before migration 0033 whose row kept no verdict (null), in a race
        # that ended after 0034 (RaceEnded copies the null; PlayerFinished has no field)
        finish = seq_of("PlayerFinished", "ada")
        strip = "UPDATE race_events SET data = data - 'verified' WHERE race_id = $1 AND seq = $2"
        await conn.execute(strip, rid, finish)
        await conn.execute("UPDATE games SET verified = NULL WHERE id = $1", games["ada"])
        found = await damaged(seq_of("RaceEnded"), lambda d: ranked(d, "ada").update(verified=None))
        await conn.execute("UPDATE games SET verified = true WHERE id = $1", games["ada"])
        await conn.execute("UPDATE race_events SET data = data || '{\"verified\": true}'"
                           " WHERE race_id = $1 AND seq = $2", rid, finish)  # fmt: skip
        assert found == [], found
        # cy's finish passed off as ada's: both players' finishes are wrong
        found = await damaged(seq_of("PlayerFinished", "cy"),
                              lambda d: d.update(player=ids["ada"]))
        assert len(found) == 2 and all("PlayerFinished says" in f for f in found), found
        assert any(f.startswith(f"{at} {ids['cy']}: PlayerFinished says no end") for f in found)
        # bob's abandonment's Progress with his card taken off the foundations
        bob_seq = max(e["seq"] for e in events if e["type"] == "Progress"
                      and e["data"]["player"] == ids["bob"])
        found = await damaged(bob_seq, lambda d: d.update(foundation_cards=0))
        assert len(found) == 1 and found[0].startswith(f"{at} {ids['bob']}: Progress "), found
        assert found[0].endswith(f"says {them['bob']['moves']} moves, 0 foundation cards,"
                                 f" abandoned, the game's log {them['bob']['moves']} moves,"
                                 " 1 foundation cards, abandoned"), found

        def swap(d: dict[str, Any]) -> None:
            ranked(d, "ada")["rank"], ranked(d, "bob")["rank"] = 2, 1

        ended = seq_of("RaceEnded")
        found = await damaged(ended, swap)
        assert found == [
            f"race {rid}: RaceEnded ranks player {ids[name]} {entry(name, rank)}, the games' logs"
            f" {entry(name)}"
            for name, rank in sorted((("ada", 2), ("bob", 1)), key=lambda n: ids[n[0]])
        ] + [f"race {rid}: RaceEnded's ranking is not in the order of its ranks"], found
        found = await damaged(ended, lambda d: ranked(d, "cy").update(foundation_cards=5))
        assert found == [f"race {rid}: RaceEnded ranks player {ids['cy']}"
                         f" {entry('cy', foundation_cards=5)}, the games' logs {entry('cy')}"]
        found = await damaged(ended, lambda d: d["ranking"].pop())
        assert found == [f"race {rid}: RaceEnded ranks player {ids['cy']} nowhere, the games'"
                         f" logs {entry('cy')}"], found
        # data of a shape the service never writes is reported too, not a crash
        found = await damaged(bob_seq, lambda d: d.pop("moves"))
        assert len(found) == 1 and found[0].startswith(f"{at} {ids['bob']}: Progress "), found
        assert "says None moves, 1 foundation cards, abandoned" in found[0], found
        found = await damaged(ended, lambda d: d.update(ranking="ada first"))
        assert found == [f"race {rid}: its log is not what the service writes:"
                         " AttributeError(\"'str' object has no attribute 'get'\")"], found
    finally:
        await conn.close()
    report = await verify(db_url, min_median_move_ms=0)
    assert report.ok, [str(d) for d in report.differences]


async def test_verify_checks_the_counts_kept_beside_the_projection(
    client: TestClient, db_url: str
) -> None:
    """The boards' bins of time and the players' figures, written by triggers, are
    counted again from the entries and the games: damage to either is reported."""
    await games_of_every_kind(client)
    assert (await verify(db_url, min_median_move_ms=0)).ok
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("UPDATE board_bins SET entries = entries + 1"
                           " WHERE ctid = (SELECT min(ctid) FROM board_bins)")  # fmt: skip
        await conn.execute(
            "UPDATE player_stats SET won = won + 2"
            " WHERE ctid = (SELECT min(ctid) FROM player_stats WHERE won > 0)"
        )
        await conn.execute("DELETE FROM player_time_bins"
                           " WHERE ctid = (SELECT min(ctid) FROM player_time_bins)")  # fmt: skip
    finally:
        await conn.close()
    found = [str(d) for d in (await verify(db_url, min_median_move_ms=0)).differences]
    assert len(found) == 3, found
    assert "board_bins says" in found[0]
    assert "in player_stats" in found[1]
    assert "player_time_bins says 0" in found[2]


async def test_verify_changes_nothing_not_even_a_schema_behind(db_url: str) -> None:
    """A check run against a database whose schema is not this code's says so and stops
    (exit 2): it migrates nothing."""
    conn = await asyncpg.connect(db_url)
    try:
        head = await conn.fetchval("SELECT version_num FROM alembic_version")
        await conn.execute("UPDATE alembic_version SET version_num = '0001'")
        run = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "service", "verify"], cwd=ROOT,
            capture_output=True, text=True, timeout=60, env={**os.environ, "DATABASE_URL": db_url},
        )
        assert run.returncode == 2, run.stdout + run.stderr
        assert f"at revision 0001, this code's at {head}" in run.stderr
        assert "python -m service migrate" in run.stderr
        assert await conn.fetchval("SELECT version_num FROM alembic_version") == "0001"
    finally:
        await conn.close()
