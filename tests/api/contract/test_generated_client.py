"""A typed Python client generated from openapi.yaml (openapi-python-client, as `make
client` does) plays a whole game to a win against the service: a player, a game, one
move, a batch, a hint, an undo and a redo, the winning batch, the game read back with its
ETag and a 304, the log as typed events, the deal's boards.

The generator must print no warning (every operation generated), and the generated
package must pass `mypy --strict`. Every answer the generated client receives is checked
against openapi.yaml too, as the aiohttp client's are (tests/openapi_check.py)."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import yaml
from aiohttp.test_utils import TestClient

from engine import Move
from service.base.settings import ROOT
from tests.openapi_check import validate_exchange

OPENAPI = ROOT / "openapi.yaml"
SOLUTIONS: dict[str, dict[str, str]] = json.loads(
    (ROOT / "tests" / "data" / "solutions.json").read_text()
)["solutions"]
METHODS = ("get", "put", "post", "delete", "patch")

MYPY_CONFIG = """\
[mypy]
strict = True
"""


def generate(folder: Path) -> tuple[Any, str]:
    """The generated package, imported from ``folder``, and what the generator printed.

    The generator runs with the virtualenv's tools on PATH, so that its post-hooks (ruff)
    run, as under `make client`."""
    tool = Path(sys.executable).with_name("openapi-python-client")
    env = {**os.environ, "PATH": f"{tool.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [str(tool), "generate", "--path", str(OPENAPI), "--meta", "none",
         "--config", str(OPENAPI.with_name("openapi-client.yaml")),
         "--output-path", str(folder / "solitaire_client"), "--overwrite"],
        check=True, capture_output=True, text=True, cwd=folder, env=env,
    )  # fmt: skip
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("solitaire_client"), done.stdout + done.stderr
    finally:
        sys.path.remove(str(folder))


def shortest(variant: str) -> tuple[int, list[Move]]:
    """The deal with the shortest known winning line (autoplay off), and that line."""
    deal, text = min(SOLUTIONS[variant].items(), key=lambda item: len(item[1].split()))
    return int(deal), [Move.parse(m) for m in text.split()]


async def check_against_the_description(response: httpx.Response) -> None:
    """An httpx response hook: the answer is one openapi.yaml documents."""
    body = await response.aread()
    request = response.request
    validate_exchange(request.method, request.url.path, dict(request.url.params),
                      response.status_code, response.headers, body)  # fmt: skip


def snake(operation_id: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation_id).lower()


async def test_a_game_won_through_the_generated_client(client: TestClient, tmp_path: Path) -> None:
    pkg, printed = generate(tmp_path)

    # the generator said nothing but what it generated: no warning, nothing left out
    lines = [line for line in printed.splitlines() if line.strip()]
    assert "warning" not in printed.lower(), printed
    assert lines == [f"Generating {tmp_path / 'solitaire_client'}"], printed
    spec = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                tag = operation["tags"][0]
                module = f"solitaire_client.api.{tag}.{snake(operation['operationId'])}"
                assert importlib.util.find_spec(module) is not None, f"{method} {path}"

    # no answer is typed Any (a 304's and a 204's parse as None), so mypy checks every one
    for module in (tmp_path / "solitaire_client" / "api").rglob("*.py"):
        untyped = re.findall(r"\bAny \||\| Any\b|cast\(Any", module.read_text())
        assert not untyped, f"{module.name}: {untyped}"

    # the generated package is clean under mypy --strict
    (tmp_path / "mypy.ini").write_text(MYPY_CONFIG)
    typed = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "solitaire_client"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert typed.returncode == 0, typed.stdout + typed.stderr
    assert typed.stdout.startswith("Success: no issues found"), typed.stdout

    models = importlib.import_module("solitaire_client.models")
    create_player = importlib.import_module("solitaire_client.api.players.create_player")
    get_player = importlib.import_module("solitaire_client.api.players.get_player")
    create_game = importlib.import_module("solitaire_client.api.games.create_game")
    legal = importlib.import_module("solitaire_client.api.games.list_legal_moves")
    destinations = importlib.import_module("solitaire_client.api.games.list_destinations")
    play_move = importlib.import_module("solitaire_client.api.games.play_move")
    undo_move = importlib.import_module("solitaire_client.api.games.undo_move")
    redo_move = importlib.import_module("solitaire_client.api.games.redo_move")
    get_game = importlib.import_module("solitaire_client.api.games.get_game")
    list_events = importlib.import_module("solitaire_client.api.games.list_events")
    give_hint = importlib.import_module("solitaire_client.api.solver.give_hint")
    board = importlib.import_module("solitaire_client.api.leaderboards.get_leaderboard")
    describe = importlib.import_module("solitaire_client.api.meta.openapi")

    base = str(client.make_url("/")).rstrip("/")
    hooks = {"event_hooks": {"response": [check_against_the_description]}}
    anonymous = pkg.Client(base_url=base, httpx_args=hooks)
    made = await create_player.asyncio_detailed(client=anonymous, body=models.NewPlayer(name="ada"))
    assert made.status_code == 201, made.content
    assert isinstance(made.parsed, models.NewPlayerAnswer)
    me = pkg.AuthenticatedClient(base_url=base, token=made.parsed.token, httpx_args=hooks)

    deal, line = shortest("freecell")
    started = await create_game.asyncio_detailed(
        client=me, body=models.NewGame(variant=models.Variant.FREECELL, deal=deal, autoplay=False)
    )
    assert started.status_code == 201, started.content
    game = started.parsed  # the game, with its first events
    assert isinstance(game, models.NewGameAnswer)
    assert game.version == 1 and game.deal == deal
    assert game.state.foundations["S"] == 0
    created = game.events[0]
    assert isinstance(created, models.GameCreatedEvent)
    assert created.data.variant == models.Variant.FREECELL and created.data.deal == deal

    # the first move as one move, from the legal ones
    moves = await legal.asyncio_detailed(game.id, client=anonymous)
    assert isinstance(moves.parsed, models.LegalMoves)
    first = line[0]
    assert any(
        (m.from_, m.to, m.count) == (first.source, first.target, first.count)
        for m in moves.parsed.moves
    )
    where = await destinations.asyncio_detailed(game.id, client=anonymous, card=first.source)
    assert isinstance(where.parsed, models.CardDestinations)
    assert first.target in where.parsed.destinations
    one = await play_move.asyncio_detailed(
        game.id, client=me,
        body=models.MoveRequest(from_=first.source, to=first.target, count=first.count,
                                expected_version=1),
    )  # fmt: skip
    assert one.status_code == 201, one.content
    assert isinstance(one.parsed, models.WriteAnswer)
    assert one.parsed.game.version == 2
    assert [type(e) for e in one.parsed.events] == [models.CardMovedEvent]
    moved = one.parsed.events[0].data
    assert (moved.from_, moved.to, moved.auto) == (first.source, first.target, False)

    # a batch: the next nine moves in one request
    batch = models.BatchRequest(
        moves=[models.OneMove(from_=m.source, to=m.target, count=m.count) for m in line[1:10]],
        expected_version=2,
    )
    nine = await play_move.asyncio_detailed(game.id, client=me, body=batch)
    assert nine.status_code == 201, nine.content
    assert isinstance(nine.parsed, models.WriteAnswer)
    version = nine.parsed.game.version
    assert version == 11 and len(nine.parsed.events) == 9

    # a hint, recorded in the game's log
    hinted = await give_hint.asyncio_detailed(game.id, client=me)
    assert hinted.status_code == 201, hinted.content
    hint = hinted.parsed
    assert isinstance(hint, models.HintAnswer)
    assert hint.verdict in (models.HintVerdict.WINNABLE, models.HintVerdict.UNKNOWN)
    assert isinstance(hint.events[0], models.HintGivenEvent)
    assert hint.events[0].data.verdict.value == hint.verdict.value
    version = hint.game.version

    # an undo and a redo of the last move of the batch
    back = await undo_move.asyncio_detailed(
        game.id, client=me, body=models.VersionedRequest(expected_version=version)
    )
    assert back.status_code == 201, back.content
    assert isinstance(back.parsed, models.WriteAnswer)
    undone = back.parsed.events[0]
    assert isinstance(undone, models.MoveUndoneEvent)
    assert undone.data.moves[0].from_ == line[9].source
    again = await redo_move.asyncio_detailed(game.id, client=me)
    assert again.status_code == 201, again.content
    assert isinstance(again.parsed, models.WriteAnswer)
    assert isinstance(again.parsed.events[0], models.MoveRedoneEvent)
    version = again.parsed.game.version

    # the rest of the line in one batch wins the game
    rest = models.BatchRequest(
        moves=[models.OneMove(from_=m.source, to=m.target, count=m.count) for m in line[10:]],
        expected_version=version,
    )
    won = await play_move.asyncio_detailed(game.id, client=me, body=rest)
    assert won.status_code == 201, won.content
    assert isinstance(won.parsed, models.WriteAnswer)
    assert won.parsed.game.status == models.GameStatus.WON
    assert isinstance(won.parsed.events[-1], models.GameWonEvent)
    final = won.parsed.game.version

    # the game read back, then a 304 with its ETag
    read = await get_game.asyncio_detailed(game.id, client=anonymous)
    assert read.status_code == 200 and isinstance(read.parsed, models.Game)
    assert read.parsed.version == final and read.parsed.foundation_cards == 52
    assert read.parsed.state.foundations.to_dict() == {"S": 13, "H": 13, "D": 13, "C": 13}
    tag = read.headers["ETag"]
    same = await get_game.asyncio_detailed(game.id, client=anonymous, if_none_match=tag)
    assert same.status_code == 304 and same.parsed is None

    # the log, every event typed by its `type`
    log = await list_events.asyncio_detailed(game.id, client=anonymous)
    assert isinstance(log.parsed, models.EventList)
    events = log.parsed.events
    assert [e.seq for e in events] == list(range(1, final + 1))
    kinds = {type(e).__name__ for e in events}
    assert kinds == {"GameCreatedEvent", "CardMovedEvent", "HintGivenEvent",
                     "MoveUndoneEvent", "MoveRedoneEvent", "GameWonEvent"}  # fmt: skip
    assert all(e.type_ == type(e).__name__.removesuffix("Event") for e in events)

    # the deal's boards, public: read without a token
    every = await board.asyncio_detailed(
        models.Variant.FREECELL, deal, client=anonymous, assisted=True
    )
    assert every.status_code == 200 and isinstance(every.parsed, models.Leaderboard)
    assert [e.game_id for e in every.parsed.entries] == [game.id]
    record = await get_player.asyncio_detailed(made.parsed.id, client=anonymous)
    assert isinstance(record.parsed, models.PlayerRecord)
    assert record.parsed.won + record.parsed.won_assisted == 1

    # the description itself, as JSON
    document = await describe.asyncio_detailed(client=anonymous)
    assert isinstance(document.parsed, models.OpenApiDocument)
    assert document.parsed.openapi == "3.1.0"
