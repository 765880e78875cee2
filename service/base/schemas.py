"""What every request body shares (pydantic v2): the Body base model, whole numbers, the
variants' names and the check of text other people are shown. Each package's bodies are in
its own schemas module (service/games/schemas.py, service/players/schemas.py,
service/races/schemas.py); responses are plain dicts serialised with orjson."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
)

VariantName = Literal["freecell", "bakers_game", "bakers_dozen", "beleaguered_castle"]
GradeName = Literal["easy", "medium", "hard", "expert"]  # service/deals/grades.py


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
