"""What every handler reads: JSON bodies, path and query values, the Idempotency-Key; and
what every request body shares (pydantic v2): the Body base model, whole numbers and the
variants' names. Each package's bodies are in its own schemas module
(service/games/schemas.py, service/players/schemas.py, service/races/schemas.py); the
check of text other people are shown (players' and devices' names) is
service/players/shown.py. (What a handler answers is service/base/responses.py.)"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, TypeVar

import orjson
from aiohttp import web
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    StrictInt,
)

from service.base.errors import BadRequest, ClientGone, NotFound
from service.base.logs import printable

EVENTS_PAGE: Final = 1000  # the most events one answer of a log's /events carries
MAX_SEQ: Final = 2**31 - 1  # the highest seq (and version) a log's column holds

M = TypeVar("M", bound=BaseModel)

JSON_TYPES = ("application/json", "application/problem+json", "text/json")


# the codings of a body that aiohttp's parser undoes, one at a time (and none); br and zstd
# only with modules this service does not install (it refuses them before a handler: 400)
CODINGS: Final = frozenset({"gzip", "deflate", "identity"})


async def read_json(request: web.Request) -> Any:
    """The body as JSON. A body that parses is taken whatever its Content-Type (curl -d
    sends form encoding); one that does not is 400 (malformed), or 415 when it was
    declared as something else and is no attempt at JSON either (a form's `name=ada`), or
    when it comes in a Content-Encoding aiohttp does not undo (one coding of CODINGS)."""
    codings = request.headers.getall("Content-Encoding", ())
    if codings and (len(codings) > 1 or codings[0].strip().lower() not in CODINGS):
        said = ", ".join(codings)  # (several lines: aiohttp would undo the last alone)
        raise web.HTTPUnsupportedMediaType(
            text=f"a body's Content-Encoding is gzip or deflate, once, not"
            f" {printable(said)[:40]!r}: send it so, or uncompressed"
        )
    raw = await request.read()
    if not (text := raw.strip()):
        return {}
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        ctype = request.content_type
        declared = request.headers.get("Content-Type")
        meant = text[:1] in (b"{", b"[")  # (JSON cut short or mistyped: malformed)
        if declared and not meant and ctype not in JSON_TYPES and not ctype.endswith("+json"):
            raise web.HTTPUnsupportedMediaType(
                text=f"send the body as application/json, not {ctype}"
            ) from exc
        raise BadRequest(f"the body is not valid JSON (UTF-8): {_json_fault(raw, exc)}") from exc


def _json_fault(raw: bytes, exc: orjson.JSONDecodeError) -> str:
    """What is wrong with a body that does not parse: a byte that is not UTF-8 by its
    place (the parser says "surrogates not allowed" of any), else the parser's words."""
    try:
        raw.decode()
    except UnicodeDecodeError as bad:
        return f"byte {bad.start} (0x{raw[bad.start]:02x}) is not part of UTF-8 text"
    return str(exc)


async def read_object(request: web.Request) -> dict[str, Any]:
    data = await read_json(request)
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return data


async def parse_body(request: web.Request, model: type[M]) -> M:
    return model.model_validate(await read_object(request))


def game_id(request: web.Request) -> uuid.UUID:
    return path_id(request, "game_id", "game")


def path_id(request: web.Request, name: str, what: str) -> uuid.UUID:
    """The id in the path's `name`: anything but a UUID is a 404, as an unknown id is."""
    return parse_id(request.match_info[name], what)


def parse_id(raw: str, what: str) -> uuid.UUID:
    """A path's id: anything but a UUID is a 404 (NotFound), as an unknown id is. (`me`
    is a path of its own, /v1/players/me, not an id: its refusal says where yours is.)"""
    try:
        return uuid.UUID(raw)
    except ValueError:
        mine = "; yours is the id GET /v1/players/me gives" if raw == "me" else ""
        raise NotFound(f"there is no {what} with id {raw!r}{mine}") from None


def client_address(remote: str | None) -> str:
    """Whom the limits per address count for a peer at `remote`: an IPv4 address as it
    is; an IPv6 address by its /64, the block a network gives one host, which may take any
    address in it (an IPv4 address mapped into IPv6 as that IPv4 address); "-" unknown."""
    if not remote:
        return "-"
    if ":" not in remote:
        return remote
    try:
        ip = ipaddress.IPv6Address(remote)
    except ValueError:
        return remote
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))


def request_client(request: web.Request) -> str:
    """:func:`client_address` of a request's peer."""
    return client_address(request.remote)


def present_client(request: web.Request) -> str:
    """:func:`request_client`, for what a request's address alone decides: the key of a
    request that comes with no token, the link-code tries. A client that left before its
    address could be read (a reset as soon as the request was sent: the socket no longer
    says its peer) is not served: its answer would reach no one, and its retry, from its
    address, could not find what it did (ClientGone, 499)."""
    address = request_client(request)
    if address == "-" and (request.transport is None or request.transport.is_closing()):
        raise ClientGone("the client left before its address could be read: nothing was done")
    return address


_WHOLE = re.compile(r"-?[0-9]+")
_LONGEST = 30  # digits read; a number written with more is past every range asked of it
_PAST: Final = 10**_LONGEST


def whole_number(raw: str) -> int | None:
    """A whole number written plainly (ASCII digits, no spaces, no '_'), or None. One of
    more than 30 digits is told as ±10**30 (its digits not read): it is out of range."""
    if not _WHOLE.fullmatch(raw):
        return None
    if len(raw.lstrip("-")) > _LONGEST:
        return -_PAST if raw.startswith("-") else _PAST
    return int(raw)


