"""Serving: one service process, or WORKERS of them on one port under a supervisor."""

from __future__ import annotations

import contextlib
import gc
import ipaddress
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from urllib.parse import parse_qs, unquote, urlsplit

from service.app import create_app
from service.base import logs
from service.base.settings import Settings
from service.base.shm import SharedSlots
from service.serving.addresses import AddressCounts, SharedAddressCounts
from service.serving.server import STOP_SIGNALS, run

log = logging.getLogger("service")


# the most workers by default: each holds a pool of POOL_MAX connections, and four pools
# with their listeners stay well inside PostgreSQL's default max_connections (100)
MAX_DEFAULT_WORKERS = 4
LOCAL_HOSTS = frozenset({"", "localhost"})
# a worker that exits this soon after its start could not start: at the service's start,
# the supervisor gives up; once a worker has lived this long, it is started again after 1,
# 3, 7, … seconds, at most RESTART_MAX_S
QUICK_EXIT_S = 5.0
RESTART_MAX_S = 30.0


def database_is_local(database_url: str | None) -> bool:
    """Whether PostgreSQL runs on this machine: the embedded server (no DATABASE_URL), a
    Unix socket, or a loopback address."""
    if not database_url:
        return True
    parts = urlsplit(database_url)
    # (?host= overrides the URL's host: a socket's folder, or an address; a socket's folder
    # may also stand as the host itself, written %2F...)
    host = parse_qs(parts.query).get("host", [""])[0] or unquote(parts.hostname or "")
    return host.startswith("/") or _loopback(host)


def _loopback(host: str) -> bool:
    """A host name of this machine's own: none (a Unix socket), localhost, or an address
    of the loopback networks (127.0.0.0/8, ::1)."""
    if host in LOCAL_HOSTS:
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
        mapped = getattr(address, "ipv4_mapped", None)  # (::ffff:127.0.0.1)
        return (mapped or address).is_loopback
    except ValueError:
        return False


def default_workers(database_url: str | None = None) -> int:
    """What fits the machine: a service process per core, or per two cores when PostgreSQL
    runs on the same machine (it needs the other half: on a 2-core machine one worker beat
    two under wrk, docs/operations.md, "Workers"); at least one, at most
    MAX_DEFAULT_WORKERS.  The workers share their rate counters."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if database_is_local(database_url):
        cores //= 2
    return max(1, min(cores, MAX_DEFAULT_WORKERS))


def serve(settings: Settings, reuse_port: bool, limits: SharedSlots | None = None,
          connections: SharedAddressCounts | None = None, worker: int = 0) -> None:
    """One service process: its own event loop, pool and listener on HOST:PORT; `limits`
    and `connections`, the rate counters and the connections per address the
    supervisor's workers share, this process counting as its `worker`th."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    app = create_app(settings, limits.attach() if limits is not None else None)
    counts = connections.attach(worker) if connections is not None else AddressCounts.private()
    # What start-up built lives as long as the process: keep it out of the collector's
    # way, and collect the young generation less often (requests make many short-lived
    # objects; the collector's passes over them showed in profiles of the move path).
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    run(app, settings, counts, reuse_port=reuse_port, shutdown_timeout=10)


def _worker(settings: Settings, parent: int, limits: SharedSlots,
            connections: SharedAddressCounts, worker: int) -> None:
    # born with the stop signals blocked (_signals_held): a Ctrl-C or hang-up the group got while
    # this process loaded its modules is the supervisor's to act on (it sends SIGTERM), so
    # it is dropped here; SIGTERM, held until now, ends it as it would have
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    logs.configure()
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    serve(settings, reuse_port=True, limits=limits, connections=connections, worker=worker)
    # served and cleaned up: multiprocessing's exit would now wait for the solver's
    # processes, one of which may be searching a new game's opening for many budgets (they
    # ignore SIGTERM, the group's: solver/pool.py)
    for child in multiprocessing.active_children():
        child.kill()


