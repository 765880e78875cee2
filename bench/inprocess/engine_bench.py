"""Engine timings against one PostgreSQL round trip.

    .venv/bin/python bench/inprocess/engine_bench.py [DSN]

DSN defaults to $DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/postgres.
Prints, in microseconds (best of 9 runs) and as a fraction of one ``SELECT 1`` round trip
(asyncpg, median, same run): legal-move generation (mean over the positions of a game),
check-and-apply of one move, Game.play of one move, and the replay of a stored game of
about 200 events (trusted and checked).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from engine import VARIANTS, Event, Game, Move  # noqa: E402

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"


def per_call(fn: Callable[[], object], calls: int, repeat: int = 9) -> float:
    """The best of ``repeat`` runs of the time of one call, in microseconds (the minimum is
    the least disturbed by other processes)."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        runs.append((time.perf_counter() - start) / calls * 1e6)
    return min(runs)


async def pg_round_trip(dsn: str, n: int = 2000) -> float | None:
    try:
        import asyncpg
    except ImportError:
        return None
    try:
        conn = await asyncpg.connect(dsn, timeout=5)
    except Exception as exc:
        print(f"(no PostgreSQL at {dsn}: {exc})")
        return None
    try:
        for _ in range(200):
            await conn.fetchval("SELECT 1")
        samples = []
        for _ in range(n):
            start = time.perf_counter()
            await conn.fetchval("SELECT 1")
            samples.append((time.perf_counter() - start) * 1e6)
        return statistics.median(samples)
    finally:
        await conn.close()


def main() -> None:
    dsn = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("DATABASE_URL", DEFAULT_DSN)
    dsn = dsn.replace("postgresql+asyncpg://", "postgresql://")
    solutions = json.loads((ROOT / "tests" / "data" / "solutions.json").read_text())["solutions"]

    # a FreeCell game of about 200 moves (about 150 player moves and 50 to the foundations)
    deal, text = min(solutions["freecell"].items(), key=lambda kv: abs(len(kv[1].split()) - 200))
    moves = [Move.parse(t) for t in text.split()]
    cls = VARIANTS["freecell"]

    # every position along the game, for legal-move generation
    positions = [cls.deal(int(deal))]
    for move in moves:
        positions.append(positions[-1].copy())
        positions[-1].play(move)

    def generate_all() -> None:
        for pos in positions:
            pos._legal = None
            pos.legal_moves  # noqa: B018

    gen_us = per_call(generate_all, 20) / len(positions)
    n_legal = sum(len(pos.legal_moves) for pos in positions) / len(positions)

    def play_all() -> None:
        pos = cls.deal(int(deal))
        for move in moves:
            pos.play(move)

    play_us = per_call(play_all, 50) / len(moves)

    def game_play_all() -> None:
        game, _ = Game.new("freecell", int(deal), autoplay=False)
        for move in moves:
            game.play(move)

    game_play_us = per_call(game_play_all, 30) / len(moves)

    game, log = Game.new("freecell", int(deal), autoplay=False)
    for move in moves:
        log += game.play(move)
    stored = [json.loads(json.dumps(e.to_dict())) for e in log]  # as the service stores them
    events = [Event(e["type"], e["data"]) for e in stored]

    replay_us = per_call(lambda: Game.replay(events), 300)
    replay_dict_us = per_call(lambda: Game.replay(stored), 300)
    replay_checked_us = per_call(lambda: Game.replay(events, check=True), 100)
    status_us = per_call(lambda: Game.replay(events).status, 300)

    pg = asyncio.run(pg_round_trip(dsn))

    def show(label: str, us: float) -> None:
        ratio = f"{us / pg:6.2f} x SELECT 1" if pg else "   (no PostgreSQL)"
        print(f"{label:<58} {us:9.1f} µs  {ratio}")

    print(f"FreeCell deal {deal}: {len(moves)} moves, {len(events)} events")
    if pg:
        print(f"{'PostgreSQL SELECT 1 round trip (asyncpg, median of 2000)':<58} {pg:9.1f} µs")
    show(f"legal-move generation (mean over the game, {n_legal:.1f} moves)", gen_us)
    show("Position.play: check and apply one move", play_us)
    show("Game.play: one move (events, autoplay check)", game_play_us)
    show(f"Game.replay of {len(events)} events (Event objects, trusted)", replay_us)
    show(f"Game.replay of {len(events)} events (stored dicts, trusted)", replay_dict_us)
    show(f"Game.replay of {len(events)} events + status", status_us)
    show(f"Game.replay of {len(events)} events, every move checked", replay_checked_us)


if __name__ == "__main__":
    main()
