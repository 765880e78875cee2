"""The codes that link a new device to a player, and the key they are stored under.

A link code is 8 characters from an alphabet without 0/O and 1/I, shown as `K7WQ-M2PD`,
valid `LINK_CODE_MINUTES` minutes and for one use, and only while the token that made it
is in use: signing that device out cancels it. It is stored as its HMAC-SHA256 under the
server's key (`LINK_CODE_KEY`; unset, a random key the service makes once and keeps in a
file beside its data, shared by the workers of one machine and its restarts), so a copy
of the database reveals no live code: with 32^8 codes, a plain hash would give them all
away to a few seconds of hashing. Redeeming a code makes a token under the player's lock
(accounts.LOCK_PLAYER), so it obeys the cap on a player's tokens as adding one does.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from aiohttp import web

from service.base.backend import Backend
from service.base.errors import Conflict, Unprocessable
from service.base.settings import Settings
from service.database.connections import plain, transaction
from service.players.accounts import IN_USE, MAX_TOKENS, Player, too_many
from service.players.tokens import Issued, TokenKey, hash_token, keep, new_token, once

LINK_CODE_MINUTES: Final = 10
LINK_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, no 1/I
LINK_CODE_LENGTH: Final = 8
KEY_FILE: Final = ".link-code-key"  # beside DATA_DIR, when LINK_CODE_KEY is not set

# the key link codes are stored under (link_code_key)
LINK_KEY = web.AppKey("link_code_key", bytes)


def key_file(settings: Settings) -> Path:
    """Where the key is kept when LINK_CODE_KEY is not set."""
    return settings.data_dir.parent / KEY_FILE


def link_code_key(settings: Settings) -> bytes:
    """LINK_CODE_KEY, else the key kept in the file beside DATA_DIR, made at the first
    start: the first process to link its file in place wins, and every other one (the
    other workers, later restarts) reads the same."""
    if settings.link_code_key is not None and settings.link_code_key.get_secret_value():
        return settings.link_code_key.get_secret_value().encode()
    path = key_file(settings)
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            draft = path.with_name(f"{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
            draft.write_text(secrets.token_hex(32) + "\n")
            draft.chmod(0o600)
            try:
                with contextlib.suppress(FileExistsError):
                    os.link(draft, path)
            finally:
                draft.unlink()
        key = path.read_text().strip()
    except OSError as exc:
        raise RuntimeError(
            f"cannot keep the link codes' key in {path} ({exc}); set LINK_CODE_KEY"
        ) from exc
    if not key:
        raise RuntimeError(f"{path} holds no key; delete it or set LINK_CODE_KEY")
    return key.encode()


def normal_code(code: str) -> str:
    """A code as typed (any case, with or without the dash or spaces) in its stored form."""
    return "".join(ch for ch in code.upper() if ch not in "- ")


def hash_code(key: bytes, code: str) -> bytes:
    return hmac.new(key, normal_code(code).encode(), hashlib.sha256).digest()


# nothing when the player has MAX_TOKENS devices already, or the hash is a live code's
ADD_LINK_CODE = f"""
INSERT INTO link_codes (code_hash, player_id, token_id, expires_at)
SELECT $1, $2, $3, now() + interval '{LINK_CODE_MINUTES} minutes' WHERE {IN_USE} < {MAX_TOKENS}
ON CONFLICT (code_hash) DO UPDATE
    SET player_id = EXCLUDED.player_id, token_id = EXCLUDED.token_id,
        expires_at = EXCLUDED.expires_at, used_at = NULL
    WHERE link_codes.used_at IS NOT NULL OR link_codes.expires_at <= now()
