"""openapi.yaml is a valid OpenAPI 3.1 description, covers every route, and the response
checker in tests/openapi_check.py catches what it should."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from aiohttp import web
from openapi_spec_validator import validate

from tests.openapi_check import (
    SPEC_PATH,
    load_spec,
    validate_exchange,
    validate_stream_message,
)

GAME_ID = "5f0c6a44-32c1-4d8e-8f4e-0a8f6f1b2c3d"
PLAYER_ID = "0b6f1a0e-7d43-4f5e-9a55-5f8a3c2f9d10"
AT = "2026-11-30T08:00:00.123456+00:00"
JSON = {"Content-Type": "application/json; charset=utf-8"}
PROBLEM = {"Content-Type": "application/problem+json"}
TAGGED = {**JSON, "ETag": '"5f0c6a44-32c1-4d8e-8f4e-0a8f6f1b2c3d.1"'}  # a game's answer


def _template_key(path: str) -> str:
    """A path with its parameter names dropped: /v1/games/{game_id} -> /v1/games/{}."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def test_the_description_is_valid_openapi_3_1() -> None:
    validate(load_spec().document)


def test_every_route_of_the_app_is_described() -> None:
    from service.app import setup_routes

    app = web.Application()
    setup_routes(app)
    paths = load_spec().document["paths"]
    described = {
        (_template_key(path), method.upper())
        for path, item in paths.items()
        for method in item
        if method in ("get", "put", "post", "delete", "patch", "options")
    }
    missing = []
    for route in app.router.routes():
        if route.method == "HEAD":  # aiohttp's automatic HEAD of a GET route
            continue
        info = route.resource.canonical if route.resource else "?"
        if (_template_key(info), route.method) not in described:
            missing.append(f"{route.method} {info}")
    assert not missing, "routes missing from openapi.yaml: " + ", ".join(missing)


def test_every_operation_says_whether_it_takes_the_token() -> None:
    """A generated client tells the calls that carry the token by their `security`."""
    silent = [
        f"{method.upper()} {path}"
        for path, item in load_spec().document["paths"].items()
        for method, operation in item.items()
        if method in ("get", "put", "post", "delete", "patch") and "security" not in operation
    ]
    assert not silent, "operations without `security`: " + ", ".join(silent)


