"""`GET …/legal-moves` lists the moves in the order its contract says (openapi.yaml): by
source pile, count, then destination, as `destinations` names a card's."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from engine import VARIANTS
from service.games.views import move_view

from ..helpers import new_game, new_player


async def test_the_legal_moves_are_listed_in_pile_order(client: TestClient) -> None:
    ada = await new_player(client)
    # Beleaguered Castle deal 3: the first column's card goes on t4, t7 and t8, which the
    # engine finds in another order
    game = await new_game(client, ada, variant="beleaguered_castle", deal=3, autoplay=False)
    url = f"/v1/games/{game['id']}"
    listed = (await (await client.get(f"{url}/legal-moves")).json())["moves"]
    position = VARIANTS["beleaguered_castle"].deal(3)
    assert listed == [move_view(m) for m in position.listed_moves()]
    assert [m["to"] for m in listed if m["from"] == "t1"] == ["t4", "t7", "t8"]
    r = await client.get(f"{url}/destinations?card=t1")
    assert (await r.json())["destinations"] == ["t4", "t7", "t8"]