RETURNING expires_at"""


async def add_link_code(backend: Backend, player: Player, key: bytes) -> dict[str, Any]:
    """A code that links a new device to the player, for one use within ten minutes,
    while the token that asked for it is in use."""
    for _attempt in range(3):  # a live code with the same hash: draw another
        raw = "".join(secrets.choice(LINK_ALPHABET) for _ in range(LINK_CODE_LENGTH))
        code = f"{raw[:4]}-{raw[4:]}"
        async with backend.store.connection() as conn:
            expires = await conn.fetchval(
                ADD_LINK_CODE, hash_code(key, code), player.id, player.token_id,
                timeout=backend.store.timeout,
            )
        if expires is not None:
            return {"code": code, "expires_at": expires}
    async with backend.store.connection() as conn:
        in_use = await conn.fetchval(
            IN_USE.replace("$2", "$1"), player.id, timeout=backend.store.timeout
        )
    if in_use >= MAX_TOKENS:
        raise too_many()
    raise Conflict("could not draw a free link code; try again")


# a code that can be redeemed: not used, not expired, its maker's token still in use
LIVE = """c.code_hash = $1 AND c.used_at IS NULL AND c.expires_at > now()
    AND EXISTS (SELECT 1 FROM device_tokens d WHERE d.id = c.token_id AND d.revoked_at IS NULL)"""
# the code's player, locked as accounts.LOCK_PLAYER locks it
LOCK_CODE_PLAYER = f"""
SELECT p.id, p.name FROM link_codes c JOIN players p ON p.id = c.player_id
WHERE {LIVE} FOR NO KEY UPDATE OF p"""
# under that lock: the player's tokens in use, and, below the cap, the code spent and the
# new device's token made
REDEEM_LINK_CODE = f"""
WITH n AS (
    SELECT count(*) AS in_use FROM device_tokens WHERE player_id = $2 AND revoked_at IS NULL),
spent AS (
    UPDATE link_codes c SET used_at = now() FROM n
    WHERE {LIVE} AND c.player_id = $2 AND n.in_use < {MAX_TOKENS}
    RETURNING c.player_id),
t AS (
    INSERT INTO device_tokens (id, player_id, token_hash, device)
    SELECT $3, spent.player_id, $4, $5 FROM spent RETURNING created_at)
SELECT n.in_use, t.created_at FROM n LEFT JOIN t ON true"""


def _no_such_code() -> Unprocessable:
    return Unprocessable(
        "this link code is wrong, used or expired (a code is good for one device,"
        f" within {LINK_CODE_MINUTES} minutes, while the device that made it is signed"
        " in); ask the other device for a new one"
    )


async def redeem_link_code(
    backend: Backend, key: bytes, code: str, device: str, tk: TokenKey | None = None
) -> Issued:
    """A token for a new device of the player whose code this is; the code is spent. 409
    when the player has MAX_TOKENS devices signed in (the code then stays good). Under an
    Idempotency-Key (`tk`), a retry gets the first answer (tokens.py), the code spent."""
    code_hash = hash_code(key, code)

    async def make() -> dict[str, Any]:
        token_id, token = new_token(key, tk)
        timeout = backend.store.timeout
        async with backend.store.connection() as conn, transaction(conn, timeout):
            owner = await conn.fetchrow(LOCK_CODE_PLAYER, code_hash, timeout=timeout)
            if owner is None:
                raise _no_such_code()
            row = await conn.fetchrow(
                REDEEM_LINK_CODE, code_hash, owner["id"], token_id, hash_token(token), device,
                timeout=timeout,
            )
            if row["created_at"] is None:
                raise too_many() if row["in_use"] >= MAX_TOKENS else _no_such_code()
            # (memory keeps the new token once it is used, as a new player's: accounts.py)
            player = Player(plain(owner["id"]), owner["name"], token_id)
            answer = {
                "player": {"id": player.id, "name": player.name},
                "id": token_id,
                "device": device,
            }
            await keep(conn, tk, token_id, answer, timeout)
        return {**answer, "token": token, "created_at": row["created_at"]}

    return await once(backend, key, tk, make)


async def purge_link_codes(backend: Backend, expired_before: datetime) -> None:
    async with backend.store.connection() as conn:
        await conn.execute(
            "DELETE FROM link_codes WHERE expires_at < $1", expired_before,
            timeout=backend.store.timeout,
        )
