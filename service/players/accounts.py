"""Players and their device tokens: plain values in and out, against the backend
(service/base/backend.py).

A token is shown once and stored as its SHA-256 (tokens.py, which also gives a token's
first answer again to a retry with its Idempotency-Key). Whether a token is still signed in
is the database's word, never memory's alone: a request that is not a game's write asks it
(:func:`authenticate`, one indexed query, which also notes the token's last use at most once
a minute), and a game's write, which takes the player of its token from memory, has its
token checked again by the statement that would append it (database/statements.py:
signed_in). So a token signed out is refused by every instance from its sign-out's commit
on. Each instance keeps the players of the tokens it saw in memory, and forgets one when it
hears that it was signed out (a `NOTIFY` on the live-event hub's channel in the sign-out's
own transaction, or the broker's line): that saves a game's write the statement's refusal,
nothing more. A player has at most `MAX_TOKENS` tokens in use; a new one is made under a
lock on the player's row (`LOCK_PLAYER`), so that the cap holds against concurrent
requests. The codes that link a new device are in link_codes.py; names that cannot pass for
another's in names.py.
"""

from __future__ import annotations

import time
import uuid
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import asyncpg

from service.base.backend import Backend
from service.base.errors import TOKEN_REFUSED, Conflict, NotFound, Unauthorized
from service.database.connections import plain, transaction
from service.database.statements import CHANNEL, SIGNED_OUT
from service.players.names import glyph_key, name_key, shape_key, unique_name
from service.players.tokens import Issued, TokenKey, hash_token, keep, new_token, once

LAST_USED_EVERY: Final = 60  # seconds between two notes of a token's last use (and checks)
FIRST_DEVICE: Final = "first device"
MAX_TOKENS: Final = 100  # tokens in use per player (one a device)


@dataclass(frozen=True, slots=True)
class Player:
    id: uuid.UUID
    name: str
    token_id: uuid.UUID | None = None  # the device token the request came with


@dataclass(frozen=True, slots=True)
class CachedToken:
    player: Player
    checked: float  # time.monotonic() of the last check against the database


def signed_out(backend: Backend, digest: bytes) -> None:
    """A token was signed out (announced by the instance that did it, or by this one):
    forgotten."""
    backend.players.pop(digest)


def remember(backend: Backend, digest: bytes, player: Player) -> None:
    """Keep the player of a token checked (or made)."""
    backend.players[digest] = CachedToken(player, time.monotonic())


CREATE_PLAYER = """
WITH p AS (
    INSERT INTO players (id, name, name_key, shape_key, glyph_key) VALUES ($1, $2, $6, $7, $8)
    RETURNING id, created_at)
INSERT INTO device_tokens (id, player_id, token_hash, device, created_at)
SELECT $3, p.id, $4, $5, p.created_at FROM p RETURNING created_at"""


async def create_player(
    backend: Backend, name: str, server_key: bytes, tk: TokenKey | None = None
) -> Issued:
    """A new player and their first token; 409 `name-taken` when the name looks like an
    existing player's (service/players/names.py: the database's unique index decides, so
    two lookalike names created at once do not both pass). Under an Idempotency-Key
    (`tk`), a retry gets the first answer (tokens.py)."""

    async def make() -> dict[str, Any]:
        token_id, token = new_token(server_key, tk)
        player_id = uuid.uuid4()
        timeout = backend.store.timeout
        # (memory keeps the new token only once it is used: that first use notes it, so a
        # device's `last_used_at` says when it was)
        async with backend.store.connection() as conn, (
            nullcontext() if tk is None else transaction(conn, timeout)
        ):
            with unique_name(name):
                created: datetime = await conn.fetchval(
                    CREATE_PLAYER, player_id, name, token_id, hash_token(token), FIRST_DEVICE,
                    name_key(name), shape_key(name), glyph_key(name), timeout=timeout,
                )
            await keep(conn, tk, token_id, {"id": player_id, "name": name}, timeout)
        return {"id": player_id, "name": name, "token": token, "created_at": created}

    return await once(backend, server_key, tk, make)


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
# the same without the note, for a database that takes no writes for now
TOKEN_OWNER_READ = """
SELECT t.id, t.player_id, p.name FROM device_tokens t JOIN players p ON p.id = t.player_id
WHERE t.token_hash = $1 AND t.revoked_at IS NULL"""


