"""GET /v1/variants: the games as the engine's rule books describe them, so that a client
needs no copy of the rules to lay a game out or tell its player what moves."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from engine import MAX_DEAL, VARIANTS


async def test_the_variants_are_the_engines_rule_books(client: TestClient) -> None:
    r = await client.get("/v1/variants")
    assert r.status == 200, await r.text()
    listed = (await r.json())["variants"]
    assert [v["id"] for v in listed] == list(VARIANTS)
    for v in listed:
        cls = VARIANTS[v["id"]]
        assert (v["title"], v["columns"], v["cells"], v["column_word"], v["moves_runs"]) == (
            cls.title, cls.columns, cls.cell_count, cls.column_word, cls.moves_runs
        )
        assert v["deals"] == {"first": 1, "last": MAX_DEAL}
        # a deal of it is laid out so
        state = (await (await client.get(f"/v1/deals/{v['id']}/617")).json())["state"]
        assert (len(state["tableau"]), len(state["cells"])) == (v["columns"], v["cells"])
    # RULES.md: only FreeCell moves a run as one; Beleaguered Castle's columns are rows
    assert [v["id"] for v in listed if v["moves_runs"]] == ["freecell"]
    assert [v["id"] for v in listed if v["column_word"] == "row"] == ["beleaguered_castle"]
    again = await client.get("/v1/variants", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status == 304
