"""Configuration from the environment (pydantic-settings)."""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def _root() -> Path:
    """The folder with alembic.ini, migrations/ and openapi.yaml: the checkout this package
    lies in, or (installed as a wheel, as in the image) the working directory."""
    checkout = Path(__file__).resolve().parents[2]
    return checkout if (checkout / "alembic.ini").exists() else Path.cwd()


ROOT = _root()


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False,
                                      allow_inf_nan=False)  # (no "inf" seconds)

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)  # (0: any free port, one worker)
    # postgresql://user@host:port/db; empty means: start the embedded PostgreSQL
    database_url: str | None = None
    data_dir: Path = Field(default=ROOT / ".pgdata")
    # "transaction": DATABASE_URL goes through a pooler in transaction mode (pgbouncer's
    # pool_mode = transaction): no named prepared statements, and the live-event listener
    # needs LISTEN_DATABASE_URL (a direct connection) or EVENTS_BROKER
    database_pooler: Literal["none", "transaction"] = "none"
    # service processes sharing the port (SO_REUSEPORT); unset: one per core (per two
    # cores when PostgreSQL runs on this machine), at most 4
    workers: int | None = Field(default=None, ge=1, le=64)
    pool_min: int = Field(default=4, ge=0)
    pool_max: int = Field(default=16, ge=1)
    # connections that carry writes at once, at most: writes that find a lane busy go
    # together in one statement on the next one free, and another lane opens only when the
    # busy ones are slow (service/database/store.py, EventStore)
    write_lanes: int = Field(default=4, ge=1)
    # seconds a request waits for the database before answering 503
    db_timeout: float = Field(default=5.0, gt=0)
    # seconds `run`, `migrate` and `verify` wait at their start for a database that does
    # not answer (started with the service, restarting), then give up with exit status 2
    db_start_wait_s: float = Field(default=60.0, ge=0)
    max_body_bytes: int = Field(default=64 * 1024, ge=1)
    # seconds a request's headers and body may take to arrive, from its first byte: past
    # them it is answered 408 and its connection closed; and the connections one client
    # address may hold at once, WebSockets included, when RATE_LIMITS is on: the next is
    # closed as soon as it is accepted (service/serving/server.py)
    request_timeout_s: float = Field(default=10.0, gt=0)
    # seconds a streamed answer (the export) waits for its client to take more of it: past
    # them its connection is closed, and what it held let go (service/players/routes.py)
    send_timeout_s: float = Field(default=30.0, gt=0)
    max_connections_per_address: int = Field(default=64, ge=1)
    # positions kept in memory (games), and players by token; least recently used first out
    cache_games: int = Field(default=20_000, ge=1)
    cache_tokens: int = Field(default=100_000, ge=1)
    # the most events a game's log may hold, the last kept for its abandonment: any other
    # write that would take it is 409 (service/games/checks.py)
    max_game_events: int = Field(default=5000, ge=10)
    # hours idempotency keys (and spent or expired link codes) are kept: at least a day
    idempotency_hours: int = Field(default=48, ge=24)
    # "off" switches every rate limit off; otherwise limits below apply
    rate_limits: str = "on"
    # writes per token per minute, player creations per address per minute
    rate_writes_per_minute: int = Field(default=600, ge=1)
    rate_players_per_minute: int = Field(default=30, ge=1)
    # writes per client address per minute (all its tokens together), and live streams
    # open at once per client address (docs/faults.md)
    rate_address_writes_per_minute: int = Field(default=3000, ge=1)
    rate_streams_per_address: int = Field(default=100, ge=1)
    # searches of the solver a client may start a minute, per player and per address alike
    # (service/solver/owners.py): hints that need a new search and new games' openings
    # (against both), analyses (against the address); a hint read off its game's record,
    # or whose position is known or being searched already, costs nothing
    rate_searches_per_minute: int = Field(default=60, ge=1)
    # events of logs' pages read per client address (each page charged the events it sends)
    rate_events_per_minute: int = Field(default=600_000, ge=1)
    # link-code tries per client address in any minute (off with RATE_LIMITS; ratelimit.py):
    # raise it where many players share an address (a proxy, a carrier's NAT)
    rate_link_tries_per_minute: int = Field(default=10, ge=1)
    # a win whose median time between the player's own moves is shorter than this (in
    # milliseconds) is "verified": false and stays off the default boards; 0 switches off
    min_median_move_ms: int = Field(default=200, ge=0, le=2**31 - 1)
    # origins (comma-separated, e.g. "https://app.example,http://localhost:5173") whose web
    # pages may call the API from the browser (CORS); none by default
    cors_origins: str = ""
    # /metrics answers loopback clients, and others that send `Authorization: Bearer
    # <METRICS_TOKEN>`; unset (or empty): loopback clients only
    metrics_token: SecretStr | None = None
    log_requests: bool = True
    # heartbeat interval of live streams, in seconds
    ws_heartbeat: float = Field(default=20.0, gt=0)
    ws_queue: int = Field(default=1000, ge=1)
    # seconds between two looks at the versions of the games streamed here, which
    # catches up whatever a lost notification did not announce
    ws_sweep: float = Field(default=5.0, gt=0)
    # nats://host:4222: live events' wake-ups through NATS; unset: PostgreSQL's LISTEN/NOTIFY
    events_broker: str | None = None
    # a direct connection for LISTEN when DATABASE_URL goes through a pooler
    listen_database_url: str | None = None
    # the solver (hints, analysis): seconds one search may take, processes that search,
    # positions whose verdicts are kept, whether Freecell Solver's library is used when
    # installed, the seconds one game's analysis may take in all, and whether a new game's
    # opening (and the day's deal) is searched at once in the background
    hint_budget_seconds: float = Field(default=2.0, gt=0)
    solver_workers: int = Field(default=1, ge=1, le=64)
    solver_cache: int = Field(default=50_000, ge=1)
    solver_library: bool = True
    analysis_budget_seconds: float = Field(default=20.0, gt=0)
    solver_prefetch: bool = True
    # races: seconds between two looks of each instance for races due to start or end, and
    # the seconds a race's minute lasts (60; test rigs shorten it to end races sooner); a
    # race's stream reads its log only when woken (service/races/feeds.py), swept every
    # WS_SWEEP seconds like the games'
    race_tick_s: float = Field(default=0.5, ge=0.01)
    race_minute_s: float = Field(default=60.0, gt=0)
    # the key link codes are stored under (HMAC-SHA256, service/players/link_codes.py);
    # unset: a random key made once and kept in .link-code-key beside DATA_DIR, which the
    # workers and restarts of one machine share (several machines must set the same key)
    link_code_key: SecretStr | None = None

    @field_validator("rate_limits")
    @classmethod
    def _on_or_off(cls, value: str) -> str:
        if value.strip().lower() not in _SWITCH:
            raise ValueError(f"must be on or off (or one of {', '.join(sorted(_SWITCH))})")
        return value

    @field_validator("database_url", "listen_database_url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        """A PostgreSQL URL, or nothing: a URL that is none never gets better by waiting
        (DB_START_WAIT_S is for a database that does not answer yet)."""
        if not value:
            return None
        try:
            parts = urlsplit(value)
        except ValueError as exc:
            raise ValueError(f"is not a URL PostgreSQL takes ({exc})") from None
        if parts.scheme not in ("postgresql", "postgres"):
            raise ValueError("must be a postgresql://user@host:port/database URL")
        # (libpq's several hosts, host1:5432,host2:5433, each with a port or none)
        for host in parts.netloc.rpartition("@")[2].split(","):
            port = host.rpartition("]")[2].rpartition(":")
            if port[1] and not port[2].isdigit():  # (its text not shown: a password's, maybe)
                raise ValueError("is not a URL PostgreSQL takes: a port that is not a number"
                                 " (characters such as # / ? in a password are written %23 %2F"
                                 " %3F)")
        return value

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: str) -> str:
        """Origins as a browser sends them in `Origin` (scheme://host[:port]: lower case,
        no default port), so that one written otherwise still matches; anything else,
        a path, a scheme missing or `*`, would match nothing, silently: refused."""
        return ",".join(_origin(o.strip()) for o in value.split(",") if o.strip())

    @field_validator("events_broker")
    @classmethod
    def _nats_url(cls, value: str | None) -> str | None:
        if value and urlsplit(value).scheme not in ("nats", "tls", "ws", "wss"):
            raise ValueError("must be a NATS server's URL, such as nats://host:4222")
        return value or None

    @field_validator("data_dir", mode="before")
    @classmethod
    def _data_dir(cls, value: object) -> object:
        """Empty means unset, as for the URLs (not the working directory)."""
        return ROOT / ".pgdata" if value == "" else value

    @model_validator(mode="after")
    def _fits(self) -> Settings:
        if self.pool_min > self.pool_max:
            raise ValueError(f"POOL_MIN ({self.pool_min}) is over POOL_MAX ({self.pool_max})")
        if self.port == 0 and (self.workers or 1) > 1:
            raise ValueError("PORT=0 (any free port) takes one worker: each would take its own")
        return self

    @property
    def pooled(self) -> bool:
        """DATABASE_URL goes through a pooler in transaction mode."""
        return self.database_pooler == "transaction"

    def listener_problem(self) -> str | None:
        """Why live events cannot work with these settings, or None."""
        if self.pooled and not (self.listen_database_url or self.events_broker):
            return (
                "DATABASE_POOLER=transaction: LISTEN does not work through a pooler in"
                " transaction mode; set LISTEN_DATABASE_URL to a direct connection to"
                " PostgreSQL, or EVENTS_BROKER"
            )
        return None

    @property
    def cors_origin_list(self) -> list[str]:
        return self.cors_origins.split(",") if self.cors_origins else []

    @property
    def rate_limits_on(self) -> bool:
        return _SWITCH[self.rate_limits.strip().lower()]


# RATE_LIMITS' words, and whether each switches the limits on
_SWITCH = {"on": True, "1": True, "true": True, "yes": True,
           "off": False, "0": False, "false": False, "no": False}  # fmt: skip


def refusal(exc: ValidationError) -> str:
    """Why the environment's settings cannot work, one line a setting, each named as the
    environment spells it (PORT, not port)."""
    lines = []
    for err in exc.errors(include_url=False):
        name = "_".join(str(p) for p in err["loc"]).upper() or "the settings"
        # (a URL may hold a password, a key or token is one: their values are not shown)
        shown = err["loc"] and not name.endswith(("_URL", "_KEY", "_TOKEN", "_BROKER"))
        given = f" (given {err['input']!r})" if shown and "input" in err else ""
        lines.append(f"{name}: {err['msg'].removeprefix('Value error, ')}{given}")
    return "the settings cannot work:\n  " + "\n  ".join(lines)


_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def _origin(text: str) -> str:
    """One origin of CORS_ORIGINS as browsers write it, else ValueError."""
    try:
        parts = urlsplit(text.rstrip("/"))
        port = parts.port
        # (a name in letters other than ASCII goes in `Origin` in its ASCII form, xn--…)
        host = (parts.hostname or "").encode("idna").decode("ascii")
    except (ValueError, UnicodeError):
        parts, port, host = None, None, ""
    if (parts is None or not parts.scheme or not host or parts.path or parts.query
            or parts.fragment or parts.username is not None):  # fmt: skip
        raise ValueError(f"{text!r} is not an origin: write scheme://host or"
                         " scheme://host:port, such as https://app.example (each origin"
                         " listed, no '*')")  # fmt: skip
    host = host if ":" not in host else f"[{host}]"
    scheme = parts.scheme.lower()
    keep = port is not None and port != _DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{host}:{port}" if keep else f"{scheme}://{host}"
