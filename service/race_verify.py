"""`python -m service verify`, for races: each race's log against its players' game logs.

A race's events are written in the transactions of its games' writes (record_events,
migration 0006), so its log and theirs must agree: seqs from 1 without gap up to the
race's version; one RaceStarted once started, naming each player's game of the race's
deal, whose log starts at starts_at; one Progress a write to a player's game while the race
ran (the writes of a log are its runs of equal `at`); one RaceEnded once over.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import asyncpg

Differ = Callable[[uuid.UUID | None, str], None]


async def check_races(conn: asyncpg.Connection, differ: Differ) -> int:
    """Check every race; how many there were."""
    races = await conn.fetch(
        "SELECT id, status, deal, version, starts_at, ended_at FROM races ORDER BY id"
    )
    for race in races:
        events = await conn.fetch(
            "SELECT seq, type, data FROM race_events WHERE race_id = $1 ORDER BY seq", race["id"]
        )
        games = await conn.fetch(
            "SELECT g.id, g.player_id, g.deal, e.seq, e.at, e.data FROM games g"
            " JOIN game_events e ON e.game_id = g.id WHERE g.race_id = $1"
            " ORDER BY g.id, e.seq",
            race["id"],
        )
        for what in _race(race, [dict(e) for e in events], [dict(g) for g in games]):
            differ(None, f"race {race['id']}: {what}")
    return len(races)


def _race(race: Any, events: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[str]:
    wrong = []
    seqs = [e["seq"] for e in events]
    if seqs != list(range(1, race["version"] + 1)):
        wrong.append(f"its log's seqs are not 1..{race['version']} without gaps")
    kinds = Counter(e["type"] for e in events)
    started, over = race["status"] != "open", race["status"] == "over"
    if kinds["RaceStarted"] != int(started) or kinds["RaceEnded"] != int(over):
        wrong.append(f"{race['status']}, but its log has {kinds['RaceStarted']} RaceStarted"
                     f" and {kinds['RaceEnded']} RaceEnded")
    logs: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        logs.setdefault(str(row["player_id"]), []).append(row)
    start = next((e["data"] for e in events if e["type"] == "RaceStarted"), None)
    if start is not None:
        named = {p["player"]: p["game_id"] for p in start["players"]}
        held = {player: str(log[0]["id"]) for player, log in logs.items()}
        if named != held or start["deal"] != race["deal"]:
            wrong.append("RaceStarted does not name the race's games and deal")
    for player, log in logs.items():
        if log[0]["deal"] != race["deal"] or log[0]["at"] != race["starts_at"]:
            wrong.append(f"player {player}'s game is not of the deal, or not from starts_at")
        writes = {e["at"] for e in log[1:] if e["at"] != race["starts_at"]
                  and (race["ended_at"] is None or e["at"] <= race["ended_at"])}
        progress = sum(1 for e in events
                       if e["type"] == "Progress" and e["data"]["player"] == player)
        if progress != len(writes):
            wrong.append(f"player {player}: {progress} Progress events for {len(writes)}"
                         " writes to the game while the race ran")
    return wrong