async def authenticate(backend: Backend, token: str | None, *, memory: bool = False) -> Player:
    """The player of a token signed in, by the database's word (401 for no token, or one
    unknown or signed out). With `memory`, for a game's write only, whose statement checks
    the token again: memory's player of the token, checked within LAST_USED_EVERY."""
    if not token:
        raise Unauthorized(
            "this request needs 'Authorization: Bearer <token>' (POST /v1/players gives one)"
        )
    digest = hash_token(token)
    if memory:
        cached = backend.players.get(digest)
        if cached is not None and time.monotonic() - cached.checked < LAST_USED_EVERY:
            return cached.player
    async with backend.store.connection() as conn:
        try:
            row = await conn.fetchrow(TOKEN_OWNER, digest, timeout=backend.store.timeout)
        except asyncpg.exceptions.ReadOnlySQLTransactionError:
            # (a database that takes no writes: reads with a token go on, unnoted; a
            # write is refused by its own statement, 503)
            row = await conn.fetchrow(TOKEN_OWNER_READ, digest, timeout=backend.store.timeout)
    if row is None:
        backend.players.pop(digest)
        raise Unauthorized(TOKEN_REFUSED)
    player = Player(plain(row["player_id"]), row["name"], plain(row["id"]))
    remember(backend, digest, player)
    return player


# ---------------------------------------------------------------- device tokens

IN_USE = "(SELECT count(*) FROM device_tokens WHERE player_id = $2 AND revoked_at IS NULL)"
ADD_TOKEN = f"""
INSERT INTO device_tokens (id, player_id, token_hash, device)
SELECT $1, $2, $3, $4 WHERE {IN_USE} < {MAX_TOKENS}
RETURNING created_at"""
# Every new token of a player is made holding this lock on the player's row, and counts
# the player's tokens in use in a statement after it (so it sees every token committed
# under the lock before): two new tokens at MAX_TOKENS - 1 cannot both pass. NO KEY
# UPDATE leaves alone the KEY SHARE locks that the player's other writes take.
LOCK_PLAYER = "SELECT 1 FROM players WHERE id = $1 FOR NO KEY UPDATE"
# the same, while the token asking is in use: a new token is never made with one signed
# out, whatever memory still trusts
LOCK_PLAYER_OF_TOKEN = """
SELECT 1 FROM players p WHERE p.id = $1
    AND EXISTS (SELECT 1 FROM device_tokens d WHERE d.id = $2 AND d.revoked_at IS NULL)
FOR NO KEY UPDATE OF p"""


def too_many() -> Conflict:
    return Conflict(
        f"this player has {MAX_TOKENS} devices signed in, the most there may be; sign one"
        " out first: GET /v1/players/me/tokens lists them with their ids, and DELETE"
        " /v1/players/me/tokens/<its id> signs one out"
    )


async def add_token(
    backend: Backend, player: Player, device: str, server_key: bytes,
    tk: TokenKey | None = None,
) -> Issued:
    """Another token for the same player, for the device named; under an Idempotency-Key
    (`tk`), a retry gets the first answer (tokens.py)."""

    async def make() -> dict[str, Any]:
        token_id, token = new_token(server_key, tk)
        timeout = backend.store.timeout
        async with backend.store.connection() as conn, transaction(conn, timeout):
            asking = await conn.fetchval(
                LOCK_PLAYER_OF_TOKEN, player.id, player.token_id, timeout=timeout
            )
            if asking is None:  # signed out meanwhile, on another instance not yet told
                raise Unauthorized(TOKEN_REFUSED)
            created = await conn.fetchval(
                ADD_TOKEN, token_id, player.id, hash_token(token), device, timeout=timeout
            )
            if created is None:
                raise too_many()
            await keep(conn, tk, token_id, {"id": token_id, "device": device}, timeout)
        return {"id": token_id, "device": device, "token": token, "created_at": created}

    return await once(backend, server_key, tk, make)


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
                "id": plain(r["id"]),
                "device": r["device"],
                "created_at": r["created_at"],
                "last_used_at": r["last_used_at"],
                "current": r["id"] == player.token_id,
            }
            for r in rows
        ]
    }


# the token is signed out and the link codes it made are cancelled, or nothing; every
# instance hears of it at the commit (the hub's channel)
REVOKE_TOKEN = f"""
WITH t AS (
    UPDATE device_tokens SET revoked_at = now()
    WHERE id = $1 AND player_id = $2 AND revoked_at IS NULL RETURNING id, token_hash),
codes AS (DELETE FROM link_codes WHERE token_id IN (SELECT id FROM t))
SELECT token_hash, pg_notify('{CHANNEL}', '{SIGNED_OUT} ' || encode(token_hash, 'hex'))
FROM t"""


async def revoke_token(backend: Backend, player: Player, raw_id: str) -> None:
    """Sign a device out: its token is refused by every instance from the commit on (each
    asks the database, or its write's statement does), and the link codes it made are void.
    The instances forget it when they hear of it (the statement's NOTIFY, at its commit;
    through the broker, the line sent after it)."""
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
    signed_out(backend, bytes(digest))
    await backend.token_signed_out(bytes(digest))
