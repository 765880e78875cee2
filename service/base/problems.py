"""One middleware turns every exception into application/problem+json (RFC 9457)."""

from __future__ import annotations

import logging
import re
import time
from typing import Any, Final

import orjson
from aiohttp import HttpVersion11, web
from aiohttp.http_exceptions import (
    BadStatusLine,
    ContentEncodingError,
    HttpProcessingError,
    InvalidHeader,
    InvalidURLError,
    LineTooLong,
)
from pydantic import ValidationError

from engine import EngineError, IllegalMove, InvalidDeal, InvalidMove, UnknownVariant
from service.base.errors import (
    TOKEN_REFUSED,
    BadRequest,
    RequestTimeout,
    ServiceError,
    TooManyRequests,
    Unauthorized,
)
from service.base.keys import REQUEST_ID_KEY, SETTINGS_KEY
from service.base.logs import printable
from service.base.observe import OBSERVER_KEY, request_id, route_name
from service.database.connections import (
    DatabaseUnavailable,
    SignedOut,
    TakesNoWrites,
    VersionConflict,
)

log = logging.getLogger("service.problems")
PROBLEM = "application/problem+json"
CLIENT_GONE: Final = 499  # the status logged for a request whose client left before its end
# the headers a request sends once: twice is 400, for a proxy that read the other one would
# not agree with the service on who asks, or on what a retry repeats
ONCE: Final = ("Authorization", "Idempotency-Key")
TYPE_BASE = "https://open-solitaire.example/problems/"
# a control character (Unicode's Cc) in a decoded path: no route has one, and no file
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

_TITLES = {
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
    405: "Method Not Allowed", 409: "Conflict", 413: "Content Too Large",
    415: "Unsupported Media Type", 417: "Expectation Failed", 422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error", 503: "Service Unavailable",
}


def problem_dict(status: int, detail: str, slug: str | None = None, title: str | None = None,
                 **extra: Any) -> dict[str, Any]:
    return {
        "type": TYPE_BASE + (slug or str(status)),
        "title": title or _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        **{k: v for k, v in extra.items() if v is not None},
    }


def problem_body(status: int, detail: str, slug: str | None = None, title: str | None = None,
                 **extra: Any) -> bytes:
    return orjson.dumps(problem_dict(status, detail, slug, title, **extra))


# the slugs of aiohttp's own refusals (the others are the service's: base/errors.py)
_HTTP_SLUGS: Final = {403: "forbidden", 404: "not-found", 405: "method-not-allowed",
                      413: "too-large", 415: "unsupported-media-type"}


def problem(status: int, detail: str, slug: str | None = None, title: str | None = None,
            headers: dict[str, str] | None = None, **extra: Any) -> web.Response:
    return web.Response(status=status, body=problem_body(status, detail, slug, title, **extra),
                        content_type=PROBLEM, headers=headers)


# pydantic's refusals in words a player may be shown (its own are a programmer's: "Input
# should be greater than or equal to 1"); a validator's own message is shown as it is
_PLAIN: Final = {
    "missing": "is required",
    "extra_forbidden": "is not a field of this request",
    "string_too_short": "must be {min_length} or more characters long",
    "string_too_long": "must be {max_length} or fewer characters long",
    "too_short": "must hold {min_length} or more",
    "too_long": "must hold {max_length} or fewer",
    "literal_error": "must be {expected}",
    "greater_than_equal": "must be at least {ge}",
    "less_than_equal": "must be at most {le}",
    "int_type": "must be a whole number",
    "string_type": "must be text",
    "bool_type": "must be true or false",
    "list_type": "must be a list",
    "model_type": "must be an object",
    "dict_type": "must be an object",
}


def _message(err: Any) -> str:
    ctx = err.get("ctx") or {}
    if err["type"] == "value_error" and "error" in ctx:
        return str(ctx["error"])  # (without pydantic's "Value error, ")
    plain = _PLAIN.get(err["type"])
    return plain.format(**ctx) if plain is not None else str(err["msg"])


