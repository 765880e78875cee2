"""Request bodies (pydantic v2). Responses are plain dicts serialised with orjson."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
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
DEVICE_MAX = 64


def shown_text(what: str, most: int) -> object:
    """The type of text other people or devices are shown: trimmed, 1 to `most`
    characters, none of them one that could make it pass for another."""

    def check(text: str) -> str:
        text = text.strip()
        if not 1 <= len(text) <= most:
            raise ValueError(f"{what} is 1 to {most} characters after trimming spaces")
        for ch in text:
            if unicodedata.category(ch) in _NOT_IN_NAMES:
                raise ValueError(
                    f"{what} cannot contain control, format (bidirectional or zero-width)"
                    f" or private-use characters such as U+{ord(ch):04X}"
                )
        return text

    return Annotated[StrictStr, Field(min_length=1, max_length=400), AfterValidator(check)]


class NewPlayer(Body):
    name: shown_text("a name", NAME_MAX)  # type: ignore[valid-type]


class NewDevice(Body):
    """A device's name, as the player's list of devices shows it ("iPad")."""

    device: shown_text("a device's name", DEVICE_MAX)  # type: ignore[valid-type]


class LinkDevice(NewDevice):
    """A link code from another device of the player's, and this device's name."""

    code: StrictStr = Field(min_length=1, max_length=20)


class NewGame(Body):
    variant: VariantName
    deal: WholeNumber | None = None
    autoplay: StrictBool = True


class OneMove(Body):
    """A move by its source pile (`from`, `count`) or by its card."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: StrictStr | None = Field(default=None, alias="from", max_length=8)
    card: StrictStr | None = Field(default=None, max_length=4)
    to: StrictStr = Field(max_length=8)
    count: WholeNumber | None = Field(default=None, ge=1, le=52)

    def as_dict(self) -> dict[str, object]:
        return {"from": self.source, "card": self.card, "to": self.to, "count": self.count}

    @model_validator(mode="after")
    def _source_or_card(self) -> OneMove:
        if (self.source is None) == (self.card is None):
            raise ValueError("give either 'from' (a pile) or 'card' (a card), not both")
        if self.card is not None and self.count is not None:
            raise ValueError(
                "'count' goes with 'from'; a move by 'card' takes the cards on top of it"
            )
        return self


MAX_BATCH = 500  # the most moves one request may carry


class MoveRequest(OneMove):
    expected_version: WholeNumber | None = Field(default=None, ge=0)


class BatchRequest(Body):
    """Several moves, all or none (API.md: several moves in one request)."""

    moves: list[OneMove] = Field(min_length=1, max_length=MAX_BATCH)
    expected_version: WholeNumber | None = Field(default=None, ge=0)


class VersionedRequest(Body):
    expected_version: WholeNumber | None = Field(default=None, ge=0)


class NewRace(Body):
    """A race (API.md, "Races"): `deal` left out, a random solvable deal drawn at the start."""

    variant: VariantName
    deal: WholeNumber | None = None
    autoplay: StrictBool = True
    starts_in_s: Annotated[WholeNumber, Field(ge=3, le=600)] = 15
    max_players: Annotated[WholeNumber, Field(ge=2, le=100)] = 8
    max_minutes: Annotated[WholeNumber, Field(ge=1, le=1440)] = 30
