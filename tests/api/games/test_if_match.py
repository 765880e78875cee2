"""A write conditioned by HTTP's own precondition (RFC 9110, 13.1.1): `If-Match` with the
game's ETag is what `expected_version` is, answered 412 where the game no longer has the
tag (docs/api-guide.md, "Moves"; openapi.yaml's IfMatch)."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from service.games.queries import view_tag
from service.games.schemas import NO_TAG, TaggedVersion, expected

from ..helpers import auth, etag_of, get, instance, new_game, new_player, post


async def test_a_write_with_the_games_etag_is_played_and_a_stale_one_is_412(
    client: TestClient,
) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}"
    first = await etag_of(client, url)
    await post(client, ada, f"{url}/moves", {"from": "t1", "to": "c"}, **{"If-Match": first})
    second = await etag_of(client, url)
    assert second != first
    # every write of the game takes it: a move, a batch, an undo, a redo, an abandonment
    # and a hint; each with the first tag is 412, and appends nothing
    for path, body in [("moves", {"from": "t2", "to": "c"}),
                       ("moves", {"moves": [{"from": "t2", "to": "c"}]}),
                       ("undo", {}), ("redo", {}), ("abandon", {}), ("hint", {})]:  # fmt: skip
        problem = await post(client, ada, f"{url}/{path}", body, 412, **{"If-Match": first})
        assert problem["type"].endswith("/precondition-failed"), problem
        assert problem["title"] == "Precondition Failed"
        assert problem["current_version"] == 2
        assert problem["detail"] == (
            "the game is at version 2, and If-Match names an ETag of another version; reload"
            " it (its ETag) and try again"
        )
    assert (await get(client, url))["version"] == 2
    # the current tag, among others or as "*": written
    undone = await post(client, ada, f"{url}/undo", {}, **{"If-Match": f'"x", {second}'})
    assert undone["game"]["version"] == 3
    redone = await post(client, ada, f"{url}/redo", {}, **{"If-Match": "*"})
    assert redone["game"]["version"] == 4


async def test_a_tag_that_is_not_the_games_never_holds(client: TestClient) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    other = await new_game(client, ada, deal=618, autoplay=False)
    url = f"/v1/games/{game['id']}"
    tag = await etag_of(client, url)
    for field in [await etag_of(client, f"/v1/games/{other['id']}"),  # another game's
                  f"W/{tag}",  # a weak tag: never equal by the strong comparison
                  await etag_of(client, f"{url}/legal-moves"),  # another resource's
                  tag.strip('"'), '""']:  # fmt: skip
        problem = await post(client, ada, f"{url}/moves", {"from": "t1", "to": "c"}, 412,
                                **{"If-Match": field})  # fmt: skip
        assert problem["detail"] == (
            "the game is at version 1, and If-Match names no ETag of it; reload it (its"
            " ETag) and try again"
        ), field
    assert (await get(client, url))["version"] == 1


async def test_any_tag_of_a_list_may_match_and_expected_version_must_be_one(
    client: TestClient,
) -> None:
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}"
    tag = await etag_of(client, url)
    move = {"from": "t1", "to": "c", "expected_version": 3}
    problem = await post(client, ada, f"{url}/moves", move, 400, **{"If-Match": tag})
    assert problem["detail"] == (
        "expected_version 3 is none of the versions If-Match's ETags name; send one of the two"
    )
    move["expected_version"] = 1
    await post(client, ada, f"{url}/moves", move, **{"If-Match": tag})
    # an old tag beside the current one: the current matches (RFC 9110, 13.1.1)
    both = f'"{game["id"]}.1", "{game["id"]}.2"'
    await post(client, ada, f"{url}/undo", {}, **{"If-Match": both})  # at 2: now 3
    # the field's lines are one list: the matching tag counts on either line
    for path, lines in (("redo", ['"{id}.3"', '"{id}.1"']), ("undo", ['"{id}.1"', '"{id}.4"'])):
        headers = [*auth(ada).items(), *(("If-Match", t.format(id=game["id"])) for t in lines)]
        r = await client.post(f"{url}/{path}", json={}, headers=headers)
        assert r.status == 201, await r.text()
    # a tag as the service never writes it (a version with a leading zero) is none of its
    problem = await post(client, ada, f"{url}/undo", {}, 412,
                         **{"If-Match": f'"{game["id"]}.05"'})  # fmt: skip
    assert problem["current_version"] == 5


async def test_a_412_under_a_key_is_its_first_answer(client: TestClient) -> None:
    """As a stale expected_version's 409: the refusal stands for its key, even once the
    game is back at the tag's version."""
    ada = await new_player(client)
    game = await new_game(client, ada, deal=617, autoplay=False)
    url = f"/v1/games/{game['id']}"
    start = await etag_of(client, url)
    await post(client, ada, f"{url}/moves", {"from": "t1", "to": "c"})
    headers = {"If-Match": start, "Idempotency-Key": "k-412"}
    first = await post(client, ada, f"{url}/moves", {"from": "t2", "to": "c"}, 412,
                          **headers)  # fmt: skip
    await post(client, ada, f"{url}/undo", {})
    r = await client.post(f"{url}/moves", json={"from": "t2", "to": "c"},
                          headers={**auth(ada), **headers})  # fmt: skip
    assert (r.status, await r.json(), r.headers["Idempotent-Replayed"]) == (412, first, "true")


async def test_a_tag_another_instance_made_is_judged_by_the_log(db_url: str) -> None:
    """Instance a holds the game at version 1 in memory; b moves it: a write on a with b's
    tag is played (memory's refusal is judged again on the log), and with a's stale tag
    it is 412 by the log."""
    async with instance(db_url) as a, instance(db_url) as b:
        ada = await new_player(a)
        game = await new_game(a, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        stale = await etag_of(a, url)
        await post(b, ada, f"{url}/moves", {"from": "t1", "to": "c"})
        fresh = await etag_of(b, url)
        problem = await post(a, ada, f"{url}/moves", {"from": "t2", "to": "c"}, 412,
                                **{"If-Match": stale})  # fmt: skip
        assert problem["current_version"] == 2
        moved = await post(a, ada, f"{url}/moves", {"from": "t2", "to": "c"},
                           **{"If-Match": fresh})  # fmt: skip
        assert moved["game"]["version"] == 3


def test_the_tags_read_are_the_tags_written() -> None:
    """expected() reads the tags queries.view_tag writes (a won game's with its standing)."""
    gid = "0f8fad5b-d9cb-469f-a165-70867728950e"
    import uuid

    game_id = uuid.UUID(gid)
    for view in [{"id": gid, "version": 7},
                 {"id": gid, "version": 12, "standing": {"rank": 3, "of": 40}}]:  # fmt: skip
        tagged = expected(None, [f'"{view_tag(view)}"'], game_id)
        assert isinstance(tagged, TaggedVersion) and tagged.versions == {view["version"]}
    assert expected(None, [f'"{view_tag({"id": gid, "version": 7})}"'], uuid.uuid4()) == NO_TAG
    assert expected(5, [], game_id) == 5 and expected(5, [" * "], game_id) == 5
