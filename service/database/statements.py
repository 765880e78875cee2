"""The statements that append to the log (record_events, one write or a batch of them)
and the values the event store answers with (service/database/store.py); the channel on
which the instances sharing the database tell each other what changed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

# The channel of the lines by which the instances sharing the database tell each other of
# their commits (service/live/hub.py) and of the tokens signed out (players/accounts.py).
CHANNEL: Final = "game_events"
# A token signed out: the line '<SIGNED_OUT> <its hash in hex>', sent in the transaction
# that signs it out.
SIGNED_OUT: Final = "token"


@dataclass(frozen=True, slots=True)
class StoredEvent:
    seq: int
    type: str
    data: dict[str, Any]
    at: datetime


@dataclass(frozen=True, slots=True)
class Replayed:
    """An Idempotency-Key seen before: its request hash and the answer it got."""

    request_hash: str
    status: int
    response: dict[str, Any]
    at: datetime  # when the first answer's write was made


RECORD_SQL = (
    "SELECT replayed, request_hash, http_status, response, at, created_at, finished_at,"
    " elapsed_ms, race_ends_at FROM record_events("
    "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)"
)

# Several writes in one statement (one transaction, one round trip): record_events once per
# row of the arrays, in their order. Events and answers go as text (a list in a jsonb[]
# array would be taken for one more dimension) and become jsonb on the server.
RECORD_MANY_SQL = (
    "SELECT w.ord, r.replayed, r.request_hash, r.http_status, r.response, r.at, r.created_at,"
    " r.finished_at, r.elapsed_ms, r.race_ends_at FROM unnest("
    "$1::uuid[], $2::int[], $3::text[], $4::uuid[], $5::text[], $6::bigint[], $7::bool[],"
    " $8::text[], $9::int[], $10::int[], $11::int[], $12::int[], $13::text[], $15::text[],"
    " $16::text[], $17::int[], $18::text[], $19::bool[]) WITH ORDINALITY"
    " AS w(game, first_seq, events, player, variant, deal, autoplay, status, moves, undos,"
    " hints, foundation_cards, finish, key, request_hash, http_status, response, assisted,"
    " ord)"
    " CROSS JOIN LATERAL record_events(w.game, w.first_seq, w.events::jsonb, w.player,"
    " w.variant, w.deal, w.autoplay, w.status, w.moves, w.undos, w.hints, w.foundation_cards,"
    " w.finish, $14, w.key, w.request_hash, w.http_status, w.response::jsonb, w.assisted) AS r"
    " ORDER BY w.ord"
)


@dataclass(frozen=True, slots=True)
class Recorded:
    """What record_events did: the key's earlier answer (nothing appended), or the write's
    time from the database's clock with the game's creation and finish times, or (nothing
    appended either) the end of the game's race, which the write came after."""

    replayed: Replayed | None
    at: datetime
    created_at: datetime | None
    finished_at: datetime | None
    elapsed_ms: int | None
    race_ends_at: datetime | None = None