def query_value(request: web.Request, name: str) -> str | None:
    """The query parameter `name` (None when not sent); 400 when it is sent more than
    once: which one would be meant?"""
    given = request.query.getall(name, ())
    if len(given) > 1:
        raise BadRequest(f"send query parameter {name!r} once, not {len(given)} times")
    return given[0] if given else None


def int_query(request: web.Request, name: str, default: int | None, lo: int, hi: int) -> int | None:
    raw = query_value(request, name)
    if raw is None:
        return default
    value = whole_number(raw)
    if value is None:
        raise BadRequest(f"query parameter {name!r} must be a whole number, not {raw!r}")
    if not lo <= value <= hi:
        # (a bound as large as a database's int, which a route clamps below, goes unsaid)
        bounds = f"{lo} or more" if value < lo and hi >= 2**31 - 1 else f"between {lo} and {hi}"
        raise BadRequest(f"query parameter {name!r} must be {bounds}")
    return value


# the ways other APIs page a list, refused rather than ignored by ours
_OTHER_PAGERS: Final = ("offset", "page", "skip")


def paged_by(request: web.Request, ours: str, *others: str) -> None:
    """400 when a request of a list paged by `ours` pages another way (`others`, another
    list's of this service, or another API's: `offset`, `page`, `skip`): ignored, it would
    give the first page again, and a client's pager would go round for ever."""
    for word in (*others, *_OTHER_PAGERS):
        if word in request.query:
            raise BadRequest(f"this list pages with {ours!r} (the 'next' of the previous"
                             f" page), not {word!r}")  # fmt: skip


def after_query(request: web.Request, hi: int) -> int:
    """The `after` of a page of a log (a game's, a race's, a stream's): the seq its events
    follow, 0 by default; another way to page is refused (paged_by)."""
    paged_by(request, "after", "cursor")
    after = int_query(request, "after", 0, 0, hi)
    assert after is not None
    return after


@dataclass(frozen=True, slots=True)
class Idempotency:
    """A request's Idempotency-Key and the hash of the request (`request_hash`), kept with
    the key; `earlier`, what makes the hash as versions before 2026-12-06 made it (every
    default written out), which keys they stored still hold until IDEMPOTENCY_HOURS after
    the upgrade (then `earlier` goes). It is made only for a key found with another hash:
    a first request pays nothing for it."""

    key: str
    request_hash: str
    earlier: Callable[[], str] | None = None

    def same_request(self, first_hash: str) -> bool:
        """Whether the key's first request, kept as `first_hash`, is this one."""
        if first_hash == self.request_hash:
            return True
        return self.earlier is not None and first_hash == self.earlier()


# the 422's detail when a key comes again with another request
KEY_REUSED: Final = (
    "the Idempotency-Key {key!r} was used before for another request; use a new key for a"
    " new request"
)


def request_hash(route: str, body: BaseModel) -> str:
    """The request as its body was understood: the fields whose values are not their
    defaults, so a retry that spells a default (`"autoplay": true`) or orders its keys
    otherwise is the same request, and so is a retry across an upgrade that added a field
    to the body (with a default). Kept with the key for IDEMPOTENCY_HOURS: a change to what
    is hashed makes the retries of earlier keys 422 (tests/api/contract/test_key_hashes.py
    spells it out)."""
    return _hashed(route, body.model_dump(mode="json", by_alias=True, exclude_defaults=True))


def _hashed(route: str, understood: dict[str, Any]) -> str:
    return hashlib.sha256(
        route.encode() + b"\0" + orjson.dumps(understood, option=orjson.OPT_SORT_KEYS)
    ).hexdigest()


def idempotency(request: web.Request, body: BaseModel) -> Idempotency | None:
    key = request.headers.get("Idempotency-Key")  # (sent once: base/problems.py)
    if key is None:
        return None
    key = key.strip()
    # isprintable() also refuses the surrogates that stand for bytes that were not UTF-8
    if not key or len(key) > 200 or not key.isprintable():
        raise BadRequest("Idempotency-Key must be 1 to 200 printable characters")
    route = _resource(request)
    return Idempotency(key, request_hash(route, body),
                       lambda: _hashed(route, body.model_dump(mode="json", by_alias=True)))


def _resource(request: web.Request) -> str:
    """The method and the resource a request writes, as the route reads it: the route's
    pattern and its ids as ids (a game's id in capitals, or without its dashes, is the
    same game)."""
    info = request.match_info
    pattern = info.route.resource.canonical if info.route.resource else request.path
    ids = [f"{name}={_as_id(value)}" for name, value in sorted(info.items())]
    return " ".join([request.method, pattern, *ids])


def _as_id(value: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return value


# ---------------------------------------------------------------- what bodies share

VariantName = Literal["freecell", "bakers_game", "bakers_dozen", "beleaguered_castle"]
GradeName = Literal["easy", "medium", "hard", "expert"]  # service/deals/grades.py


EXACT_FLOAT: Final = 2**53  # the largest whole numbers a float holds exactly


def _whole_number(value: object) -> object:
    """JSON has one kind of number: 7.0 is the whole number 7, as JSON Schema's "integer"
    (and so openapi.yaml) has it. Anything else goes on to the strict check unchanged, so
    7.5, true and "7" stay errors."""
    if type(value) is float and value.is_integer():
        if abs(value) > EXACT_FLOAT:
            # (the JSON parser reads a whole number past 64 bits as a float, which has
            # lost its last digits: never taken for a number the client did not write)
            raise ValueError("the number is too large to be read exactly")
        return int(value)
    return value


WholeNumber = Annotated[StrictInt, BeforeValidator(_whole_number)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Empty(Body):
    """The body of a write that takes nothing: none, or `{}`."""


async def read_nothing(request: web.Request) -> None:
    """A write that takes no body refuses one that says something (400), as any other
    refuses a field it does not know: a client's mistake is told, not ignored."""
    await parse_body(request, Empty)
