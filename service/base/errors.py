"""The service's own errors; problems.py turns them (and the engine's) into problem+json."""

from __future__ import annotations

from typing import Any, ClassVar


class ServiceError(Exception):
    status = 500
    title = "Internal Server Error"
    slug = "internal"
    headers: ClassVar[dict[str, str] | None] = None  # the answer's, besides the problem's own

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class BadRequest(ServiceError):
    status, title, slug = 400, "Bad Request", "bad-request"


class Unauthorized(ServiceError):
    status, title, slug = 401, "Unauthorized", "unauthorized"
    # every 401 names the scheme that would be accepted (RFC 9110, 11.6.1)
    headers: ClassVar[dict[str, str] | None] = {
        "WWW-Authenticate": 'Bearer realm="open-solitaire"'
    }


# a token that no player's device holds now (never made, or signed out)
TOKEN_REFUSED = "this token belongs to no player, or was signed out"


class Forbidden(ServiceError):
    status, title, slug = 403, "Forbidden", "forbidden"


class NotFound(ServiceError):
    status, title, slug = 404, "Not Found", "not-found"


class Conflict(ServiceError):
    status, title, slug = 409, "Conflict", "conflict"


class VersionMismatch(Conflict):
    slug = "version-conflict"


class PreconditionFailed(VersionMismatch):
    """A write conditioned by If-Match on an ETag the game no longer has (RFC 9110, 13.1.1):
    what a stale expected_version is, with HTTP's own status."""

    status, title, slug = 412, "Precondition Failed", "precondition-failed"


class Unprocessable(ServiceError):
    status, title, slug = 422, "Unprocessable Content", "unprocessable"


class ClientGone(ServiceError):
    """A request not run because its client left (its answer would reach no one): the
    access log's and the metrics' 499, as for a request cancelled unanswered."""

    status, title, slug = 499, "Client Closed Request", "client-gone"


class BadMoveTime(Unprocessable):
    """A move of a batch says it was played when it cannot have been (its `played_ms`:
    service/games/times.py)."""

    slug = "played-ms"


class RequestTimeout(ServiceError, TimeoutError):
    """A request's headers and body did not all come within REQUEST_TIMEOUT_S
    (service/serving/server.py). A TimeoutError too: so aiohttp, when it reads the rest of
    a body after the answer, takes it for the end of its wait."""

    status, title, slug = 408, "Request Timeout", "request-timeout"


class UpgradeRequired(ServiceError):
    """A WebSocket handshake of a version other than 13 (RFC 6455, 4.4: 426, naming it)."""

    status, title, slug = 426, "Upgrade Required", "websocket-version"
    headers: ClassVar[dict[str, str] | None] = {
        "Sec-WebSocket-Version": "13", "Upgrade": "websocket"
    }


class TooManyRequests(ServiceError):
    status, title, slug = 429, "Too Many Requests", "rate-limited"

    def __init__(self, detail: str, retry_after: int, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.retry_after = retry_after


class GameFinished(Conflict):
    slug = "game-over"


class RaceOver(Conflict):
    """A write to a race's game after the race's end (its ends_at)."""

    slug = "race-over"


class LogFull(Conflict):
    """The game's log holds as many events as a game may (MAX_GAME_EVENTS)."""

    slug = "log-full"


class FirstAnswer(ServiceError):
    """A refusal kept as its request's first answer, given again to a retry of the request
    (its Idempotency-Key): its problem as it was first answered (service/games/answers.py)."""

    headers: ClassVar[dict[str, str] | None] = {"Idempotent-Replayed": "true"}

    def __init__(self, problem: dict[str, Any]) -> None:
        kept = {"type", "title", "status", "detail"}
        super().__init__(str(problem["detail"]), **{
            k: v for k, v in problem.items() if k not in kept
        })
        self.status = int(problem["status"])
        self.title = str(problem["title"])
        self.slug = str(problem["type"]).rsplit("/", 1)[-1]