# the faults of a body an answer names, at most (a body of 64 KiB of unknown fields
# made an answer of 600 KB)
MOST_FAULTS: Final = 20


def _validation_detail(exc: ValidationError) -> tuple[str, list[dict[str, Any]], dict[str, int]]:
    """The detail, the faults, and for faults of a batch's moves the place of the first
    (`index`, from 0), as every refusal of a batch's move names it."""
    errors = []
    parts = []
    faults = exc.errors(include_url=False, include_input=False)
    places = [loc[1] for loc in (err["loc"] for err in faults)
              if len(loc) > 1 and loc[0] == "moves" and isinstance(loc[1], int)]  # fmt: skip
    for err in faults[:MOST_FAULTS]:
        where = printable(".".join(str(p) for p in err["loc"]) or "body")[:100]
        msg = _message(err)
        errors.append({"field": where, "message": msg})
        parts.append(f"{where}: {msg}")
    if len(faults) > MOST_FAULTS:
        parts.append(f"and {len(faults) - MOST_FAULTS} more")
    place = {"index": min(places)} if places else {}
    return "the request body is not valid: " + "; ".join(parts), errors, place


# the parser's words (llhttp's) that name no header or feature a person would know
_PARSER_WORDS = {
    "Pause on PRI/Upgrade": "it opens as HTTP/2, which this service does not speak; send"
    " HTTP/1.1",
    "Invalid header token": "a header's name holds a space or a character a name may not hold",
    "Invalid header value char": "a header's value holds a control character",
}


def parser_reason(exc: HttpProcessingError) -> str:
    """The first line of aiohttp's message, which names what is wrong (the parser's own
    words: "Duplicate Content-Length", plain words where they name nothing a person
    knows); the lines after it quote the request's bytes, which are no one's business in
    an answer."""
    first = exc.message.split("\n", 1)[0].strip().removesuffix(":").strip()
    first = _PARSER_WORDS.get(first, first)
    return printable(first)[:120] or "the parser refused it"


def unreadable_body(exc: BaseException | None, encoding: str | None = None) -> str:
    """The detail of a body aiohttp could not read (`exc`, the parser's error): data that
    is not what its Content-Encoding (`encoding`, when known) says, or a body cut short or
    badly chunked."""
    if isinstance(exc, ContentEncodingError):
        named = f" ({printable(encoding)[:40]})" if encoding else ""
        return (f"the request body is not valid data of its Content-Encoding{named}: send it"
                " compressed with gzip or deflate, or uncompressed and without"
                " Content-Encoding")  # fmt: skip
    reason = parser_reason(exc) if isinstance(exc, HttpProcessingError) else "it was cut short"
    return f"the request body could not be read: {reason}"


def parser_problem(status: int, exc: BaseException | None) -> tuple[int, str, str]:
    """The status, slug and detail of a request aiohttp answers itself (its parser
    refused it, or it failed where no middleware is): for a person to act on, and without
    the request's bytes, which aiohttp's own answer quotes. A request target the parser
    refuses holds a control character, a space or a raw byte that is not ASCII, which no
    path here has: a 404, as the problem middleware answers the same bytes
    percent-encoded."""
    if isinstance(exc, InvalidURLError):
        return 404, "not-found", ("there is nothing at that path: none here holds a control"
                                  " character, a space or a byte that is not ASCII; see"
                                  " /openapi.yaml")  # fmt: skip
    if isinstance(exc, LineTooLong):
        detail = (f"the request line or one of its headers is longer than the {exc.args[1]}"
                  " bytes this service reads")  # fmt: skip
    elif isinstance(exc, BadStatusLine):
        detail = ("the request does not begin with a method, a path and HTTP/1.1 (HTTPS sent"
                  " to this plain HTTP port looks like this)")  # fmt: skip
    elif isinstance(exc, InvalidHeader):
        detail = "one of the request's headers is malformed"
    elif isinstance(exc, ContentEncodingError):
        detail = unreadable_body(exc)
    elif isinstance(exc, HttpProcessingError):
        detail = f"the request is not HTTP/1.1 this service reads: {parser_reason(exc)}"
    else:
        return status, "internal", "something went wrong on our side"
    return 400, "bad-request", detail


