"""`python -m service verify`, for races: each race's log against its players' game logs.

A race's events are written in the transactions of its games' writes (record_events,
migrations 0006 and 0007), so its log and theirs must agree: seqs from 1 without gap up to
the race's version; one RaceStarted once started, naming each player's game of the race's
deal, whose log starts at starts_at; one Progress a write to a player's game while the race
ran (the writes of a log are its runs of equal `at`), saying what that write left (moves,
foundation cards, status); one PlayerFinished a write that brought the game to an end
while the race ran (its creation, for a deal over as dealt), with that end's status and
elapsed_ms; one RaceEnded once over, whose
ranking is the one API.md gives, of the games as their logs stood when the race ended.
Where PlayerFinished or a ranking's entry says `verified` (written since migration 0034),
it is the pace rule's verdict on the game's log for a win, null for any other end. The
games' writes and verdicts come from their replay (service/verify/games.py, replay.py).
"""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from collections.abc import Mapping
from typing import Any

import asyncpg

from service.verify.replay import Write
from service.verify.report import Differ

# what the ranking says of each player, beside the rank
RANKED = ("status", "elapsed_ms", "moves", "foundation_cards")


async def check_races(
    conn: asyncpg.Connection, differ: Differ, writes: Mapping[uuid.UUID, list[Write]],
    verdicts: Mapping[uuid.UUID, bool | None],
) -> int:
    """Check every race against the writes of its games and their verdicts (by game id,
    as their logs have them: GameChecks); how many races there were."""
    races = await conn.fetch(
        "SELECT id, status, deal, version, starts_at, ended_at FROM races ORDER BY id"
    )
    for race in races:
        events = await conn.fetch(
            "SELECT seq, type, data, at FROM race_events WHERE race_id = $1 ORDER BY seq",
            race["id"],
        )
        games = await conn.fetch(
            "SELECT id, player_id, deal FROM games WHERE race_id = $1 ORDER BY id", race["id"]
        )
        try:
            found = _race(race, [dict(e) for e in events], [dict(g) for g in games], writes,
                          verdicts)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            found = [f"its log is not what the service writes: {exc!r}"]
        for what in found:
            differ(None, f"race {race['id']}: {what}")
    return len(races)


def ranking(games: Mapping[str, Write]) -> dict[str, int]:
    """Each player's rank (API.md): winners by elapsed_ms, then fewer moves; then the
    others by foundation cards (more first), then fewer moves; equal players share a rank
    (the database's race_ranking)."""

    def key(w: Write) -> tuple[int, int, int, int]:
        won = w.status == "won"
        return (0 if won else 1, (w.elapsed_ms or 0) if won else 0, -w.foundation_cards,
                w.moves)

    keys = {player: key(w) for player, w in games.items()}
    return {p: 1 + sum(other < k for other in keys.values()) for p, k in keys.items()}


