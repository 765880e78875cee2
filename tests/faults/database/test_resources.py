"""The database short of resources or failing underneath (SQLSTATE classes 53 and 58: its
disk full, its memory out, an I/O error): a 503 with Retry-After, as while it is away, with
nothing of the request written; the service goes on by itself once the database has room
again.

A full disk is made here the way PostgreSQL reports one to its clients: the statement that
would write fails with `disk_full` (53100). A trigger on the log raises that error, the
real one, over the real protocol."""

from __future__ import annotations

import asyncpg
import pytest

from ...api.helpers import auth, instance, new_game, new_player

FULL = """
CREATE FUNCTION test_short_of() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'
  USING ERRCODE = TG_ARGV[0];
END $$;
"""


@pytest.mark.parametrize("state", ["disk_full", "out_of_memory", "io_error"])
async def test_a_database_short_of_room_answers_503_and_writes_nothing(
    db_url: str, state: str
) -> None:
    async with instance(db_url) as client:
        ada = await new_player(client)
        game = await new_game(client, ada, deal=617, autoplay=False)
        url = f"/v1/games/{game['id']}"
        conn = await asyncpg.connect(db_url)
        try:
            await conn.execute(FULL)
            await conn.execute(
                "CREATE TRIGGER short BEFORE INSERT ON game_events FOR EACH ROW"
                f" EXECUTE FUNCTION test_short_of('{state}')"
            )
            for body in ({"from": "t1", "to": "c"}, {"moves": [{"from": "t1", "to": "c"}]}):
                r = await client.post(f"{url}/moves", json=body,
                                      headers={**auth(ada), "Idempotency-Key": "k1"})  # fmt: skip
                assert r.status == 503, await r.text()
                assert r.headers["Retry-After"]
                assert (await r.json())["type"].endswith("/database-unavailable")
            r = await client.post("/v1/games", json={"variant": "freecell", "deal": 1},
                                  headers=auth(ada))  # fmt: skip
            assert r.status == 503, await r.text()
            assert (await (await client.get(url)).json())["version"] == 1  # nothing written
            await conn.execute("DROP TRIGGER short ON game_events")
        finally:
            await conn.close()
        # room again: the same move, retried with its key, is made once
        r = await client.post(f"{url}/moves", json={"from": "t1", "to": "c"},
                              headers={**auth(ada), "Idempotency-Key": "k1"})  # fmt: skip
        assert r.status == 201, await r.text()
        assert (await (await client.get(url)).json())["version"] == 2
