"""Settings that cannot work stop every command before it starts (docs/operations.md,
"Running"): exit code 2 and one line a setting, named as the environment spells it, with
no traceback and without showing a URL's or a key's value."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from service.base.settings import Settings

REFUSED = [
    ({"PORT": "70000"}, "PORT: Input should be less than or equal to 65535 (given '70000')"),
    ({"PORT": "abc"}, "PORT: Input should be a valid integer"),
    ({"DB_TIMEOUT": "0"}, "DB_TIMEOUT: Input should be greater than 0 (given '0')"),
    ({"CACHE_GAMES": "-1"}, "CACHE_GAMES: Input should be greater than or equal to 1"),
    ({"WS_SWEEP": "0"}, "WS_SWEEP: Input should be greater than 0"),
    ({"WS_HEARTBEAT": "-1"}, "WS_HEARTBEAT: Input should be greater than 0"),
    ({"RATE_WRITES_PER_MINUTE": "0"}, "RATE_WRITES_PER_MINUTE: Input should be greater than"),
    ({"SOLVER_WORKERS": "0"}, "SOLVER_WORKERS: Input should be greater than or equal to 1"),
    ({"RATE_LIMITS": "of"}, "RATE_LIMITS: must be on or off"),
    ({"EVENTS_BROKER": "http://x"}, "EVENTS_BROKER: must be a NATS server's URL"),
    ({"DATABASE_URL": "garbage"}, "DATABASE_URL: must be a postgresql://user@host:port/"),
    ({"POOL_MIN": "20", "POOL_MAX": "8"}, "POOL_MIN (20) is over POOL_MAX (8)"),
    ({"REQUEST_TIMEOUT_S": "inf"}, "REQUEST_TIMEOUT_S: Input should be a finite number"),
    ({"MIN_MEDIAN_MOVE_MS": str(2**31)}, "MIN_MEDIAN_MOVE_MS: Input should be less than or"),
    ({"PORT": "0", "WORKERS": "2"}, "PORT=0 (any free port) takes one worker"),
    ({"CORS_ORIGINS": "https://app.example, app.example"}, "CORS_ORIGINS: 'app.example' is"
     " not an origin: write scheme://host"),
    ({"CORS_ORIGINS": "*"}, "CORS_ORIGINS: '*' is not an origin"),
    ({"CORS_ORIGINS": "https://app.example/play"}, "'https://app.example/play' is not an"),
]


@pytest.mark.parametrize(("env", "said"), REFUSED)
def test_settings_that_cannot_work_are_refused_by_name(env: dict[str, str], said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service", "migrate"], env={**os.environ, **env},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("the settings cannot work:\n"), done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_url_with_a_password_is_not_shown() -> None:
    """Not its value, nor a part of it taken for a port (a `#` not written %23)."""
    for url in ("postgresql://ada:s3cret@localhost:port/db",
                "postgresql://ada:s3cret#x@localhost:5432/db"):  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "service", "migrate"],
                              env={**os.environ, "DATABASE_URL": url}, capture_output=True,
                              text=True, timeout=60)  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert "DATABASE_URL: is not a URL PostgreSQL takes" in done.stderr
        assert "s3cret" not in done.stderr


def test_an_empty_data_dir_is_unset() -> None:
    """Not the working directory, which the embedded server would take for its own."""
    assert Settings(data_dir="").data_dir == Settings().data_dir
    assert Settings(data_dir="").data_dir.name == ".pgdata"


def test_rate_limits_words() -> None:
    for word, on in [("on", True), ("YES", True), ("1", True), (" off ", False), ("no", False)]:
        assert Settings(rate_limits=word).rate_limits_on is on


def test_a_port_another_process_listens_on_is_refused() -> None:
    """Not shared silently by SO_REUSEPORT (WORKERS > 1), nor a traceback (one worker)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for workers in ("1", "2"):
            env = {"PORT": str(port), "WORKERS": workers, "HOST": "127.0.0.1"}
            done = subprocess.run([sys.executable, "-m", "service", "run"],
                                  env={**os.environ, **env}, capture_output=True, text=True,
                                  timeout=60)  # fmt: skip
            assert done.returncode == 2, done.stderr
            assert done.stderr.startswith(f"127.0.0.1:{port} cannot be served (Address already"
                                          " in use): another instance"), done.stderr


def test_urls_libpq_takes_are_taken() -> None:
    """Several hosts (a failover pair), a Unix socket's folder, IPv6, no port."""
    for url in ("postgresql://postgres@10.0.0.1:5432,10.0.0.2:5433/db?target_session_attrs="
                "read-write", "postgresql:///solitaire?host=/run/postgresql",
                "postgres://u:p@[::1]:5432/x", "postgresql://u@db.example/x"):  # fmt: skip
        assert Settings(database_url=url).database_url == url


def test_origins_are_written_as_browsers_send_them() -> None:
    """An origin matches the `Origin` a browser sends (lower case, no default port), one
    written otherwise too."""
    written = (" https://App.Example/, http://localhost:5173,https://b.example:443,app://x,"
               "https://bücher.example, http://[::1]:8080")
    assert Settings(cors_origins=written).cors_origin_list == [
        "https://app.example", "http://localhost:5173", "https://b.example", "app://x",
        "https://xn--bcher-kva.example", "http://[::1]:8080",
    ]
    assert Settings(cors_origins="").cors_origin_list == []
