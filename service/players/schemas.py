"""The request bodies of players and their devices (pydantic v2)."""

from __future__ import annotations

import functools
from typing import Annotated

from pydantic import AfterValidator, Field, StrictStr

from service.base.requests import Body
from service.players.link_codes import normal_code
from service.players.names import shown, visible
from service.players.shown import shown_text

NAME_MAX = 32
DEVICE_MAX = 64


class NewPlayer(Body):
    """A name others are shown: no character of it may be invisible (names.py)."""

    name: Annotated[shown_text("a name", NAME_MAX), AfterValidator(visible)]  # type: ignore[valid-type]


class NewDevice(Body):
    """A device's name, as the player's list of devices shows it ("iPad")."""

    # (the characters a player's name refuses, as openapi.yaml's DeviceName says)
    device: Annotated[shown_text("a device's name", DEVICE_MAX),  # type: ignore[valid-type]
                      AfterValidator(functools.partial(shown, what="a device's name"))]


class LinkDevice(NewDevice):
    """A link code from another device of the player's, and this device's name. The code is
    read in its stored form (any case, with or without the dash), so a retry that types it
    otherwise is the same request (its Idempotency-Key)."""

    code: Annotated[StrictStr, Field(min_length=1, max_length=20), AfterValidator(normal_code)]
