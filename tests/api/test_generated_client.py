"""A typed Python client generated from openapi.yaml (openapi-python-client, as `make
client` does) plays a whole game against the service: a player, a game, moves, a batch,
an undo, the game read back with its ETag, the deal's board."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from service.base.settings import ROOT

OPENAPI = ROOT / "openapi.yaml"


def generate(folder: Path) -> Any:
    """The generated package, imported from ``folder``."""
    tool = Path(sys.executable).with_name("openapi-python-client")
    subprocess.run(
        [str(tool), "generate", "--path", str(OPENAPI), "--meta", "none",
         "--output-path", str(folder / "solitaire_client"), "--overwrite"],
        check=True, capture_output=True, cwd=folder,
    )  # fmt: skip
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("solitaire_client")
    finally:
        sys.path.remove(str(folder))


async def test_a_whole_game_through_the_generated_client(
    client: TestClient, tmp_path: Path
) -> None:
    pkg = generate(tmp_path)
    api = importlib.import_module("solitaire_client.api")
    models = importlib.import_module("solitaire_client.models")
    create_player = importlib.import_module("solitaire_client.api.players.create_player")
    create_game = importlib.import_module("solitaire_client.api.games.create_game")
    legal = importlib.import_module("solitaire_client.api.games.list_legal_moves")
    play_move = importlib.import_module("solitaire_client.api.games.play_move")
    undo_move = importlib.import_module("solitaire_client.api.games.undo_move")
    get_game = importlib.import_module("solitaire_client.api.games.get_game")
    board = importlib.import_module("solitaire_client.api.leaderboards.get_leaderboard")
    assert api is not None

    base = str(client.make_url("/")).rstrip("/")
    anonymous = pkg.Client(base_url=base)
    made = await create_player.asyncio_detailed(
        client=anonymous, body=models.NewPlayer(name="ada")
    )
    assert made.status_code == 201, made.content
    me = pkg.AuthenticatedClient(base_url=base, token=made.parsed.token)

    started = await create_game.asyncio_detailed(
        client=me, body=models.NewGame(variant=models.Variant.FREECELL, deal=617, autoplay=False)
    )
    assert started.status_code == 201, started.content
    game = started.parsed  # the game, with its first events
    assert game.version == 1 and game.deal == 617

    moves = await legal.asyncio_detailed(game.id, client=me)
    assert moves.status_code == 200
    first = next(m for m in moves.parsed.moves if m.from_ == "t1" and m.to == "c1")
    one = await play_move.asyncio_detailed(
        game.id, client=me, body={"from": first.from_, "to": first.to, "count": first.count}
    )
    assert one.status_code == 201, one.content
    assert one.parsed.game.version == 2

    # a batch: the card from cell to cell, twice, in one request
    batch = models.BatchRequest(
        moves=[{"from": "c1", "to": "c2"}, {"from": "c2", "to": "c3"}], expected_version=2
    )
    both = await play_move.asyncio_detailed(game.id, client=me, body=batch)
    assert both.status_code == 201, both.content
    assert both.parsed.game.version == 4 and len(both.parsed.events) == 2

    back = await undo_move.asyncio_detailed(game.id, client=me)
    assert back.status_code == 201, back.content
    assert back.parsed.game.version == 5

    read = await get_game.asyncio_detailed(game.id, client=me)
    assert read.status_code == 200 and read.parsed.version == 5
    tag = read.headers["ETag"]
    again = await get_game.asyncio_detailed(game.id, client=me, if_none_match=tag)
    assert again.status_code == 304 and again.parsed is None

    entries = await board.asyncio_detailed(models.Variant.FREECELL, 617, client=me)
    assert entries.status_code == 200 and entries.parsed.entries == []
