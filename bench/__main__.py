"""make bench: every benchmark in turn, each a ratio to a reference timed in the same run.

    python -m bench            all of them
    python -m bench wrk ...    only those named (engine, wrk, move, stream, leaderboard,
                               solver, analysis, client, etag, instructions, race, fanout,
                               pooler); wrk is the move endpoint under wrk, client a phone
                               app's batch and 304, etag a 304 against the full GET under
                               wrk, instructions callgrind's count of a move and a 304,
                               race a race of 100 watched live, fanout 1,000 watchers over
                               four instances through LISTEN/NOTIFY and through NATS, pooler
                               the service directly on PostgreSQL and behind pgbouncer

Each NAME is the module bench/<group>/NAME_bench.py: inprocess/ (code timed in this
process: engine, leaderboard, solver, analysis), load/ (the service as a process under wrk,
callgrind or clients: wrk, move, client, etag, instructions, pooler) or live/ (WebSocket
watchers: stream, race, fanout).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .common import PYTHON, ROOT, database_url

BENCHES = [
    "engine", "wrk", "move", "stream", "leaderboard", "solver", "analysis", "client", "etag",
    "instructions", "race", "fanout",
    "pooler",
]


def main(argv: list[str]) -> int:
    names = argv or BENCHES
    failed = []
    for name in names:
        found = sorted((ROOT / "bench").glob(f"*/{name}_bench.py"))
        if not found:
            print(f"== {name}: no such benchmark")
            failed.append(name)
            continue
        module = f"bench.{found[0].parent.name}.{name}_bench"
        print(f"\n== {name} ({module})", flush=True)
        args = [PYTHON, "-m", module]
        if name == "engine":
            args.append(database_url())  # its reference: one SELECT 1 round trip
        if subprocess.run(args, cwd=Path(ROOT)).returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
