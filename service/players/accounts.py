"""Players, their device tokens and the codes that link a new device: plain values in and
out, against the backend (service/base/backend.py), one round trip each.

A token is shown once and stored as its SHA-256 (tokens are 256 random bits: no need for a
slow hash). Each instance keeps the players of the tokens it saw in memory for at most
`TOKEN_RECHECK` seconds: after that a request checks its token again (one indexed query,
which also notes the token's last use, at most once a minute), so a token signed out on
one instance is refused by every instance within a second.

A link code is 8 characters from an alphabet without 0/O and 1/I, shown as `K7WQ-M2PD`,
stored hashed, valid `LINK_CODE_MINUTES` minutes and for one use.
"""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from service.base.backend import Backend
from service.base.errors import Conflict, NotFound, Unauthorized, Unprocessable

TOKEN_RECHECK: Final = 1.0  # seconds a token is trusted from memory
LAST_USED_EVERY: Final = 60  # seconds between two notes of a token's last use
FIRST_DEVICE: Final = "first device"
MAX_TOKENS: Final = 100  # tokens in use per player (one a device)
LINK_CODE_MINUTES: Final = 10
LINK_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, no 1/I
LINK_CODE_LENGTH: Final = 8


@dataclass(frozen=True, slots=True)
class Player:
    id: uuid.UUID
    name: str
    token_id: uuid.UUID | None = None  # the device token the request came with


@dataclass(frozen=True, slots=True)
class CachedToken:
    player: Player
    checked: float  # time.monotonic() of the last check against the database


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _uuid(value: uuid.UUID) -> uuid.UUID:
    """A plain uuid.UUID for asyncpg's own UUID type (which orjson does not serialise)."""
    return uuid.UUID(int=value.int)


def _new_token() -> tuple[uuid.UUID, str]:
    return uuid.uuid4(), secrets.token_urlsafe(32)


def _remember(backend: Backend, digest: bytes, player: Player) -> None:
    backend.players[digest] = CachedToken(player, time.monotonic())


CREATE_PLAYER = """
WITH p AS (INSERT INTO players (id, name) VALUES ($1, $2) RETURNING id, created_at)
INSERT INTO device_tokens (id, player_id, token_hash, device, created_at)
SELECT $3, p.id, $4, $5, p.created_at FROM p RETURNING created_at"""


async def create_player(backend: Backend, name: str) -> dict[str, Any]:
    token_id, token = _new_token()
    player_id = uuid.uuid4()
    digest = hash_token(token)
    async with backend.store.connection() as conn:
        created: datetime = await conn.fetchval(
            CREATE_PLAYER, player_id, name, token_id, digest, FIRST_DEVICE,
            timeout=backend.store.timeout,
        )
    _remember(backend, digest, Player(player_id, name, token_id))
    return {"id": player_id, "name": name, "token": token, "created_at": created}


# the token's player, noting its last use when the last note is a minute old or more
TOKEN_OWNER = f"""
WITH t AS (
    SELECT id, player_id, last_used_at FROM device_tokens
    WHERE token_hash = $1 AND revoked_at IS NULL),
used AS (
    UPDATE device_tokens d SET last_used_at = now() FROM t
    WHERE d.id = t.id
      AND (t.last_used_at IS NULL
           OR t.last_used_at < now() - interval '{LAST_USED_EVERY} seconds'))
SELECT t.id, t.player_id, p.name FROM t JOIN players p ON p.id = t.player_id"""


async def authenticate(backend: Backend, token: str | None) -> Player:
    if not token:
        raise Unauthorized(
            "this request needs 'Authorization: Bearer <token>' (POST /v1/players gives one)"
        )
    digest = hash_token(token)
    cached = backend.players.get(digest)
    if cached is not None and time.monotonic() - cached.checked < TOKEN_RECHECK:
        return cached.player
    async with backend.store.connection() as conn:
        row = await conn.fetchrow(TOKEN_OWNER, digest, timeout=backend.store.timeout)
    if row is None:
        backend.players.pop(digest)
        raise Unauthorized("this token belongs to no player, or was signed out")
    player = Player(_uuid(row["player_id"]), row["name"], _uuid(row["id"]))
    _remember(backend, digest, player)
    return player


# ---------------------------------------------------------------- device tokens

IN_USE = "(SELECT count(*) FROM device_tokens WHERE player_id = $2 AND revoked_at IS NULL)"
ADD_TOKEN = f"""
INSERT INTO device_tokens (id, player_id, token_hash, device)
SELECT $1, $2, $3, $4 WHERE {IN_USE} < {MAX_TOKENS}
RETURNING created_at"""


def _too_many() -> Conflict:
    return Conflict(
        f"this player has {MAX_TOKENS} devices signed in, the most there may be; sign one"
        " out first (DELETE /v1/players/me/tokens/{id})"
    )


async def add_token(backend: Backend, player: Player, device: str) -> dict[str, Any]:
    """Another token for the same player, for the device named."""
    token_id, token = _new_token()
    async with backend.store.connection() as conn:
        created = await conn.fetchval(
            ADD_TOKEN, token_id, player.id, hash_token(token), device,
            timeout=backend.store.timeout,
        )
    if created is None:
        raise _too_many()
    return {"id": token_id, "device": device, "token": token, "created_at": created}


