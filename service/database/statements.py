"""The statements that append to the log (record_events, one write or a batch of them)
and the values the event store answers with (service/database/store.py); the channel on
which the instances sharing the database tell each other what changed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import orjson

# The channel of the lines by which the instances sharing the database tell each other of
# their commits (service/live/hub.py) and of the tokens signed out (players/accounts.py).
CHANNEL: Final = "game_events"
# A token signed out: the line '<SIGNED_OUT> <its hash in hex>', sent in the transaction
# that signs it out.
SIGNED_OUT: Final = "token"


def game_line(game_id: object, seq: int) -> str:
    """The line that says a game's log reaches `seq`."""
    return f"{game_id} {seq}"


def board_line(variant: str, deal: int) -> str:
    """The line that says a deal's boards changed (a win), or may have."""
    return f"board {variant} {deal}"


def payloads(sender: str, lines: list[str], limit: int = 7000) -> list[str]:
    """Lines joined into NOTIFY payloads under PostgreSQL's 8000-byte limit, each
    beginning with the `sender` line (by which an instance knows its own)."""
    joined: list[str] = []
    current: list[str] = [sender]
    size = len(sender) + 1
    for line in lines:
        if len(current) > 1 and size + len(line) + 1 > limit:
            joined.append("\n".join(current))
            current, size = [sender], len(sender) + 1
        current.append(line)
        size += len(line) + 1
    if len(current) > 1:
        joined.append("\n".join(current))
    return joined


@dataclass(frozen=True, slots=True)
class StoredEvent:
    seq: int
    type: str
    data: dict[str, Any]
    at: datetime


def stored_answer(value: str | dict[str, Any]) -> dict[str, Any]:
    """The answer an idempotency record keeps: its JSON text, kept as a JSON string, which
    jsonb keeps as it is (an object's keys it would put in an order of its own, and a
    retry's answer would not be the first one byte for byte); an object in records written
    before it kept the text."""
    return orjson.loads(value) if isinstance(value, str) else value


@dataclass(frozen=True, slots=True)
class Replayed:
    """An Idempotency-Key seen before: its request hash and the answer it got."""

    request_hash: str
    status: int
    response: dict[str, Any]
    at: datetime  # when the first answer's write was made


# The other instances are told of a write at its commit: its lines (payloads for the
# channel, a text[] parameter: `$20` of a write alone, `$3` of a batch; none when they are
# told through the broker) go by NOTIFY in the write's own transaction, once for the
# statement (an uncorrelated subquery is evaluated once). PostgreSQL commits notifying
# transactions one at a time: with group commit that is one commit a batch, not a move.
def notify(payloads: str) -> str:
    """The NOTIFY of a statement's payloads (the parameter `payloads`, a text[])."""
    return f"(SELECT count(pg_notify('{CHANNEL}', p)) FROM unnest({payloads}::text[]) AS p)"


NOTIFY = notify("$20")


def signed_in(token: str) -> str:
    """The condition that the device token a write came with (its id, `token`) is still
    signed in, or that the write came with none (the service's own). A write is judged by
    the log, and so is its token: a token signed out is refused by the statement that
    would append, whatever memory still trusts (players/accounts.py), and nothing is
    appended. A scalar subquery, one look-up by the token's key per write: gating the one
    write's call of record_events (a one-time filter, before it runs), and each row of a
    batch's before its call."""
    return (
        f"({token} IS NULL OR"
        f" (SELECT d.revoked_at IS NULL FROM device_tokens d WHERE d.id = {token}))"
    )


RECORD_SQL = (
    "SELECT replayed, request_hash, http_status, response, at, created_at, finished_at,"
    f" elapsed_ms, race_ends_at, arrived_ms, current_version, {NOTIFY} AS notified"
    " FROM record_events("
    "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,"
    " p_stale_answered => true)"
    f" WHERE {signed_in('$21::uuid')}"
)

# Several writes in one statement (one transaction, one round trip): record_events once per
# write, in their order. The writes go as one jsonb array ($1) of the single write's
# arguments in its order (store.EventStore.record's `args`), one array a write: one
# parameter for the driver to encode, where arrays of each column cost it a check of
# every element's type (a tenth of a move's instructions under callgrind). A null in it is
# SQL's NULL (->> gives it; the answer, the one jsonb argument that may be null, by nullif).
def _arg(n: int, kind: str) -> str:
    return f"(w.x->>{n})::{kind}"


RECORD_MANY_SQL = (
    "SELECT w.ord, r.replayed, r.request_hash, r.http_status, r.response, r.at, r.created_at,"
    " r.finished_at, r.elapsed_ms, r.race_ends_at, r.arrived_ms, r.current_version,"
    f" {notify('$3')} AS notified"
    " FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS w(x, ord)"
    f" CROSS JOIN LATERAL record_events({_arg(0, 'uuid')}, {_arg(1, 'int')}, w.x->2,"
    f" {_arg(3, 'uuid')}, w.x->>4, {_arg(5, 'bigint')}, {_arg(6, 'bool')}, w.x->>7,"
    f" {_arg(8, 'int')}, {_arg(9, 'int')}, {_arg(10, 'int')}, {_arg(11, 'int')}, w.x->>12,"
    f" $2, w.x->>13, w.x->>14, {_arg(15, 'int')}, nullif(w.x->16, 'null'::jsonb),"
    f" {_arg(17, 'bool')}, p_stale_answered => true) AS r"
    f" WHERE {signed_in(_arg(18, 'uuid'))}"
    " ORDER BY w.ord"
)


@dataclass(frozen=True, slots=True)
class Recorded:
    """What record_events did: the key's earlier answer (nothing appended), or the write's
    time from the database's clock with the game's creation and finish times, or (nothing
    appended either) the end of the game's race, which the write came after, or the moment
    the write came (ms since the game's creation), before which a move of it was not
    played."""

    replayed: Replayed | None
    at: datetime
    created_at: datetime | None
    finished_at: datetime | None
    elapsed_ms: int | None
    race_ends_at: datetime | None = None
    arrived_ms: int | None = None
