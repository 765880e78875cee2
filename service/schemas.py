"""Request bodies (pydantic v2). Responses are plain dicts serialised with orjson."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

VariantName = Literal["freecell", "bakers_game", "bakers_dozen", "beleaguered_castle"]


def _whole_number(value: object) -> object:
    """JSON has one kind of number: 7.0 is the whole number 7, as JSON Schema's "integer"
    (and so openapi.yaml) has it. Anything else goes on to the strict check unchanged, so
    7.5, true and "7" stay errors."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


WholeNumber = Annotated[StrictInt, BeforeValidator(_whole_number)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewPlayer(Body):
    name: StrictStr = Field(min_length=1, max_length=40)

    @field_validator("name")
    @classmethod
    def _printable(cls, name: str) -> str:
        # control characters (NUL cannot even be stored in PostgreSQL text) make no name
        if any(ch < " " or "\x7f" <= ch <= "\x9f" for ch in name):
            raise ValueError("a name cannot contain control characters")
        return name


class NewGame(Body):
    variant: VariantName
    deal: WholeNumber | None = None
    autoplay: StrictBool = True


class MoveRequest(Body):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: StrictStr | None = Field(default=None, alias="from", max_length=8)
    card: StrictStr | None = Field(default=None, max_length=4)
    to: StrictStr = Field(max_length=8)
    count: WholeNumber | None = Field(default=None, ge=1, le=52)
    expected_version: WholeNumber | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _source_or_card(self) -> MoveRequest:
        if (self.source is None) == (self.card is None):
            raise ValueError("give either 'from' (a pile) or 'card' (a card), not both")
        if self.card is not None and self.count is not None:
            raise ValueError(
                "'count' goes with 'from'; a move by 'card' takes the cards on top of it"
            )
        return self


class VersionedRequest(Body):
    expected_version: WholeNumber | None = Field(default=None, ge=0)