def _race(
    race: Any, events: list[dict[str, Any]], games: list[dict[str, Any]],
    writes: Mapping[uuid.UUID, list[Write]], verdicts: Mapping[uuid.UUID, bool | None],
) -> list[str]:
    wrong = []
    # each player's game's verdict (the pace rule's, on a win; None otherwise)
    verdict = {str(g["player_id"]): verdicts.get(uuid.UUID(str(g["id"]))) for g in games}
    seqs = [e["seq"] for e in events]
    if seqs != list(range(1, race["version"] + 1)):
        wrong.append(f"its log's seqs are not 1..{race['version']} without gaps")
    kinds = Counter(e["type"] for e in events)
    started, over = race["status"] != "open", race["status"] == "over"
    if kinds["RaceStarted"] != int(started) or kinds["RaceEnded"] != int(over):
        wrong.append(f"{race['status']}, but its log has {kinds['RaceStarted']} RaceStarted"
                     f" and {kinds['RaceEnded']} RaceEnded")
    start = next((e["data"] for e in events if e["type"] == "RaceStarted"), None)
    if start is not None:
        named = {p["player"]: p["game_id"] for p in start["players"]}
        held = {str(g["player_id"]): str(g["id"]) for g in games}
        if named != held or start["deal"] != race["deal"]:
            wrong.append("RaceStarted does not name the race's games and deal")
    # each player's writes, as the game's log has them
    logs: dict[str, list[Write]] = {}
    for g in games:
        log = writes.get(uuid.UUID(str(g["id"])))
        if log is None:
            wrong.append(f"player {g['player_id']}'s game {g['id']} does not replay (its own"
                         " difference says why): what the race says of it is not checked")
            return wrong
        logs[str(g["player_id"])] = log
        if g["deal"] != race["deal"] or log[0].at != race["starts_at"]:
            wrong.append(f"player {g['player_id']}'s game is not of the deal, or not from"
                         " starts_at")

    def said(kind: str, player: str) -> list[dict[str, Any]]:
        return [e["data"] for e in events
                if e["type"] == kind and e["data"].get("player") == player]

    for player, log in logs.items():
        # the writes the race saw: after the game's creation, up to the race's end
        seen = [w for w in log[1:] if race["ended_at"] is None or w.at <= race["ended_at"]]
        progress = [(d.get("moves"), d.get("foundation_cards"), d.get("status"))
                    for d in said("Progress", player)]
        expected = [(w.moves, w.foundation_cards, w.status) for w in seen]
        if len(progress) != len(expected):
            wrong.append(f"player {player}: {len(progress)} Progress events for"
                         f" {len(expected)} writes to the game while the race ran")
        elif progress != expected:
            i = next(i for i, (a, b) in enumerate(zip(progress, expected, strict=True))
                     if a != b)
            wrong.append(f"player {player}: Progress {i + 1} says {_progress(progress[i])},"
                         f" the game's log {_progress(expected[i])}")
        finished = [(d.get("status"), d.get("elapsed_ms"))
                    for d in said("PlayerFinished", player)]
        # (a game over as dealt ended at its creation, the race's start)
        ends = [(w.status, w.elapsed_ms) for w in [*log[:1], *seen] if w.ended]
        if finished != ends:
            wrong.append(f"player {player}: PlayerFinished says {_ends(finished)}, the game's"
                         f" log {_ends(ends)}")
        wrong += _verified(f"player {player}: PlayerFinished", said("PlayerFinished", player),
                           verdict[player])
    ended = next((e for e in events if e["type"] == "RaceEnded"), None)
    if ended is not None:
        wrong += _ranking(ended, logs)
        for entry in ended["data"].get("ranking") or []:
            player = str(entry.get("player"))
            wrong += _verified(f"RaceEnded's entry of player {player}", [entry],
                               verdict.get(player))
    return wrong


def _verified(where: str, said: list[dict[str, Any]], verdict: bool | None) -> list[str]:
    """What the events' `verified` gets wrong, where they say it: the game's verdict for
    a win, null for any other end."""
    wrong = []
    for data in said:
        expected = verdict if data.get("status") == "won" else None
        if "verified" in data and data["verified"] != expected:
            wrong.append(f"{where} says verified {data['verified']}, the game's log"
                         f" {expected}")
    return wrong


def _ranking(ended: dict[str, Any], logs: Mapping[str, list[Write]]) -> list[str]:
    """What RaceEnded's ranking gets wrong, against the games as their logs stood when
    the race ended (the last write of each up to RaceEnded's time)."""
    final = {player: [w for w in log if w.at <= ended["at"]][-1] for player, log in logs.items()}
    ranks = ranking(final)
    expected = {
        player: {"rank": ranks[player], "status": w.status, "elapsed_ms": w.elapsed_ms,
                 "moves": w.moves, "foundation_cards": w.foundation_cards}
        for player, w in final.items()
    }
    entries = ended["data"].get("ranking") or []
    stored = {str(r.get("player")): {k: r.get(k) for k in ("rank", *RANKED)} for r in entries}
    wrong = []
    for player in sorted(expected.keys() | stored.keys()):
        says, log = stored.get(player), expected.get(player)
        if says != log:
            wrong.append(f"RaceEnded ranks player {player} {_entry(says)}, the games' logs"
                         f" {_entry(log)}")
    ranked = [r.get("rank") for r in entries]
    if any(not isinstance(a, int) or not isinstance(b, int) or a > b
           for a, b in itertools.pairwise(ranked)):
        wrong.append("RaceEnded's ranking is not in the order of its ranks")
    return wrong


def _progress(p: tuple[Any, Any, Any]) -> str:
    return f"{p[0]} moves, {p[1]} foundation cards, {p[2]}"


def _ends(ends: list[tuple[Any, Any]]) -> str:
    if not ends:
        return "no end"
    return ", then ".join(f"{status} in {elapsed} ms" for status, elapsed in ends)


def _entry(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "nowhere"
    return (f"#{entry['rank']} ({entry['status']}, {entry['elapsed_ms']} ms, {entry['moves']}"
            f" moves, {entry['foundation_cards']} foundation cards)")
