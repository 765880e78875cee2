"""The request bodies of games: a new game, moves one at a time or in batches, undo and
redo (pydantic v2)."""

from __future__ import annotations

from pydantic import ConfigDict, Field, StrictBool, StrictStr, field_validator, model_validator

from engine import Card, InvalidMove
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