def _exit_with_parent(parent: int) -> None:
    """A worker whose supervisor is gone (even killed with SIGKILL) shuts down."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)
            return


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """The stop signals blocked in this thread while workers are born, which inherit the
    mask: one sent to the group while a worker loads its modules waits for `_worker`,
    which leaves it to the supervisor (no KeyboardInterrupt's traceback, no worker killed
    half-started). (The supervisor's own are taken meanwhile by its other threads, and
    `stop` runs as usual.)"""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def supervise(settings: Settings, workers: int, serving: str) -> int:
    """WORKERS service processes on one port (SO_REUSEPORT: the kernel spreads the
    connections); each judges by the log, so they are correct together, as several
    instances are.  A worker that dies is started again (one that cannot start, once the
    service has served, again and again: QUICK_EXIT_S); SIGTERM, SIGINT or SIGHUP stops
    them all, from the moment `serving` is printed (a stop that comes before the workers
    have all started stops those that have, and starts no more)."""
    ctx = multiprocessing.get_context("spawn")
    me = os.getpid()
    procs: list[multiprocessing.process.BaseProcess] = []
    stopping = False
    failed = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for proc in procs:
            if proc.is_alive() and proc.pid is not None:
                os.kill(proc.pid, signal.SIGTERM)

    # (multiprocessing's resource tracker, started with the table's lock, keeps ignoring a
    # hang-up sent to the group, as it ignores SIGINT and SIGTERM: else it dies under the
    # workers, which then print its KeyErrors; `stop` takes SIGHUP once it runs)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, stop)
    limits = SharedSlots.create()  # the rate counters, one table for all the workers
    connections = SharedAddressCounts.create(workers)  # and the connections per address
    signal.signal(signal.SIGHUP, stop)
    print(serving, file=sys.stderr, flush=True)

    def start(i: int) -> multiprocessing.process.BaseProcess:
        return ctx.Process(target=_worker, args=(settings, me, limits, connections, i))

    def launch(proc: multiprocessing.process.BaseProcess) -> None:
        with _signals_held():
            if not stopping:
                proc.start()
        if stopping:  # (a stop that came while it started did not see it alive)
            stop(signal.SIGTERM, None)

    procs.extend(start(i) for i in range(workers))
    for proc in procs:
        launch(proc)
    started = [time.monotonic()] * workers
    quick_exits = [0] * workers  # in a row, each within QUICK_EXIT_S of its start
    due: list[float | None] = [None] * workers  # when a dead worker starts again
    established = False  # whether a worker has lived QUICK_EXIT_S: the service can start
    while not stopping:
        now = time.monotonic()
        for i, proc in enumerate(procs):
            if stopping:
                break
            if due[i] is None and proc.is_alive() and now - started[i] >= QUICK_EXIT_S:
                established = True
            elif due[i] is None and not proc.is_alive():
                log.error("worker %s exited (%s)", proc.pid, proc.exitcode)
                quick = now - started[i] < QUICK_EXIT_S
                if quick and not established:
                    # none could start in the first place: give up, loudly
                    stop(signal.SIGTERM, None)
                    failed = True
                    break
                # one that cannot start once the service has served (its pool needs the
                # database, which may be away) is tried again, less and less often
                quick_exits[i] = quick_exits[i] + 1 if quick else 0
                due[i] = now + min(RESTART_MAX_S, 2.0 ** quick_exits[i] - 1)
                if quick:
                    log.error("worker %s: starting it again in %.0f s", i, due[i] - now)
            elif (when := due[i]) is not None and now >= when:
                procs[i] = start(i)  # in the dead one's place: it forgets its connections
                launch(procs[i])
                started[i], due[i] = now, None
        time.sleep(0.2)
    for proc in procs:
        if proc.pid is None:  # (never started: the stop came first)
            continue
        proc.join(15)
        if proc.is_alive():
            proc.kill()
    limits.remove()
    connections.remove()
    return 1 if failed else 0
