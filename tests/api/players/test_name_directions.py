"""A player's name is written in one direction (service/players/names.py,
two_directions): a name that holds letters written right to left and letters written left
to right is 400, for it is not drawn in the order it is typed, while the keys that keep
names apart read it as typed. Names of one direction, digits and signs beside them, are
names."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from ..helpers import create, created

# (a name, one drawn alike with Hebrew letters among its Latin ones): samekh and vav look
# like `o` and `l`, tet and vav like `v` and `l`; a right-to-left run is drawn backwards
DRAWN_ALIKE = [
    ("PabloWKQ", "Pab\u05e1\u05d5WKQ"),  # drawn "Pab" "וס" "WKQ"
    ("VolvoWKQ", "Vo\u05d8\u05d5oWKQ"),  # drawn "Vo" "וט" "oWKQ"
]


async def test_a_name_with_letters_of_both_directions_is_400(client: TestClient) -> None:
    for name, drawn_alike in DRAWN_ALIKE:
        status, body = await create(client, name)
        assert status == 201, (name, body)
        status, problem = await create(client, drawn_alike)
        assert status == 400, (drawn_alike, problem)
        assert str(problem["type"]).endswith("/validation"), problem
        assert "written in one direction" in str(problem["detail"]), problem
    for name in ("Ali \u0639\u0644\u064a", "\u05d3\u05e0\u05d9 Dan", "a\u05d0"):
        status, problem = await create(client, name)
        assert status == 400 and "one direction" in str(problem["detail"]), (name, problem)


async def test_names_of_one_direction_with_digits_and_signs_are_names(
    client: TestClient,
) -> None:
    """Digits, spaces, signs and emoji go with either direction: Hebrew `דני 37` and
    `37 דני` are two names, drawn apart (`37 ינד` and `ינד 37`), as are `علي ٣٧` and
    `٣٧ علي`."""
    await created(
        client,
        "\u05d3\u05e0\u05d9 37",
        "37 \u05d3\u05e0\u05d9",
        "\u05d0\u05d1\u05d9-37 \U0001f600",
        "\u0639\u0644\u064a \u0663\u0667",
        "\u0663\u0667 \u0639\u0644\u064a",
        "Dan 37 (\u00e9t\u00e9) \U0001f600",
    )
