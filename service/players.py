"""Players and their tokens: plain values in and out, against a unit of work."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from .errors import Unauthorized
from .uow import UnitOfWork


@dataclass(frozen=True, slots=True)
class Player:
    id: uuid.UUID
    name: str


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


async def create_player(uow: UnitOfWork, name: str) -> dict[str, Any]:
    token = secrets.token_urlsafe(32)
    player_id = uuid.uuid4()
    created = await uow.store.create_player(player_id, name, hash_token(token))
    uow.players[hash_token(token)] = (player_id, name)
    return {"id": player_id, "name": name, "token": token, "created_at": created}


async def authenticate(uow: UnitOfWork, token: str | None) -> Player:
    if not token:
        raise Unauthorized(
            "this request needs 'Authorization: Bearer <token>' (POST /v1/players gives one)"
        )
    digest = hash_token(token)
    found = uow.players.get(digest)
    if found is None:
        found = await uow.store.player_by_token(digest)
        if found is None:
            raise Unauthorized("this token belongs to no player")
        uow.players[digest] = found
    return Player(*found)