def test_every_example_matches_its_schema() -> None:
    spec = load_spec()
    checked = 0

    def walk(node: Any, pointer: str) -> None:
        nonlocal checked
        if isinstance(node, dict):
            if "schema" in node and ("example" in node or "examples" in node) and "in" not in node:
                examples = [node["example"]] if "example" in node else [
                    spec.resolve(e)["value"] for e in node["examples"].values()
                ]
                for example in examples:
                    errors = list(spec.validator(pointer + "/schema").iter_errors(example))
                    assert not errors, f"{pointer}: example does not match: {errors[0].message}"
                    checked += 1
            for key, value in node.items():
                walk(value, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{pointer}/{i}")

    walk(spec.document, "#")
    assert checked >= 10


def test_the_file_served_is_the_one_checked() -> None:
    from service.base.meta import OPENAPI

    assert OPENAPI.resolve() == SPEC_PATH.resolve()


# ------------------------------------------------------------------ the checker itself


def _game(**changes: Any) -> dict[str, Any]:
    game = {
        "id": GAME_ID, "player_id": PLAYER_ID, "variant": "freecell", "deal": 617,
        "autoplay": True, "status": "playing", "version": 1, "moves": 0, "undos": 0,
        "hints": 0, "assisted": False,
        "foundation_cards": 0, "can_undo": False, "can_redo": False, "created_at": AT,
        "finished_at": None, "elapsed_ms": None,
        "state": {"tableau": [["JD", "2D"]] * 8, "cells": [None, None, None, None],
                  "foundations": {"S": 0, "H": 0, "D": 0, "C": 0}},
    }
    game.update(changes)
    return game


def _bytes(value: Any) -> bytes:
    return json.dumps(value).encode()


def test_a_documented_response_passes() -> None:
    validate_exchange("GET", f"/v1/games/{GAME_ID}", {}, 200, TAGGED, _bytes(_game()))
    validate_exchange("HEAD", f"/v1/games/{GAME_ID}", {}, 200, TAGGED, b"")
    validate_exchange("GET", f"/v1/games/{GAME_ID}", {}, 304, TAGGED, b"")
    with pytest.raises(AssertionError, match="required header ETag"):
        validate_exchange("GET", f"/v1/games/{GAME_ID}", {}, 200, JSON, _bytes(_game()))
    event = {"seq": 1, "type": "GameCreated", "at": AT, "data": {"variant": "freecell"}}
    validate_exchange("POST", "/v1/games", {}, 201, JSON, _bytes({**_game(), "events": [event]}))
    validate_exchange("POST", f"/v1/games/{GAME_ID}/moves", {}, 201, JSON,
                      _bytes({"game": _game(extra_field=1), "events": [event]}))


@pytest.mark.parametrize(("body", "complaint"), [
    (_game(status="lost"), "/status"),
    (_game(created_at="yesterday"), "/created_at"),
    (_game(id="617"), "/id"),
    ({k: v for k, v in _game().items() if k != "version"}, "'version' is a required property"),
    (_game(state={"tableau": [["10H"]] * 8, "cells": [],
                  "foundations": {"S": 0, "H": 0, "D": 0, "C": 0}}), "/state/tableau/0/0"),
])
def test_a_body_off_the_schema_fails(body: dict[str, Any], complaint: str) -> None:
    with pytest.raises(AssertionError, match=re.escape(complaint)):
        validate_exchange("GET", f"/v1/games/{GAME_ID}", {}, 200, TAGGED, _bytes(body))


def test_undocumented_statuses_paths_and_media_types_fail() -> None:
    with pytest.raises(AssertionError, match="status 418 is not documented"):
        validate_exchange("GET", f"/v1/games/{GAME_ID}", {}, 418, PROBLEM, b"{}")
    with pytest.raises(AssertionError, match="no path template matches"):
        validate_exchange("GET", "/v2/nothing", {}, 200, JSON, b"{}")
    with pytest.raises(AssertionError, match="not documented on /v1/games"):
        validate_exchange("DELETE", "/v1/games", {}, 200, JSON, b"{}")
    with pytest.raises(AssertionError, match="text/plain is not documented"):
        validate_exchange("GET", f"/v1/games/{GAME_ID}", {}, 200,
                          {**TAGGED, "Content-Type": "text/plain"}, b"hello")


def test_problems_are_checked() -> None:
    problem = {"type": "https://open-solitaire.example/problems/not-found", "title": "Not Found",
               "status": 404, "detail": "there is no game with id x"}
    validate_exchange("GET", "/v1/games/x", {}, 404, PROBLEM, _bytes(problem))
    validate_exchange("GET", "/nowhere", {}, 404, PROBLEM, _bytes(problem))
    with pytest.raises(AssertionError, match="'detail' is a required property"):
        validate_exchange("GET", "/v1/games/x", {}, 404, PROBLEM,
                          _bytes({k: v for k, v in problem.items() if k != "detail"}))
    with pytest.raises(AssertionError, match="is not the HTTP status"):
        validate_exchange("GET", "/v1/games/x", {}, 404, PROBLEM,
                          _bytes({**problem, "status": 400}))
    not_allowed = {**problem, "status": 405, "title": "Method Not Allowed"}
    validate_exchange("DELETE", "/v1/games", {}, 405, {**PROBLEM, "Allow": "POST"},
                      _bytes(not_allowed))
    with pytest.raises(AssertionError, match="required header Allow"):
        validate_exchange("DELETE", "/v1/games", {}, 405, PROBLEM, _bytes(not_allowed))
    down = {**problem, "status": 503, "title": "Service Unavailable"}
    validate_exchange("GET", "/healthz", {}, 503, {**PROBLEM, "Retry-After": "2"}, _bytes(down))
    with pytest.raises(AssertionError, match="required header Retry-After"):
        validate_exchange("GET", "/healthz", {}, 503, PROBLEM, _bytes(down))
    with pytest.raises(AssertionError, match="request_id"):
        validate_exchange("GET", "/healthz", {}, 500, PROBLEM,
                          _bytes({**problem, "status": 500, "title": "Internal Server Error"}))


def test_the_websocket_handshake_and_messages() -> None:
    validate_exchange("GET", f"/v1/games/{GAME_ID}/stream", {"after": "3"}, 101,
                      {"Upgrade": "websocket", "Connection": "Upgrade",
                       "Sec-WebSocket-Accept": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="}, b"")
    validate_stream_message(json.dumps({"seq": 4, "type": "CardMoved", "at": AT, "data": {}}))
    validate_stream_message({"type": "reconnect", "after": 4})
    with pytest.raises(AssertionError, match="StreamMessage"):
        validate_stream_message({"type": "reconnect"})


def test_the_games_and_piles_it_names_are_the_engines() -> None:
    """openapi.yaml spells out the games and their piles in its schemas: each list of games
    is the engine's registry, each pattern of piles the engine's names for them, each
    bound of a layout the games' own (a new game or a wider layout changes both)."""
    import yaml

    from engine import VARIANTS
    from engine.moves import CELL_NAMES, COLUMN_NAMES

    schemas = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["components"]["schemas"]
    names = list(VARIANTS)
    assert schemas["Variant"]["enum"] == names
    for listed in ("StatsByGame", "BestTimes", "WonDeals"):
        assert list(schemas[listed]["properties"]) == names, listed
    past = (f"t{len(COLUMN_NAMES) + 1}", f"c{len(CELL_NAMES) + 1}")
    for pile in ("Pile", "SourcePile", "MoveSource", "TargetPile", "MoveTarget"):
        pattern = re.compile(schemas[pile]["pattern"])
        assert all(pattern.match(name) for name in (*COLUMN_NAMES, *CELL_NAMES)), pile
        assert not any(pattern.match(name) for name in past), pile
    games = VARIANTS.values()
    state = schemas["GameState"]["properties"]
    assert state["tableau"]["minItems"] == min(cls.columns for cls in games)
    assert state["tableau"]["maxItems"] == max(cls.columns for cls in games)
    assert state["cells"]["maxItems"] == max(cls.cell_count for cls in games)
    rules = schemas["VariantRules"]["properties"]
    assert rules["columns"]["maximum"] == len(COLUMN_NAMES)
    assert rules["cells"]["maximum"] == len(CELL_NAMES)
