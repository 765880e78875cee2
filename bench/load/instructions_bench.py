"""Instructions a request costs, counted by callgrind: figures that do not move with the
machine's load, where the CPU times of the wrk and etag benchmarks move by a tenth from
one round to the next on a shared machine.

Each server runs under ``valgrind --tool=callgrind`` (about fifty times slower), counting
nothing until it is ready; the count is switched on for one load of ``wrk`` (2 threads, 8
connections, BENCH_SECONDS, default 10) and off after it, and the instructions of the
whole process (all its threads, the event loop and PostgreSQL's driver included) are
divided by the requests wrk completed. Servers, one after the other:

- the floor (../shared/bench/bare_server.py): moves of its own games, as in the wrk
  benchmark;
- the service (``make run``'s defaults but one worker and no opening searches): the same
  moves of the wrk benchmark on games of its own, then a game's full GET, then the 304 of
  the same GET (its ETag in If-None-Match);
- a bare aiohttp handler's 304 (bench/load/bare_304.py): aiohttp's own cost of a request.

Prints each figure in thousands of instructions and the ratios: a move against the floor's,
and the 304s (the service's, the bare handler's) against the service's full GET.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from ..common import PYTHON, ROOT, SHARED, database_url, free_port, fresh_database, wait_http
from .wrk_bench import LUA, prepare_round

SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))
GAMES_PER_THREAD = 64  # enough for SECONDS of moves at callgrind's pace
DONE_LUA = 'function done(s, l, r) io.write(string.format("DONE %d\\n", s.requests)) end\n'
# the floor's moves: a body like the service's, on 500 games in turn
FLOOR_LUA = (
    'wrk.method = "POST"\nwrk.body = \'{"from":"c1","to":"c2"}\'\n'
    'wrk.headers["Content-Type"] = "application/json"\ncounter = 0\n'
    'function request() counter = counter + 1\n'
    '  return wrk.format(nil, "/games/" .. (counter % 500) .. "/moves") end\n' + DONE_LUA
)


class Counted:
    """A server under callgrind, counting instructions only while `count` runs."""

    def __init__(self, name: str, args: list[str], folder: Path, env: dict[str, str]) -> None:
        self.out = folder / name
        self.proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.out}.%p",
             "--instr-atstart=no", *args],
            cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        self.dumps = 0

    def _control(self, *flags: str) -> None:
        subprocess.run(["callgrind_control", *flags, str(self.proc.pid)], capture_output=True,
                       check=True)  # fmt: skip

    def count(self, wrk_args: list[str]) -> tuple[int, int]:
        """(instructions, requests) of one wrk load."""
        self._control("-i", "on")
        out = subprocess.run(["wrk", *wrk_args], capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
        self._control("-i", "off")
        self._control("-d")
        self.dumps += 1
        requests = re.search(r"^DONE (\d+)$", out, re.M)
        if requests is None:
            raise RuntimeError(f"unexpected wrk output:\n{out}")
        return self._instructions(self.dumps), int(requests.group(1))

    def _instructions(self, part: int) -> int:
        path = f"{self.out}.{self.proc.pid}.{part}"
        for _ in range(100):  # (the dump is written as the process gets to it)
            if os.path.exists(path):
                with open(path) as f:
                    for line in f:
                        if line.startswith("totals:"):
                            return int(line.split()[1])
            time.sleep(0.2)
        raise RuntimeError(f"callgrind wrote no {path}")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 15)
        self.proc.wait(30)
        for path in glob.glob(f"{self.out}.*"):
            os.remove(path)


def load(script: Path, url: str, *args: str) -> list[str]:
    return ["-t2", "-c8", f"-d{SECONDS}s", "-s", str(script), url, "--", *args]


def per_request(counted: tuple[int, int]) -> float:
    return counted[0] / counted[1] / 1000


async def floor(server: str, folder: Path) -> float:
    port = free_port()
    db = await fresh_database(server, "bench_instr_floor")
    script = folder / "floor.lua"
    script.write_text(FLOOR_LUA)
    bare = Counted("floor", [PYTHON, str(SHARED / "bench" / "bare_server.py"), str(port), db],
                   folder, {})  # fmt: skip
    try:
        await wait_http(f"http://127.0.0.1:{port}/hello", timeout=120)
        return per_request(bare.count(load(script, f"http://127.0.0.1:{port}")))
    finally:
        bare.stop()


async def service(server: str, folder: Path) -> tuple[float, float, float]:
    """(a move, a game's full GET, its 304), in thousands of instructions each."""
    port = free_port()
    db = await fresh_database(server, "bench_instr_service")
    env = {"PORT": str(port), "DATABASE_URL": db, "RATE_LIMITS": "off", "WORKERS": "1",
           "SOLVER_PREFETCH": "false"}  # fmt: skip
    counted = Counted("service", [PYTHON, "-m", "service", "run"], folder, env)
    base = f"http://127.0.0.1:{port}"
    try:
        await wait_http(f"{base}/healthz", timeout=180)
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{base}/v1/players", json={"name": "bench"}) as r:
                token = (await r.json())["token"]
            lists, _ = await prepare_round(base, token, folder, 0, GAMES_PER_THREAD)
        moves = folder / "moves.lua"
        moves.write_text(LUA)
        move = counted.count(load(moves, base, str(lists), token))
        game = Path(f"{lists}.0").read_text().split("\t", 1)[0].rsplit("/", 1)[0]
        async with aiohttp.ClientSession() as s, s.get(f"{base}{game}") as r:
            tag = r.headers["ETag"]  # (once its moves are made)
        get = folder / "get.lua"
        get.write_text(DONE_LUA)
        unchanged = folder / "unchanged.lua"
        unchanged.write_text(f'wrk.headers["If-None-Match"] = [[{tag}]]\n' + DONE_LUA)
        full = counted.count(load(get, f"{base}{game}"))
        not_modified = counted.count(load(unchanged, f"{base}{game}"))
        return per_request(move), per_request(full), per_request(not_modified)
    finally:
        counted.stop()


async def bare_304(folder: Path) -> float:
    port = free_port()
    script = folder / "bare304.lua"
    script.write_text('wrk.headers["If-None-Match"] = [["bare.1"]]\n' + DONE_LUA)
    url = f"http://127.0.0.1:{port}/games/1"
    bare = Counted("bare304", [PYTHON, "-m", "bench.load.bare_304", str(port)], folder, {})
    try:
        await wait_http(url, timeout=120)
        return per_request(bare.count(load(script, url)))
    finally:
        bare.stop()


async def main() -> int:
    missing = [tool for tool in ("valgrind", "callgrind_control", "wrk") if not shutil.which(tool)]
    if missing:
        print(f"{', '.join(missing)} not installed (Debian: apt-get install valgrind wrk); skipped")
        return 1
    server = database_url()
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as tmp:
        folder = Path(tmp)
        floor_move = await floor(server, folder)
        move, full, not_modified = await service(server, folder)
        bare = await bare_304(folder)
    print(f"thousands of instructions a request, callgrind, wrk -t2 -c8 -d{SECONDS}s each:")
    print(f"  a move: service {move:.0f}, floor {floor_move:.0f}: "
          f"{move / floor_move:.2f}x the floor's")
    print(f"  a game's GET: full {full:.0f}; its 304 {not_modified:.0f}: "
          f"{not_modified / full:.2f}x the full GET's (goal 0.3)")
    print(f"  a bare aiohttp handler's 304: {bare:.0f}: {bare / full:.2f}x the service's full GET")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
