"""Request bodies (pydantic v2). Responses are plain dicts serialised with orjson."""

from __future__ import annotations

import unicodedata
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


# Unicode categories no name may hold: control (Cc), format (Cf: bidirectional marks and
# overrides, zero-width joiners and spaces), private use (Co), surrogates (Cs) and
# unassigned (Cn); with them one player could pass for another on a board.
_NOT_IN_NAMES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
NAME_MAX = 32


class NewPlayer(Body):
    name: StrictStr = Field(min_length=1, max_length=400)

    @field_validator("name")
    @classmethod
    def _printable(cls, name: str) -> str:
        name = name.strip()
        if not 1 <= len(name) <= NAME_MAX:
            raise ValueError(f"a name is 1 to {NAME_MAX} characters after trimming spaces")
        for ch in name:
            if unicodedata.category(ch) in _NOT_IN_NAMES:
                raise ValueError(
                    f"a name cannot contain control, format (bidirectional or zero-width)"
                    f" or private-use characters such as U+{ord(ch):04X}"
                )
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
