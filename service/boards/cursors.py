"""Keyset cursors: the opaque `next` of a board's pages and of a player's games.

A cursor is "kind:part:...", base64url without padding. A board's cursor (kind b2) holds
the last entry's key, one part per column of the board's order (service/boards/order.py,
each written by its type), its rank, and a MAC of them under the service's key
(Backend.cursor_key, made the board's own: board_key): the next page's ranks count on
from that rank, which is therefore the service's, not a client's to choose, and on that
board only. A games cursor (kind g1) holds the last game's
creation time and id. A cursor that is not one of these is a 400.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from service.base.errors import BadRequest
from service.boards.order import ORDER

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)
# the largest whole numbers (exclusive) a cursor takes, by SQL type; a rank is a bigint
_LIMITS = {"bigint": 2**63, "integer": 2**31}
_DAMAGED = "this cursor is damaged; leave 'cursor' out for the first page"
# a board's cursor whose MAC is not this board's: another board's (another deal, kind,
# or player's friends), or altered
_OTHER_BOARD = (
    "this cursor was not given by this board (it is another board's, or altered): pass the"
    " 'next' of this board's previous page, or leave 'cursor' out for the first page"
)

BoardKey = tuple[Any, ...]  # an entry's values of order.ORDER


def _micros(at: datetime) -> int:
    return (at - EPOCH) // MICROSECOND


def _from_micros(value: int) -> datetime:
    return EPOCH + value * MICROSECOND


def _encode(kind: str, *parts: object) -> str:
    text = ":".join([kind, *map(str, parts)])
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _decode(kind: str, cursor: str, n: int) -> list[str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        parts = base64.urlsafe_b64decode(padded.encode("ascii")).decode().split(":")
    except (ValueError, UnicodeError, binascii.Error):
        parts = []
    if len(parts) != n + 1 or parts[0] != kind:
        raise BadRequest(
            "this cursor was not given by this list; pass the 'next' of the previous page"
            " unchanged, or leave 'cursor' out for the first page"
        )
    return parts[1:]


def _written(sql_type: str, value: Any) -> object:
    """A key's value as a cursor's part."""
    if sql_type == "timestamptz":
        return _micros(value)
    if sql_type == "uuid":
        return value.hex
    return value


def _read(sql_type: str, part: str) -> Any:
    """A cursor's part as a key's value; ValueError or OverflowError when it cannot be."""
    if sql_type == "timestamptz":
        return _from_micros(int(part))
    if sql_type == "uuid":
        return uuid.UUID(hex=part)
    value = int(part)
    if not 0 <= value < _LIMITS[sql_type]:
        raise ValueError(part)
    return value


def board_key(
    secret: bytes, variant: str, deal: int, kind: str, friends_of: uuid.UUID | None = None
) -> bytes:
    """The key a board's cursors are signed with: the service's (`secret`) made the
    board's own, so that a cursor of one board (a deal, a variant, a kind, one player's
    friends) is no cursor of another."""
    board = f"{variant}:{deal}:{kind}:{'' if friends_of is None else friends_of.hex}"
    return hmac.new(secret, board.encode(), hashlib.sha256).digest()


def _mac(secret: bytes, parts: list[object]) -> str:
    text = ":".join(map(str, parts)).encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()[:24]


def board_cursor(key: BoardKey, rank: int, secret: bytes) -> str:
    """The cursor after the entry with this key (order.values) and rank, signed with
    `secret` (the board's: board_key)."""
    parts = [*(_written(c.type, value) for c, value in zip(ORDER, key, strict=True)), rank]
    return _encode("b2", *parts, _mac(secret, parts))


def parse_board_cursor(cursor: str, secret: bytes) -> tuple[BoardKey, int]:
    *parts, rank, mac = _decode("b2", cursor, len(ORDER) + 2)
    if not hmac.compare_digest(mac, _mac(secret, [*parts, rank])):
        raise BadRequest(_OTHER_BOARD)
    try:
        key = tuple(_read(c.type, part) for c, part in zip(ORDER, parts, strict=True))
        return key, _read("bigint", rank)
    except (ValueError, OverflowError):
        raise BadRequest(_DAMAGED) from None


def games_cursor(created_at: datetime, game_id: uuid.UUID) -> str:
    return _encode("g1", _written("timestamptz", created_at), _written("uuid", game_id))


def parse_games_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    created, game = _decode("g1", cursor, 2)
    try:
        return _read("timestamptz", created), _read("uuid", game)
    except (ValueError, OverflowError):
        raise BadRequest(_DAMAGED) from None
