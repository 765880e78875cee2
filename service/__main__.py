"""python -m service run | migrate | verify | stop-db"""

from __future__ import annotations

import argparse
import asyncio
import sys

from pydantic import ValidationError

from service.base import logs
from service.base.settings import Settings, refusal
from service.database.embedded import resolve_database_url, stop_embedded
from service.database.migrate import schema_ahead, schema_behind, upgrade
from service.database.probe import transaction_pooler, wait_for_database
from service.serving.server import port_taken
from service.workers import default_workers, serve, supervise

UNTOLD_POOLER = (
    "DATABASE_URL goes through a pooler in transaction mode (pgbouncer's pool_mode ="
    " transaction), which loses the service's prepared statements: set"
    " DATABASE_POOLER=transaction, with LISTEN_DATABASE_URL (a direct connection to"
    " PostgreSQL) or EVENTS_BROKER for live events (docs/operations.md, Behind a pooler)"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="migrate the database, then serve HTTP on HOST:PORT")
    sub.add_parser("migrate", help="bring the database schema up to date")
    sub.add_parser("verify", help="replay every stored game and compare it with its projection"
                   " and leaderboard entry; exit 1 on any difference")
    sub.add_parser("stop-db", help="stop the embedded PostgreSQL of DATA_DIR, which the other"
                   " commands leave running")
    args = parser.parse_args(argv)
    logs.configure()
    try:
        settings = Settings()
    except ValidationError as exc:
        print(refusal(exc), file=sys.stderr)
        return 2
    if args.command == "stop-db":
        stopped = stop_embedded(settings.data_dir)
        print(f"{settings.data_dir}: {'stopped' if stopped else 'no server running'}")
        return 0
    problem = settings.listener_problem()
    if args.command == "run":
        problem = problem or port_taken(settings.host, settings.port)
    if args.command == "run" and problem:
        print(problem, file=sys.stderr)
        return 2
    url, embedded = resolve_database_url(settings.database_url, settings.data_dir)
    if embedded is not None and args.command == "run":
        embedded.keep_running()  # (its server is the service's: started again if it stops)
    if (unanswered := asyncio.run(wait_for_database(url, settings.db_start_wait_s))) is not None:
        print(f"the database does not answer ({unanswered}): check DATABASE_URL, or that"
              " PostgreSQL runs and takes connections", file=sys.stderr)
        return 2
    if not settings.pooled and asyncio.run(transaction_pooler(url)):
        print(UNTOLD_POOLER, file=sys.stderr)
        return 2
    if ahead := schema_ahead(url):
        print(ahead, file=sys.stderr)
        return 2
    if args.command == "verify":
        from service.verify.run import main as verify

        if behind := schema_behind(url):
            print(behind, file=sys.stderr)
            return 2
        return verify(url, settings.min_median_move_ms, pooler=settings.pooled)
    upgrade(url, pooler=settings.pooled)
    if args.command == "migrate":
        return 0
    settings = settings.model_copy(update={"database_url": url})
    workers = settings.workers or (1 if settings.port == 0 else default_workers(url))
    serving = (f"serving on http://{settings.host}:{settings.port} with {workers} worker"
               f"{'s' if workers > 1 else ''}")  # fmt: skip
    if workers > 1:
        return supervise(settings, workers, serving)
    print(serving, file=sys.stderr, flush=True)
    serve(settings, reuse_port=False)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # (Ctrl-C before serving, while migrating say: nothing to finish)
        sys.exit(130)
