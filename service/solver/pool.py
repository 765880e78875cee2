"""The search processes: what a worker does with a position (or a finished game's log), and
the pool that runs them.

Searches run off the event loop, in a small process pool (``solver_workers`` processes,
:func:`make_pool`, started by service/app.py), each within a time budget
(``hint_budget_seconds``).  In a worker, FreeCell, Baker's Game and Beleaguered Castle go
to Freecell Solver's library when it is installed (service/solver/fcsolve.py), everything else
(Baker's Dozen always) to the engine's own solver (engine/solver/search.py); the lines either
returns are replayed through the rules.  A long log an analysis judges is replayed here too
(:func:`boards_along`), off the service's process.  A worker exits when the service is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import forkserver, resource_tracker
from typing import Any

import orjson

from engine import VARIANTS, Event, Game, Move, Position
from engine.events import MOVE_UNDONE
from engine.solver import UNKNOWN, Layout, solve, trace
from engine.solver.shorten import shorten
from engine.status import WON
from service.solver import fcsolve
from service.solver.lines import follows
from service.solver.places import stopper

SHORT_LINE_SHARE = 0.6  # of a search's time, for the library's short-line presets
WATCH_SECONDS = 0.5  # how often a worker looks whether its service still runs
MIN_SEARCH = 0.05  # seconds: a search left less time than this does not start
# a worker that holds more memory than this after a search gives the library's back
# (fcsolve.give_back: some 10 to 30 ms after a large search, nothing after a small one)
KEEP_MB = 256

Steps = list[tuple[bytes, Layout]]
"""(canonical key, layout) of each position along a winning line, after each of its moves."""


def search(
    position: Position,
    seconds: float,
    *,
    library: bool = True,
    stop: Callable[[], bool] | None = None,
) -> tuple[str, tuple[Move, ...] | None, int, str]:
    """(verdict, winning line, states or iterations, which solver) for ``position``.

    A winning line is as short as the time allows: the library's short-line presets first
    (their lines optimised), then its atomic-moves search for a verdict it can prove, or the
    engine's search; the line found is then shortened (:func:`engine.solver.shorten.shorten`) with
    the time left, up to a second, unless ``stop`` says to end early (see
    service/solver/places.py)."""
    deadline = time.perf_counter() + seconds
    verdict, line, states, how = _search(position, seconds, library, stop)
    if line is not None and not (stop is not None and stop()):
        left = deadline - time.perf_counter()
        depth = 2 if left > 0.1 else 1
        line = shorten(position, line, depth=depth, seconds=min(1.0, max(left, 0.05)))
    return verdict, line, states, how


def _search(
    position: Position, seconds: float, library: bool, stop: Callable[[], bool] | None
) -> tuple[str, tuple[Move, ...] | None, int, str]:
    started = time.perf_counter()
    if library and position.name in fcsolve.GAMES and fcsolve.available():
        short = fcsolve.shortest(position, max_seconds=seconds * SHORT_LINE_SHARE, stop=stop)
        if short is not None:
            return short.verdict, short.moves, short.states, "fc-solve"
        left = max(seconds - (time.perf_counter() - started), seconds * 0.5)
        found = fcsolve.solve(position, max_seconds=left, stop=stop)
        if found is not None:
            return found.verdict, found.moves, found.states, "fc-solve"
    mine = solve(position, max_seconds=seconds, stop=stop)
    return mine.verdict, mine.moves, mine.states, "engine"


def search_board(
    variant: str,
    board: str,
    seconds: float,
    library: bool,
    deadline: float | None = None,
    stops: str | None = None,
    place: int = 0,
) -> tuple[str, list[str] | None, int, str, Steps]:
    """:func:`_board_searched`, then the library's memory given back when the worker
    holds more than KEEP_MB."""
    try:
        return _board_searched(variant, board, seconds, library, deadline, stops, place)
    finally:
        if resident_mb() > KEEP_MB:
            fcsolve.give_back()


def resident_mb() -> float:
    """This process's resident memory, in MB (0 where /proc does not say)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _board_searched(
    variant: str,
    board: str,
    seconds: float,
    library: bool,
    deadline: float | None,
    stops: str | None,
    place: int,
) -> tuple[str, list[str] | None, int, str, Steps]:
    """:func:`search` on a board sent as text (what crosses to a worker process).

    A winning line is replayed through the rules here (fcsolve.solve does it for its own
    lines; a line the rules refuse, or that does not win, makes the verdict unknown), and
    the positions along it are described for the service's cache, so that the service's
    own process has little to do.  ``deadline`` (``time.monotonic()``, the same clock in
    every process) ends a search that waited in the queue on time: it gets what is left.
    ``stops`` and ``place`` say where to read whether the search is to stop early (see
    service/solver/places.py); one stopped without a verdict has "none" for its solver, as
    one that never ran: its "unknown" holds for no budget."""
    if deadline is not None:
        seconds = min(seconds, deadline - time.monotonic())
        if seconds < MIN_SEARCH:
            return UNKNOWN, None, 0, "none", []
    position = VARIANTS[variant].from_board_text(board)
    stop = stopper(stops, place)
    verdict, line, states, how = search(position, seconds, library=library, stop=stop)
    if line is None:
        if verdict == UNKNOWN and stop is not None and stop():
            how = "none"
        return verdict, None, states, how, []
    if how != "fc-solve" and not follows(position, line):  # (fc-solve's: checked)
        return UNKNOWN, None, states, how, []
    return verdict, [str(m) for m in line], states, how, trace(position, line)


