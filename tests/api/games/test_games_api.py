"""The HTTP API end to end through aiohttp's test client, against a real PostgreSQL."""

from __future__ import annotations

import gzip
import uuid

from aiohttp.test_utils import TestClient

from ..helpers import auth, new_game, new_player

DEAL_617_T1 = ["7D", "TD", "TH", "KD", "4C", "4S", "JD"]


async def test_player_and_game_617(client: TestClient) -> None:
    ada = await new_player(client)
    assert set(ada) >= {"id", "name", "token"}
    game = await new_game(client, ada, deal=617, autoplay=False)
    assert game["variant"] == "freecell" and game["deal"] == 617
    assert game["status"] == "playing" and game["version"] == 1 and game["moves"] == 0
    assert game["state"]["tableau"][0] == DEAL_617_T1
    assert game["state"]["cells"] == [None] * 4
    assert game["state"]["foundations"] == {"S": 0, "H": 0, "D": 0, "C": 0}
    r = await client.get(f"/v1/games/{game['id']}")
    assert r.status == 200
    assert (await r.json())["state"] == game["state"]


async def test_move_undo_redo_and_events(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    gid = game["id"]
    r = await client.post(
        f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"}, headers=auth(ada)
    )
    assert r.status == 201, await r.text()
    body = await r.json()
    assert body["game"]["version"] == 2 and body["game"]["moves"] == 1
    assert body["game"]["state"]["cells"][0] == "JD"
    assert [e["seq"] for e in body["events"]] == [2]
    assert body["events"][0]["type"] == "CardMoved"

    r = await client.post(f"/v1/games/{gid}/undo", json={"expected_version": 2}, headers=auth(ada))
    assert r.status == 201, await r.text()
    undone = await r.json()
    assert undone["game"]["state"] == game["state"] and undone["game"]["moves"] == 0

    r = await client.post(f"/v1/games/{gid}/undo", json={}, headers=auth(ada))
    assert r.status == 409
    assert r.content_type == "application/problem+json"

    r = await client.post(f"/v1/games/{gid}/redo", json={}, headers=auth(ada))
    assert r.status == 201, await r.text()
    assert (await r.json())["game"]["state"]["cells"][0] == "JD"

    r = await client.get(f"/v1/games/{gid}/events")
    events = (await r.json())["events"]
    assert [e["seq"] for e in events] == [1, 2, 3, 4]
    assert [e["type"] for e in events] == ["GameCreated", "CardMoved", "MoveUndone", "MoveRedone"]
    r = await client.get(f"/v1/games/{gid}/events?after=2")
    assert [e["seq"] for e in (await r.json())["events"]] == [3, 4]
    # a board's way to page (`cursor`), or other APIs' (`offset`, `page`, `skip`), is a
    # slip, not the first page again; the race's log and the game's stream page as the
    # game's log does
    for url in (f"/v1/games/{gid}/events?cursor=2", f"/v1/races/{uuid.uuid4()}/events?cursor=2",
                f"/v1/games/{gid}/events?offset=2", f"/v1/games/{gid}/events?page=2",
                f"/v1/races/{uuid.uuid4()}/events?skip=2", f"/v1/games/{gid}/stream?cursor=2"):
        r = await client.get(url)
        assert r.status == 400 and "'after'" in (await r.json())["detail"], url


async def test_illegal_and_malformed_moves(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    gid = game["id"]
    # JD onto the top of t2 is not one rank lower and of the other colour
    r = await client.post(
        f"/v1/games/{gid}/moves", json={"from": "t1", "to": "t2"}, headers=auth(ada)
    )
    assert r.status == 422
    problem = await r.json()
    assert r.content_type == "application/problem+json"
    assert problem["status"] == 422 and "cannot go on" in problem["detail"]
    for bad in (
        {"from": "t99", "to": "c"},
        {"from": "t1", "to": "t2", "count": 0},
        {"to": "c"},
        {"from": "t1"},
        {"from": 3, "to": "c"},
        [],
    ):
        r = await client.post(f"/v1/games/{gid}/moves", json=bad, headers=auth(ada))
        assert r.status == 400, (bad, await r.text())
        assert (await r.json())["detail"]
    r = await client.post(
        f"/v1/games/{gid}/moves",
        data=b"{not json",
        headers={**auth(ada), "Content-Type": "application/json"},
    )
    assert r.status == 400
    r = await client.get(f"/v1/games/{gid}/events")
    assert len((await r.json())["events"]) == 1


async def test_auth_and_ownership(client: TestClient) -> None:
    ada = await new_player(client)
    bob = await new_player(client, "bob")
    game = await new_game(client, ada, deal=1)
    url = f"/v1/games/{game['id']}/moves"
    assert (await client.post(url, json={"from": "t1", "to": "c"})).status == 401
    r = await client.post(
        url, json={"from": "t1", "to": "c"}, headers={"Authorization": "Bearer nope"}
    )
    assert r.status == 401
    assert (await client.post(url, json={"from": "t1", "to": "c"}, headers=auth(bob))).status == 403
    assert (await client.get(f"/v1/games/{game['id']}")).status == 200  # reads are public
    # a key bob used on his own game changes nothing of that: someone else's game is 403,
    # no game 404 (no write of his with that key can have been there)
    own = await new_game(client, bob, deal=1)
    keyed = {**auth(bob), "Idempotency-Key": "bob-1"}
    r = await client.post(f"/v1/games/{own['id']}/moves", json={"from": "t1", "to": "c"},
                          headers=keyed)  # fmt: skip
    assert r.status == 201
    for path, status in ((url, 403), (f"/v1/games/{uuid.uuid4()}/moves", 404),
                         (f"/v1/games/{game['id']}/abandon", 403)):  # fmt: skip
        body = {} if path.endswith("abandon") else {"from": "t1", "to": "c"}
        r = await client.post(path, json=body, headers=keyed)
        assert r.status == status, (path, await r.text())


async def test_expected_version_conflict(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}/moves"
    r = await client.post(
        url, json={"from": "t1", "to": "c", "expected_version": 5}, headers=auth(ada)
    )
    assert r.status == 409
    assert (await r.json())["current_version"] == 1
    r = await client.post(
        url, json={"from": "t1", "to": "c", "expected_version": 1}, headers=auth(ada)
    )
    assert r.status == 201


async def test_idempotency_key(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}/moves"
    h = {**auth(ada), "Idempotency-Key": "move-1"}
    first = await client.post(url, json={"from": "t1", "to": "c"}, headers=h)
    assert first.status == 201
    again = await client.post(url, json={"from": "t1", "to": "c"}, headers=h)
    assert again.status == 201
    assert await again.read() == await first.read()  # byte for byte
    # the first answer given again says so; the first one did not
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    other = await client.post(url, json={"from": "t2", "to": "c"}, headers=h)
    assert other.status == 422
    r = await client.get(f"/v1/games/{game['id']}/events")
    assert len((await r.json())["events"]) == 2
    # the game moves on; a late retry still gets its first answer and appends nothing
    moved = await client.post(url, json={"from": "t2", "to": "c"}, headers=auth(ada))
    assert moved.status == 201
    late = await client.post(url, json={"from": "t1", "to": "c"}, headers=h)
    assert late.status == 201 and await late.read() == await first.read()
    r = await client.get(f"/v1/games/{game['id']}/events")
    assert len((await r.json())["events"]) == 3



async def test_a_retry_that_spells_out_the_defaults_is_the_same_request(
    client: TestClient,
) -> None:
    """API.md: `count` defaults to 1 and `expected_version` is optional; a retry that
    writes the default, orders its keys otherwise or sends null for an optional field is
    the request it retries, and gets its answer."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}/moves"
    h = {**auth(ada), "Idempotency-Key": "spelled"}
    first = await client.post(url, json={"from": "t1", "to": "c"}, headers=h)
    assert first.status == 201
    for retry in (
        {"from": "t1", "to": "c", "count": 1},
        {"to": "c", "from": "t1", "expected_version": None},
    ):
        again = await client.post(url, json=retry, headers=h)
        assert again.status == 201, retry
        assert await again.json() == await first.json()
    # a count other than the default is another request
    other = await client.post(url, json={"from": "t1", "to": "c", "count": 2}, headers=h)
    assert other.status == 422
    # a new game's `autoplay: true` is its default too
    h = {**auth(ada), "Idempotency-Key": "new-game"}
    created = await client.post("/v1/games", json={"variant": "freecell", "deal": 5}, headers=h)
    assert created.status == 201
    spelled = {"variant": "freecell", "deal": 5, "autoplay": True, "grade": None}
    again = await client.post("/v1/games", json=spelled, headers=h)
    assert again.status == 201 and (await again.json())["id"] == (await created.json())["id"]
    # the game's id written in capitals, or without its dashes, is the same game
    h = {**auth(ada), "Idempotency-Key": "spelled"}
    for spelled_id in (game["id"].upper(), game["id"].replace("-", "")):
        again = await client.post(f"/v1/games/{spelled_id}/moves",
                                  json={"from": "t1", "to": "c"}, headers=h)
        assert again.status == 201, await again.text()
        assert await again.json() == await first.json()
    r = await client.get(f"/v1/games/{game['id']}/events")
    assert len((await r.json())["events"]) == 2

async def test_deals_and_ranges(client: TestClient) -> None:
    ada = await new_player(client)
    for deal in (0, -1, 8589934592):
        r = await client.post(
            "/v1/games", json={"variant": "freecell", "deal": deal}, headers=auth(ada)
        )
        assert r.status == 422, deal
    r = await client.post("/v1/games", json={"variant": "klondike"}, headers=auth(ada))
    assert r.status == 400
    r = await client.get("/v1/deals/freecell/617")
    assert r.status == 200
    assert (await r.json())["state"]["tableau"][0] == DEAL_617_T1
    r = await client.get("/v1/deals/bakers_dozen/5")
    assert len((await r.json())["state"]["tableau"]) == 13
    r = await client.get("/v1/deals/beleaguered_castle/5")
    body = await r.json()
    assert body["state"]["foundations"] == {"S": 1, "H": 1, "D": 1, "C": 1}
    assert body["state"]["cells"] == []
    g = await new_game(client, ada)
    assert 1 <= g["deal"] <= 32000 and g["deal"] != 11982


async def test_legal_moves_and_autoplay(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, variant="bakers_game", deal=3)
    r = await client.get(f"/v1/games/{game['id']}/legal-moves")
    body = await r.json()
    assert body["version"] == game["version"] and body["moves"]
    for m in body["moves"][:5]:
        assert set(m) == {"from", "to", "count"}


async def test_errors_are_problems(client: TestClient) -> None:
    r = await client.get("/nowhere")
    assert r.status == 404 and r.content_type == "application/problem+json"
    r = await client.delete("/v1/players")
    assert r.status == 405 and (await r.json())["detail"]
    r = await client.get("/v1/games/not-a-uuid")
    assert r.status == 404
    r = await client.get("/v1/games/00000000-0000-0000-0000-000000000000")
    assert r.status == 404
    r = await client.post(
        "/v1/players", data=b"x" * (70 * 1024), headers={"Content-Type": "application/json"}
    )
    assert r.status == 413
    r = await client.post(
        "/v1/players", data=b"\xff\xfe", headers={"Content-Type": "application/json"}
    )
    assert r.status == 400
    r = await client.post(
        "/v1/players",
        data=b"name=ada",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status == 415
    # JSON cut short, as `curl -d` sends it (form encoding declared): malformed, a 400
    for body in (b'{"name": "ada"', b' [1, ', b'{name: "ada"}'):
        r = await client.post("/v1/players", data=body, headers={
            "Content-Type": "application/x-www-form-urlencoded"})
        assert r.status == 400, (body, await r.text())
        assert "not valid JSON" in (await r.json())["detail"]
    r = await client.get("/healthz")
    assert r.status == 200
    r = await client.get("/metrics")
    assert r.status == 200 and "solitaire_http_requests_total" in await r.text()


async def test_a_body_that_is_not_what_its_content_encoding_says_is_a_400(
    client: TestClient,
) -> None:
    """A body that does not decompress as its Content-Encoding says cannot be read: a 400
    that says so (not a 500), whichever route reads it; a body that does is read."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    json_gzip = {**auth(ada), "Content-Type": "application/json", "Content-Encoding": "gzip"}
    for url, body in [
        ("/v1/games", b"abcd"),
        ("/v1/games", gzip.compress(b'{"variant": "freecell"}')[:-12] + b"not gzip" * 100),
        (f"/v1/games/{game['id']}/moves", b"abcd"),
        ("/v1/players", b"\x1f\x8b" + b"\x00" * 30),
    ]:
        r = await client.post(url, data=body, headers=json_gzip)
        assert r.status == 400, (url, r.status, await r.text())
        assert r.content_type == "application/problem+json"
        problem = await r.json()
        assert problem["status"] == 400 and "Content-Encoding (gzip)" in problem["detail"]
    r = await client.post("/v1/games", data=gzip.compress(b'{"variant": "freecell"}'),
                          headers=json_gzip)
    assert r.status == 201, await r.text()
    # codings stacked, or one aiohttp does not undo: 415, which says what is taken
    twice = gzip.compress(gzip.compress(b'{"variant": "freecell"}'))
    # (two header lines of gzip: aiohttp would undo the last alone)
    plain = [(k, v) for k, v in json_gzip.items() if k != "Content-Encoding"]
    for codings in (["gzip, gzip"], ["identity, gzip"], ["compress"], ["gzip", "gzip"]):
        r = await client.post("/v1/games", data=twice, headers=[
            *plain, *(("Content-Encoding", coding) for coding in codings)])  # fmt: skip
        assert r.status == 415, (codings, await r.text())
        assert "gzip or deflate, once" in (await r.json())["detail"]


async def test_blocked_then_undo_then_abandon_times_agree_with_the_log(db_url: str) -> None:
    """finished_at follows the game's end: blocked (undo leaves it), then abandoned; a new
    instance that replays the log says the same."""


    from service.app import create_app
    from tests.conftest import Served, make_settings

    async with TestClient(Served(create_app(make_settings(db_url)))) as a:
        ada = await new_player(a)
        # Beleaguered Castle deal 6: row 7's free card onto row 2 leaves no legal move
        game = await new_game(a, ada, variant="beleaguered_castle", deal=6)
        url = f"/v1/games/{game['id']}"
        r = await a.post(f"{url}/moves", json={"from": "t7", "to": "t2"}, headers=auth(ada))
        blocked = (await r.json())["game"]
        assert blocked["status"] == "blocked" and blocked["finished_at"] is not None
        assert (await (await a.get(f"{url}/legal-moves")).json())["moves"] == []
        r = await a.post(f"{url}/moves", json={"from": "t1", "to": "t2"}, headers=auth(ada))
        assert r.status == 422
        undone = (await (await a.post(f"{url}/undo", headers=auth(ada))).json())["game"]
        assert undone["status"] == "playing" and undone["finished_at"] is None
        await a.post(f"{url}/redo", headers=auth(ada))
        r = await a.post(f"{url}/abandon", headers=auth(ada))
        abandoned = (await r.json())["game"]
        assert abandoned["status"] == "abandoned"
        events = (await (await a.get(f"{url}/events")).json())["events"]
        assert abandoned["finished_at"] == events[-1]["at"]
        assert (await a.post(f"{url}/undo", headers=auth(ada))).status == 409
    async with TestClient(Served(create_app(make_settings(db_url)))) as b:
        again = await (await b.get(url)).json()
        assert again == {**abandoned, "can_undo": again["can_undo"]}


async def test_a_move_from_a_pile_onto_itself_is_illegal(client: TestClient) -> None:
    """Well formed, and against the rules: 422, with the rule in words, nothing appended."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=1, autoplay=False)
    url = f"/v1/games/{game['id']}/moves"
    for body in ({"from": "t4", "to": "t4"}, {"card": game["state"]["tableau"][3][-1], "to": "t4"}):
        r = await client.post(url, json=body, headers=auth(ada))
        assert r.status == 422, await r.text()
        problem = await r.json()
        assert problem["type"].endswith("illegal-move")
        assert "column 4 cannot take its own card" in problem["detail"]
    r = await client.get(f"/v1/games/{game['id']}")
    assert (await r.json())["version"] == game["version"]


async def test_a_move_from_the_foundations_is_illegal(client: TestClient) -> None:
    """`f` is a pile, whose cards never leave it: 422 with the rule, as openapi.yaml's
    MoveSource says, nothing appended."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=1, autoplay=False)
    r = await client.post(f"/v1/games/{game['id']}/moves", json={"from": "f", "to": "c1"},
                          headers=auth(ada))
    assert r.status == 422, await r.text()
    problem = await r.json()
    assert problem["type"].endswith("illegal-move") and "never leaves" in problem["detail"]
    r = await client.get(f"/v1/games/{game['id']}")
    assert (await r.json())["version"] == game["version"]


async def test_a_card_is_written_as_the_contract_writes_it(client: TestClient) -> None:
    """openapi.yaml's Card is `TH`: `10H`, lower case and spaces are malformed (400, saying
    how to write it), in a move, a batch and the destinations' query, and nothing is
    appended; the card as written moves."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=1, autoplay=False)
    url = f"/v1/games/{game['id']}"
    free = game["state"]["tableau"][7][-1]  # deal 1: TC, whose rank is a ten
    assert free == "TC"
    for card in ("10C", "tc", "Tc", " TC", "TC "):
        for body in ({"card": card, "to": "c"}, {"moves": [{"card": card, "to": "c"}]}):
            r = await client.post(f"{url}/moves", json=body, headers=auth(ada))
            assert r.status == 400, (body, await r.text())
            assert "TC" in (await r.json())["detail"], body
        r = await client.get(f"{url}/destinations", params={"card": card})
        assert r.status == 400, (card, await r.text())
    r = await client.get(f"{url}/destinations", params={"card": "t8"})
    assert r.status == 200 and "c1" in (await r.json())["destinations"]
    r = await client.get(f"{url}/destinations?card=t8&card=t1")
    assert r.status == 400 and "once, not 2 times" in (await r.json())["detail"]
    assert (await (await client.get(url)).json())["version"] == 1
    r = await client.post(f"{url}/moves", json={"card": "TC", "to": "c"}, headers=auth(ada))
    assert r.status == 201 and (await r.json())["game"]["state"]["cells"][0] == "TC"