def _client_gone(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


def _engine_parts(exc: EngineError) -> tuple[int, str, str, str | None, dict[str, Any]]:
    """The problem of the engine's refusal: status, detail, slug, title and extra fields."""
    from engine import GameOver, NothingToRedo, NothingToUndo

    # a move of a batch names its place (commands.play): the problem says it too
    index: int | None = getattr(exc, "index", None)
    detail = str(exc) if index is None else f"move {index} of the batch (counting from 0): {exc}"
    if isinstance(exc, InvalidDeal):
        return 422, str(exc), "invalid-deal", None, {}
    if isinstance(exc, UnknownVariant):
        return 400, str(exc), "unknown-variant", None, {}
    if isinstance(exc, InvalidMove):
        return 400, detail, "invalid-move", None, {"index": index}
    if isinstance(exc, IllegalMove):
        return 422, detail, "illegal-move", "Illegal Move", {"index": index}
    if isinstance(exc, GameOver):
        return 409, detail, "game-over", None, {"index": index}
    if isinstance(exc, NothingToUndo | NothingToRedo):
        slug = "nothing-to-undo" if isinstance(exc, NothingToUndo) else "nothing-to-redo"
        return 409, str(exc), slug, None, {}
    return 422, str(exc), "rule", None, {}


def refusal_problem(exc: EngineError | ServiceError) -> dict[str, Any]:
    """The problem body the middleware answers a refusal with (the engine's or the
    service's), as a dict: kept as a key's first answer (service/games/answers.py)."""
    if isinstance(exc, EngineError):
        status, detail, slug, title, extra = _engine_parts(exc)
        return problem_dict(status, detail, slug, title, **extra)
    return problem_dict(exc.status, exc.detail, exc.slug, exc.title, **exc.extra)


async def expectation(request: web.Request) -> web.StreamResponse | None:
    """The answer to a request's `Expect` header (RFC 9110, 10.1.1), given before its body
    is sent and before the middlewares (aiohttp asks each route's expect handler): a body
    declared larger than MAX_BODY_BYTES is refused with 413 at once, rather than invited
    with 100 Continue and refused once sent; an expectation other than 100-continue is
    417; else 100 Continue, as aiohttp's own handler says it. (The observer has not seen
    the request: its refusals take the request's id, count and access line here.)"""
    started = time.perf_counter()
    expect = request.headers.get("Expect", "")
    rid = request_id(request.headers)
    if expect.lower() != "100-continue":
        refusal = expectation_failed(expect, rid)
    else:
        limit = request.app[SETTINGS_KEY].max_body_bytes
        if request.content_length is None or request.content_length <= limit:
            if request.version == HttpVersion11:
                await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                request.writer.output_size = 0  # (the answer's head is still to come)
            return None
        refusal = problem(
            413, f"the request body is larger than the {limit // 1024} KiB this service accepts",
            "too-large", headers={"X-Request-Id": rid},
        )
        refusal.force_close()  # (its body, if sent all the same, is not read)
    request.app[OBSERVER_KEY].done(request, rid, route_name(request), refusal.status, started)
    return refusal


def expectation_failed(expect: str, rid: str) -> web.Response:
    """The 417 of an expectation other than 100-continue (`expect`)."""
    said = printable(expect)[:40]
    return problem(417, f"the only expectation met is 100-continue, not {said!r}",
                   "expectation-failed", headers={"X-Request-Id": rid})


def repeated(request: web.BaseRequest) -> str | None:
    """The header of ONCE that the request sends more than once, if one is."""
    for name in ONCE:
        if len(request.headers.getall(name, ())) > 1:
            return name
    return None


def unavailable(exc: DatabaseUnavailable) -> str:
    """What a 503 of the database says: it cannot be reached, or it takes no writes."""
    if isinstance(exc, TakesNoWrites):
        return ("the game database takes no writes right now (it is read-only, or its disk"
                " is full); reads still work; try again shortly")
    return "the game database cannot be reached right now; try again shortly"


@web.middleware
async def problem_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        if CONTROL.search(request.path) is not None:
            raise web.HTTPNotFound()  # (a NUL would reach the file system, say)
        if (name := repeated(request)) is not None:
            raise BadRequest(f"send one {name} header, not several")
        return await handler(request)  # type: ignore[no-any-return]
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        detail = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else None
        if exc.status == 404:
            detail = f"there is nothing at {request.method} {request.path}; see /openapi.yaml"
        elif exc.status == 405:
            # (not OPTIONS: with CORS_ORIGINS set, the preflights' route, which answers a
            # plain OPTIONS 405 as well: app.options_not_preflights)
            methods = getattr(exc, "allowed_methods", ()) or ()
            allowed = ", ".join(sorted(m for m in methods if m != "OPTIONS"))
            detail = f"{request.method} is not allowed on {request.path}; allowed: {allowed}"
            return problem(405, detail, "method-not-allowed", headers={"Allow": allowed})
        elif exc.status == 413:
            limit = request.app[SETTINGS_KEY].max_body_bytes
            detail = f"the request body is larger than the {limit // 1024} KiB this service accepts"
        return problem(exc.status, detail or exc.reason, _HTTP_SLUGS.get(exc.status))
    except web.RequestPayloadError as exc:  # a body aiohttp's parser could not read
        detail = unreadable_body(exc.__cause__, request.headers.get("Content-Encoding"))
        response = problem(400, detail, "bad-request")
        # The parser stopped at the bad bytes: nothing after them on this connection can
        # be read, so it closes after the answer; and the body counts as read to its end,
        # else aiohttp reads the rest after the answer and meets (and logs) the error again.
        response.force_close()
        request.content.feed_eof()
        return response
    except ValidationError as exc:
        detail, errors, place = _validation_detail(exc)
        return problem(400, detail, "validation", errors=errors, **place)
    except EngineError as exc:
        status, detail, slug, title, extra = _engine_parts(exc)
        return problem(status, detail, slug, title, **extra)
    except TooManyRequests as exc:
        return problem(exc.status, exc.detail, exc.slug, exc.title,
                       headers={"Retry-After": str(exc.retry_after)}, **exc.extra)
    except RequestTimeout as exc:  # the connection closes after it (serving/server.py)
        response = problem(exc.status, exc.detail, exc.slug, exc.title)
        response.force_close()
        return response
    except (ServiceError, SignedOut) as exc:
        # (SignedOut: the statement that would have written found the token signed out,
        # where memory's check passed; the 401 that the database's check gives)
        refused = Unauthorized(TOKEN_REFUSED) if isinstance(exc, SignedOut) else exc
        return problem(refused.status, refused.detail, refused.slug, refused.title,
                       headers=refused.headers, **refused.extra)
    except VersionConflict:
        return problem(409, "another move was recorded first; reload the game and try again",
                       "version-conflict", current_version=None)
    except DatabaseUnavailable as exc:
        return problem(503, unavailable(exc), "database-unavailable",
                       headers={"Retry-After": "2"})  # fmt: skip
    except Exception as exc:
        if isinstance(exc, ConnectionResetError) and _client_gone(request):
            # the client went away before its request was read ("Connection lost"):
            # nothing of ours went wrong, and no one is left to answer (nginx's 499)
            response = web.Response(status=CLIENT_GONE)
            response.force_close()
            return response
        request_id = request.get(REQUEST_ID_KEY, "-")
        log.exception("unhandled error in %s %s (request %s)", request.method,
                      printable(request.path), request_id)
        return problem(500, f"something went wrong on our side (request {request_id})",
                       "internal", request_id=request_id)
