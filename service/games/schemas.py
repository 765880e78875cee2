"""What a request on games says: the bodies (a new game, moves one at a time or in
batches, undo and redo; pydantic v2), and the version a write is conditioned on
(`expected_version`, or the game's ETag in If-Match)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from typing import Final

from pydantic import ConfigDict, Field, StrictBool, StrictStr, field_validator, model_validator

from engine import Card, InvalidMove
from service.base.errors import BadRequest
from service.base.requests import MAX_SEQ, Body, GradeName, VariantName, WholeNumber


class NewGame(Body):
    variant: VariantName
    deal: WholeNumber | None = None
    grade: GradeName | None = None
    autoplay: StrictBool = True

    @model_validator(mode="after")
    def _deal_or_grade(self) -> NewGame:
        if self.deal is not None and self.grade is not None:
            raise ValueError("give a deal or a grade, not both")
        return self


def card_as_written(text: str) -> str:
    """A card as the API writes it (`TH`, openapi.yaml's Card), else 400 (InvalidMove).
    The engine also reads `10H` and lower case, for people typing; a client of the API
    writes the one form, as it writes pile names."""
    card = Card.parse(text)
    if card.text != text:
        raise InvalidMove(f"write the card {text!r} as {card.text} (rank A23456789TJQK"
                          " then suit SHDC)")
    return text


class OneMove(Body):
    """A move by its source pile (`from`, `count`) or by its card."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: StrictStr | None = Field(default=None, alias="from", max_length=8)
    card: StrictStr | None = Field(default=None, max_length=4)
    to: StrictStr = Field(max_length=8)
    count: WholeNumber | None = Field(default=None, ge=1, le=52)

    def as_dict(self) -> dict[str, object]:
        return {"from": self.source, "card": self.card, "to": self.to, "count": self.count}

    @field_validator("card")
    @classmethod
    def _card(cls, text: str | None) -> str | None:
        return None if text is None else card_as_written(text)

    @model_validator(mode="after")
    def _source_or_card(self) -> OneMove:
        if self.source is None and self.card is None:
            raise ValueError("say what moves: 'from' (a pile, such as \"t1\") or 'card'"
                             " (a card, such as \"7H\")")
        if self.source is not None and self.card is not None:
            raise ValueError("give either 'from' (a pile) or 'card' (a card), not both")
        if self.card is not None and self.count is not None:
            raise ValueError(
                "'count' goes with 'from'; a move by 'card' takes the cards on top of it"
            )
        if self.source is not None and self.count is None:
            self.count = 1  # API.md: count defaults to 1
        return self


MAX_BATCH = 500  # the most moves one request may carry


class MoveRequest(OneMove):
    expected_version: WholeNumber | None = Field(default=None, ge=0, le=MAX_SEQ)


class BatchMove(OneMove):
    """A move of a batch, which may say when it was played: `played_ms` since the game's
    created_at (service/games/times.py)."""

    played_ms: WholeNumber | None = Field(default=None, ge=0)

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "played_ms": self.played_ms}


class BatchRequest(Body):
    """Several moves, all or none (API.md: several moves in one request)."""

    moves: list[BatchMove] = Field(min_length=1, max_length=MAX_BATCH)
    expected_version: WholeNumber | None = Field(default=None, ge=0, le=MAX_SEQ)


class VersionedRequest(Body):
    expected_version: WholeNumber | None = Field(default=None, ge=0, le=MAX_SEQ)


class TaggedVersion(int):
    """A write conditioned by If-Match on the game's ETags: it goes on at any of the
    `versions` they name, else a 412 (PreconditionFailed) where a stale
    `expected_version` is a 409. NO_TAG: a field that names no ETag of the game, which no
    version meets. (An int, the least of them, as `expected_version` is one.)"""

    versions: frozenset[int]

    def __new__(cls, versions: frozenset[int]) -> TaggedVersion:
        tagged = super().__new__(cls, min(versions, default=-1))
        tagged.versions = versions
        return tagged


NO_TAG: Final = TaggedVersion(frozenset())
# a strong ETag of a game's view, as queries.view_tag writes it: its id, its version and,
# once won, its standing's rank and count (numbers as written: no leading zero)
_GAME_TAG = re.compile(r'"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'
                       r'\.(0|[1-9][0-9]{0,9})(?:\.[1-9][0-9]*\.[1-9][0-9]*)?"')  # fmt: skip


def expected(said: int | None, if_match: Sequence[str], game_id: uuid.UUID) -> int | None:
    """The version a write is conditioned on: `said` (its `expected_version`), or the
    game's ETags in `if_match` (the If-Match field's lines, one list: RFC 9110, 5.3), of
    which any may match; with both, `said` must be one of them (400 otherwise). "*"
    conditions nothing more (the game exists, or it is a 404); tags of other games, weak
    tags (never equal by the strong comparison If-Match asks) and other resources' tags
    name no version of the game."""
    if not if_match:
        return said
    tags = [tag.strip() for line in if_match for tag in line.split(",") if tag.strip()]
    if "*" in tags:
        return said
    versions = set()
    for tag in tags:
        found = _GAME_TAG.fullmatch(tag)
        if found is not None and found[1] == str(game_id):
            versions.add(int(found[2]))
    if said is None:
        return TaggedVersion(frozenset(versions))
    if said not in versions:
        raise BadRequest(f"expected_version {said} is none of the versions If-Match's ETags"
                         " name; send one of the two")  # fmt: skip
    return TaggedVersion(frozenset({said}))
