"""A move's body is taken by the service exactly when openapi.yaml's schema takes it
(MoveRequest, and OneMove in a batch): a null is the field left out, both `from` and
`card` or `card` with `count` is a 400, as is neither."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from jsonschema import Draft202012Validator

from tests.openapi_check import load_spec

from ..helpers import auth, new_game, new_player

# FreeCell deal 617, t1 from its buried card: 7D TD TH KD 4C 4S JD
BODIES: list[tuple[dict[str, Any], bool]] = [
    ({"from": "t1", "to": "c"}, True),
    ({"from": "t1", "card": None, "to": "c"}, True),
    ({"from": None, "card": "JD", "to": "c"}, True),
    ({"card": "JD", "count": None, "to": "c"}, True),
    ({"from": "t1", "count": None, "to": "c"}, True),
    ({"from": "t1", "card": "JD", "to": "c"}, False),
    ({"card": "JD", "count": 1, "to": "c"}, False),
    ({"from": None, "card": None, "to": "c"}, False),
    ({"to": "c"}, False),
]


def _schema(name: str) -> Draft202012Validator:
    document = load_spec().document
    return Draft202012Validator({"$ref": f"#/components/schemas/{name}",
                                 "components": document["components"]})


@pytest.mark.parametrize("batched", [False, True], ids=["one", "batch"])
async def test_the_service_takes_a_move_exactly_when_the_schema_does(
    client: TestClient, batched: bool
) -> None:
    schema = _schema("OneMove" if batched else "MoveRequest")
    ada = await new_player(client)
    for move, valid in BODIES:
        assert schema.is_valid(move) is valid, move
        game = await new_game(client, ada, deal=617, autoplay=False)
        body = {"moves": [move]} if batched else move
        r = await client.post(f"/v1/games/{game['id']}/moves", json=body, headers=auth(ada))
        if valid:
            assert r.status == 201, (move, await r.text())
            assert (await r.json())["game"]["state"]["cells"][0] == "JD", move
        else:
            assert r.status == 400, (move, await r.text())
            assert (await r.json())["type"].endswith("/validation"), move
