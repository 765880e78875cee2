"""A PgBouncer of our own (Debian's package) in transaction mode (or another), in front of
a PostgreSQL server, for the tests and the benchmarks: `with Pgbouncer(server_url) as pooler:` then
`pooler.url(database)`. Listens on a free port of 127.0.0.1; every database of the server
is reachable through it under its own name."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, unquote, urlsplit, urlunsplit

BINARY = "pgbouncer"


def installed() -> str | None:
    """The path of pgbouncer, if installed (Debian puts it in /usr/sbin)."""
    return shutil.which(BINARY) or next(
        (p for p in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.path.exists(p)), None
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Pgbouncer:
    def __init__(
        self, server_url: str, *, pool_size: int = 20, max_client_conn: int = 2000,
        pool_mode: str = "transaction",
    ) -> None:
        parts = urlsplit(server_url)
        query = parse_qs(parts.query)
        # the server: host and port, or a Unix socket's folder (the embedded server's)
        self.host = parts.hostname or query.get("host", ["/var/run/postgresql"])[0]
        self.port = parts.port or int(query.get("port", ["5432"])[0])
        self.user = unquote(parts.username or "postgres")
        self.password = unquote(parts.password or "")
        self.pool_size = pool_size
        self.pool_mode = pool_mode
        self.max_client_conn = max_client_conn
        self.listen_port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self.log = ""

    def url(self, database: str) -> str:
        """postgresql://… of `database` through the pooler."""
        netloc = f"{self.user}@127.0.0.1:{self.listen_port}"
        return urlunsplit(("postgresql", netloc, "/" + database, "", ""))

    def show(self, what: str) -> list[dict[str, str | None]]:
        """`SHOW {what}` on pgbouncer's admin console (SHOW STATS, SHOW POOLS, ...): its
        rows as text. The console speaks the simple query protocol only, which asyncpg
        does not offer with results, so this is the protocol by hand."""
        with socket.create_connection(("127.0.0.1", self.listen_port), timeout=5) as s:
            body = b"".join(
                k.encode() + b"\0" + v.encode() + b"\0"
                for k, v in (("user", self.user), ("database", "pgbouncer"))
            ) + b"\0"
            s.sendall(struct.pack("!ii", 8 + len(body), 196608) + body)
            sql = f"SHOW {what}".encode() + b"\0"
            names: list[str] = []
            rows: list[dict[str, str | None]] = []
            stream = s.makefile("rb")

            def message() -> tuple[bytes, bytes]:
                kind, size = struct.unpack("!ci", stream.read(5))
                return kind, stream.read(size - 4)

            while True:  # the start-up: trust, parameters, ReadyForQuery
                kind, data = message()
                if kind == b"E":
                    raise RuntimeError(data.decode(errors="replace"))
                if kind == b"Z":
                    break
            s.sendall(b"Q" + struct.pack("!i", 4 + len(sql)) + sql)
            while True:
                kind, data = message()
                if kind == b"E":
                    raise RuntimeError(data.decode(errors="replace"))
                if kind == b"T":
                    (count,), at = struct.unpack("!h", data[:2]), 2
                    for _ in range(count):
                        end = data.index(b"\0", at)
                        names.append(data[at:end].decode())
                        at = end + 1 + 18
                elif kind == b"D":
                    (count,), at = struct.unpack("!h", data[:2]), 2
                    values: list[str | None] = []
                    for _ in range(count):
                        (size,) = struct.unpack("!i", data[at:at + 4])
                        at += 4
                        values.append(None if size < 0 else data[at:at + size].decode())
                        at += max(size, 0)
                    rows.append(dict(zip(names, values, strict=True)))
                elif kind == b"Z":
                    s.sendall(b"X" + struct.pack("!i", 4))
                    return rows

    def stats(self, database: str) -> dict[str, int]:
        """The pooler's counters of one database (SHOW STATS): total_xact_count (the
        transactions, each a round trip of a statement outside a BEGIN),
        total_query_count, ..."""
        for row in self.show("STATS"):
            if row["database"] == database:
                return {k: int(v) for k, v in row.items() if k.startswith("total") and v}
        return {}

    def _run_as(self) -> list[str]:
        """pgbouncer refuses to run as root: then it runs as the owner of the server's
        socket folder (the embedded server's own user), or postgres, or nobody."""
        if os.geteuid() != 0:
            return []
        if self.host.startswith("/"):
            return ["-u", pwd.getpwuid(os.stat(self.host).st_uid).pw_name]
        for name in ("postgres", "nobody"):
            try:
                pwd.getpwnam(name)
            except KeyError:
                continue
            return ["-u", name]
        raise RuntimeError("no user for pgbouncer to run as")

    def start(self) -> Pgbouncer:
        binary = installed()
        if binary is None:
            raise RuntimeError("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
        self._dir = tempfile.TemporaryDirectory(prefix="pgbouncer-")
        folder = Path(self._dir.name)
        os.chmod(folder, 0o755)
        (folder / "users.txt").write_text(f'"{self.user}" "{self.password}"\n')
        server = f"host={self.host} port={self.port}"
        if self.password:
            server += f" password={self.password}"
        config = folder / "pgbouncer.ini"
        config.write_text(
            f"[databases]\n* = {server}\n\n[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.listen_port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {folder / 'users.txt'}\n"
            f"pool_mode = {self.pool_mode}\ndefault_pool_size = {self.pool_size}\n"
            f"max_client_conn = {self.max_client_conn}\n"
            # a database that a test dropped is tried again after a second, not fifteen
            "server_login_retry = 1\n"
            "admin_users = " + self.user + "\nstats_users = " + self.user + "\n"
            "log_connections = 0\nlog_disconnections = 0\n"
        )
        for name in ("users.txt", "pgbouncer.ini"):
            os.chmod(folder / name, 0o644)
        self._logfile = folder / "out.log"
        with open(self._logfile, "wb") as out:
            self.proc = subprocess.Popen(
                [binary, *self._run_as(), str(config)], stdout=out, stderr=out,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.listen_port)) == 0:
                    return self
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.log = self._logfile.read_text(errors="replace")
                self.stop()
                raise RuntimeError(f"pgbouncer did not start:\n{self.log}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._dir is not None:
            self.log = self._logfile.read_text(errors="replace")
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> Pgbouncer:
        return self.start()

    def __exit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.stop()
