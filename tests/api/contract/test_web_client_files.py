"""GET / and /static/…: the web client's files, served as they are in service/webclient/static/."""

from __future__ import annotations

from aiohttp.test_utils import TestClient


async def test_the_page_is_served_at_the_root(client: TestClient) -> None:
    r = await client.get("/")
    assert r.status == 200
    assert r.content_type == "text/html"
    assert r.headers["Cache-Control"] == "no-cache"
    page = await r.text()
    for marker in ('data-field="status"', 'data-field="moves"', 'data-field="time"',
                   'data-field="foundation_cards"', 'src="/static/main.js"'):
        assert marker in page
    # any query string opens the same page; the script reads it
    assert (await client.get("/?variant=freecell&deal=617")).status == 200


async def test_scripts_and_styles_are_served_with_their_types(client: TestClient) -> None:
    for path, kind in (
        ("/static/main.js", "text/javascript"),
        ("/static/table/board.js", "text/javascript"),
        ("/static/style.css", "text/css"),
        ("/static/panels.css", "text/css"),
    ):
        r = await client.get(path)
        assert r.status == 200, path
        assert r.content_type == kind
        etag = r.headers["ETag"]
        again = await client.get(path, headers={"If-None-Match": etag})
        assert again.status == 304


async def test_nothing_outside_the_static_folder_is_served(client: TestClient) -> None:
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/nothing.js",
                 "/static/js/main.js"):
        r = await client.get(path, allow_redirects=False)
        assert r.status == 404, path
        assert r.content_type == "application/problem+json"


async def test_a_range_is_ignored_and_the_file_comes_whole(client: TestClient) -> None:
    """RFC 9110 lets a server ignore a Range: the page's files come whole (200), never a
    416 without a problem, nor a part of a file whose tag is not the client's (If-Range)."""
    whole = await (await client.get("/static/main.js")).read()
    for headers in ({"Range": "bytes=999999999-"}, {"Range": "bytes=0-0,5-6"},
                    {"Range": "bytes=0-10", "If-Range": '"an-old-tag"'},
                    {"Range": "bytes=0-10"}):
        for path in ("/", "/static/main.js"):
            r = await client.get(path, headers=headers)
            assert r.status == 200, (path, headers, r.status)
            assert "Content-Range" not in r.headers
        assert await r.read() == whole