LIST_TOKENS = """
SELECT id, device, created_at, last_used_at FROM device_tokens
WHERE player_id = $1 AND revoked_at IS NULL ORDER BY created_at, id"""


async def list_tokens(backend: Backend, player: Player) -> dict[str, Any]:
    """The player's tokens in use (never the tokens themselves), oldest first."""
    async with backend.store.connection() as conn:
        rows = await conn.fetch(LIST_TOKENS, player.id, timeout=backend.store.timeout)
    return {
        "tokens": [
            {
                "id": _uuid(r["id"]),
                "device": r["device"],
                "created_at": r["created_at"],
                "last_used_at": r["last_used_at"],
                "current": r["id"] == player.token_id,
            }
            for r in rows
        ]
    }


REVOKE_TOKEN = """
UPDATE device_tokens SET revoked_at = now()
WHERE id = $1 AND player_id = $2 AND revoked_at IS NULL RETURNING token_hash"""


async def revoke_token(backend: Backend, player: Player, raw_id: str) -> None:
    """Sign a device out: its token is refused from now on, by every instance within
    TOKEN_RECHECK seconds (by this one at once)."""
    try:
        token_id = uuid.UUID(raw_id)
    except ValueError:
        token_id = None
    digest = None
    if token_id is not None:
        async with backend.store.connection() as conn:
            digest = await conn.fetchval(
                REVOKE_TOKEN, token_id, player.id, timeout=backend.store.timeout
            )
    if digest is None:
        raise NotFound(f"this player has no token in use with id {raw_id!r}")
    backend.players.pop(bytes(digest))


# ---------------------------------------------------------------- link codes


def normal_code(code: str) -> str:
    """A code as typed (any case, with or without the dash or spaces) in its stored form."""
    return "".join(ch for ch in code.upper() if ch not in "- ")


def _hash_code(code: str) -> bytes:
    return hashlib.sha256(b"link-code:" + normal_code(code).encode()).digest()


# nothing when the player has MAX_TOKENS devices already, or the hash is a live code's
ADD_LINK_CODE = f"""
INSERT INTO link_codes (code_hash, player_id, expires_at)
SELECT $1, $2, now() + interval '{LINK_CODE_MINUTES} minutes' WHERE {IN_USE} < {MAX_TOKENS}
ON CONFLICT (code_hash) DO UPDATE
    SET player_id = EXCLUDED.player_id, expires_at = EXCLUDED.expires_at, used_at = NULL
    WHERE link_codes.used_at IS NOT NULL OR link_codes.expires_at <= now()
RETURNING expires_at"""


async def add_link_code(backend: Backend, player: Player) -> dict[str, Any]:
    """A code that links a new device to the player, for one use within ten minutes."""
    for _attempt in range(3):  # a live code with the same hash: draw another
        raw = "".join(secrets.choice(LINK_ALPHABET) for _ in range(LINK_CODE_LENGTH))
        code = f"{raw[:4]}-{raw[4:]}"
        async with backend.store.connection() as conn:
            expires = await conn.fetchval(
                ADD_LINK_CODE, _hash_code(code), player.id, timeout=backend.store.timeout
            )
        if expires is not None:
            return {"code": code, "expires_at": expires}
    async with backend.store.connection() as conn:
        in_use = await conn.fetchval(
            IN_USE.replace("$2", "$1"), player.id, timeout=backend.store.timeout
        )
    if in_use >= MAX_TOKENS:
        raise _too_many()
    raise Conflict("could not draw a free link code; try again")


# the code's player gets a token for the new device, and the code is used, or nothing
REDEEM_LINK_CODE = """
WITH c AS (
    UPDATE link_codes SET used_at = now()
    WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()
    RETURNING player_id),
t AS (
    INSERT INTO device_tokens (id, player_id, token_hash, device)
    SELECT $2, c.player_id, $3, $4 FROM c RETURNING player_id, created_at)
SELECT t.player_id, p.name, t.created_at FROM t JOIN players p ON p.id = t.player_id"""


async def redeem_link_code(backend: Backend, code: str, device: str) -> dict[str, Any]:
    """A token for a new device of the player whose code this is; the code is spent."""
    token_id, token = _new_token()
    digest = hash_token(token)
    async with backend.store.connection() as conn:
        row = await conn.fetchrow(
            REDEEM_LINK_CODE, _hash_code(code), token_id, digest, device,
            timeout=backend.store.timeout,
        )
    if row is None:
        raise Unprocessable(
            "this link code is wrong, used or expired (a code is good for one device,"
            f" within {LINK_CODE_MINUTES} minutes); ask the other device for a new one"
        )
    player = Player(_uuid(row["player_id"]), row["name"], token_id)
    _remember(backend, digest, player)
    return {
        "player": {"id": player.id, "name": player.name},
        "id": token_id,
        "device": device,
        "token": token,
        "created_at": row["created_at"],
    }


async def purge_link_codes(backend: Backend, expired_before: datetime) -> None:
    async with backend.store.connection() as conn:
        await conn.execute(
            "DELETE FROM link_codes WHERE expires_at < $1", expired_before,
            timeout=backend.store.timeout,
        )