Boards = tuple[str, int, str, int, list[int], list[str], list[int]]
"""(variant, deal, status, version, seqs, board texts, undos) of a game along its log."""


def boards_along(log: str) -> Boards:
    """A game's log, JSON text of [[seq, type, data], …] from its creation, replayed: its
    variant and deal, its status and version at the end, the seq of each event with the
    layout after it as board text (:meth:`engine.Position.board_text`; none for a won game,
    which nobody judges), and the places of the undos among them (where a lost game may be
    winnable again). Linear in the log's length: the heavy part of an analysis, done in a
    worker."""
    events = orjson.loads(log)
    game = Game.replay([Event(events[0][1], events[0][2])])
    seqs = [events[0][0]]
    boards = [game.position.board_text()]
    undos = []
    for seq, kind, data in events[1:]:
        game.apply(Event(kind, data))
        if kind == MOVE_UNDONE:
            undos.append(len(seqs))
        seqs.append(seq)
        boards.append(game.position.board_text())
    if game.status == WON:
        boards = []
    return game.variant, game.deal, game.status, game.version, seqs, boards, undos


# the signals a terminal or a service manager sends a whole process group (Ctrl-C, a
# hang-up, systemd's stop): the service's helper processes leave them to the service, which
# finishes the searches its requests wait for, then ends them (service/workers.py)
GROUP_SIGNALS = (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)


def make_pool(workers: int) -> ProcessPoolExecutor:
    """The search processes: ``workers`` of them, each of which exits when this process is
    gone, however it ends."""
    ctx = _context()
    if ctx.get_start_method() == "forkserver":
        _start_forkserver()
    return ProcessPoolExecutor(
        max_workers=max(1, workers),
        mp_context=ctx,
        initializer=_warm_up,
        initargs=(os.getpid(),),
    )


def _start_forkserver() -> None:
    """multiprocessing's fork server (and its resource tracker), started now with the
    group's signals blocked, which they and the search processes they make keep (a
    process inherits what its parent blocks): a Ctrl-C would end them under the requests
    waiting for a search (a 500 each). Blocked in this thread only, as multiprocessing
    starts its resource tracker: the service's own handlers stay set, and a signal that
    comes meanwhile waits or goes to another thread. (Set to be ignored, as they were, a
    SIGTERM that came in those milliseconds was lost: the worker served on.)"""
    if threading.current_thread() is not threading.main_thread():
        return  # (started as multiprocessing does)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, GROUP_SIGNALS)
    try:
        resource_tracker.ensure_running()  # (which unblocks SIGINT and SIGTERM after it)
        signal.pthread_sigmask(signal.SIG_BLOCK, GROUP_SIGNALS)
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _context() -> Any:
    try:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["engine", __name__])
        return ctx
    except ValueError:  # no forkserver on this platform
        return multiprocessing.get_context("spawn")


def _warm_up(service_pid: int | None = None) -> None:
    """A worker's start: load the library, and watch the service: a worker whose service
    is gone (killed, even with SIGKILL) exits within a second instead of living on.
    Ctrl-C in a terminal reaches every process of its group: a worker leaves it to the
    service, which stops its workers (else each printed a KeyboardInterrupt's traceback)."""
    for sig in GROUP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    fcsolve.available()
    if service_pid is not None:
        threading.Thread(
            target=_exit_with, args=(service_pid, os.getppid()), name="watch", daemon=True
        ).start()


def _exit_with(service_pid: int, parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent or not _alive(service_pid):
            os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # (someone else's process took the number: ours is gone)
        return False
    return True
