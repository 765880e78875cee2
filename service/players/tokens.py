"""Device tokens: how one is made and kept, and its first answer given again.

A token is 256 random bits, shown once and stored as its SHA-256 (no need for a slow hash).
A request that makes one (a new player, another device, a device linked by a code) may
carry an `Idempotency-Key`: a client whose answer was lost retries with the same key and
body, and gets the first answer again, token included (`Idempotent-Replayed: true`),
instead of a second player, a `name-taken` or a spent code. The token is still not
stored: one made under a key is the HMAC-SHA256, under the server's key (LINK_CODE_KEY,
link_codes.py), of the token's id and the key, which the retry derives again. The
database keeps the key only as its HMAC under the server's key too (`token_keys`,
migration 0024), so a copy of it gives away neither a token nor a key, short or not.
Until the key is purged (IDEMPOTENCY_HOURS, a day at least), a retry with the same key and
body gets the token, so the key is kept in a scope that a guess of it does not reach: the
player's, for another device of theirs (the request comes with one of their tokens); for
the requests that come with none (a new player, a device linked by a code), the client's
address (requests.client_address: an IPv6 address by its /64). A retry from another
address is another request (a new player's name is then taken, a code spent), and a key
guessed from elsewhere finds nothing, not even that it was used. The key must be hard to
guess all the same: MIN_KEY characters at least (a random UUID has 36), not a few of them
over and over (MIN_DISTINCT).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from service.base.backend import Backend
from service.base.errors import BadRequest, Conflict
from service.base.once import once as base_once
from service.base.once import same_request
from service.base.requests import Idempotency
from service.database.connections import json_text
from service.database.statements import stored_answer

MIN_KEY: Final = 16  # characters of an Idempotency-Key that stands for a token
# different characters in it: a random one of 16 hex digits has fewer than 4 about once in
# 800 million keys; "aaaaaaaaaaaaaaaa", "0101010101010101" or "abcabcabcabcabca" always
MIN_DISTINCT: Final = 4


@dataclass(frozen=True, slots=True)
class TokenKey:
    """A request's Idempotency-Key for a token: its hash in its scope (the player's for
    another device, the client address's for the requests without a token) and the request."""

    key_hash: bytes
    idem: Idempotency


@dataclass(frozen=True, slots=True)
class Issued:
    """A token's answer: made now, or given again (`replayed`) to a retry."""

    body: dict[str, Any]
    replayed: bool = False


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def token_key(
    idem: Idempotency | None, server_key: bytes, scope: bytes = b""
) -> TokenKey | None:
    if idem is None:
        return None
    if len(idem.key) < MIN_KEY or len(set(idem.key)) < MIN_DISTINCT:
        raise BadRequest(
            f"an Idempotency-Key of a request that makes a token must be {MIN_KEY} characters"
            f" or more, {MIN_DISTINCT} different ones at least, and hard to guess (a random"
            " UUID): its retry is given the token"
        )
    kept = hmac.new(server_key, b"token key\0" + scope + b"\0" + idem.key.encode(), hashlib.sha256)
    return TokenKey(kept.digest(), idem)


def new_token(server_key: bytes, tk: TokenKey | None) -> tuple[uuid.UUID, str]:
    """A token's id and the token: random, or derived from the key it is made under."""
    token_id = uuid.uuid4()
    if tk is None:
        return token_id, secrets.token_urlsafe(32)
    return token_id, _derived(server_key, token_id, tk)


def _derived(server_key: bytes, token_id: uuid.UUID, tk: TokenKey) -> str:
    mac = hmac.new(
        server_key, b"device token\0" + token_id.bytes + tk.idem.key.encode(), hashlib.sha256
    )
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()


KEEP = """
INSERT INTO token_keys (key_hash, request_hash, token_id, response) VALUES ($1, $2, $3, $4)"""


async def keep(
    conn: asyncpg.Connection, tk: TokenKey | None, token_id: uuid.UUID,
    response: dict[str, Any], timeout: float | None,
) -> None:
    """In the transaction that makes the token: its key, with the answer but its token and
    its time (taken from the token's row when it is given again)."""
    if tk is not None:
        await conn.execute(
            KEEP, tk.key_hash, tk.idem.request_hash, token_id, json_text(response),
            timeout=timeout,
        )


FIRST = """
SELECT k.request_hash, k.token_id, k.response, t.revoked_at, t.created_at
FROM token_keys k JOIN device_tokens t ON t.id = k.token_id WHERE k.key_hash = $1"""


async def given_before(
    backend: Backend, server_key: bytes, tk: TokenKey
) -> dict[str, Any] | None:
    """The first answer of the request made under this key, if one was made."""
    async with backend.store.connection() as conn:
        row = await conn.fetchrow(FIRST, tk.key_hash, timeout=backend.store.timeout)
    if row is None:
        return None
    same_request(tk.idem, row["request_hash"])
    # (found under this server's key: the token it derives is the one made)
    token = _derived(server_key, row["token_id"], tk)
    if row["revoked_at"] is not None:
        raise Conflict(
            "this request was made before with this Idempotency-Key, and the token it made"
            " has been signed out since: it cannot be given again; send a new request with"
            " a new key"
        )
    body = stored_answer(row["response"])
    return {**body, "token": token, "created_at": row["created_at"]}


async def once(
    backend: Backend, server_key: bytes, tk: TokenKey | None,
    make: Callable[[], Awaitable[dict[str, Any]]],
) -> Issued:
    """`make` the token's answer, unless a request with the same key made it before: then
    that answer (service/base/once.py)."""
    made = None if tk is None else functools.partial(given_before, backend, server_key, tk)
    body, replayed = await base_once(made, make)
    return Issued(body, replayed)
