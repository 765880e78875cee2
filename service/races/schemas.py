"""The request body of a new race (pydantic v2)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictBool

from service.base.requests import Body, VariantName, WholeNumber


class NewRace(Body):
    """A race (API.md, "Races"): `deal` left out, a random solvable deal drawn at the start."""

    variant: VariantName
    deal: WholeNumber | None = None
    autoplay: StrictBool = True
    starts_in_s: Annotated[WholeNumber, Field(ge=3, le=600)] = 15
    max_players: Annotated[WholeNumber, Field(ge=2, le=100)] = 8
    max_minutes: Annotated[WholeNumber, Field(ge=1, le=1440)] = 30
