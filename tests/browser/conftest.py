"""The web client in headless Chromium (Debian's package) driven by Playwright, against the
service on a real port and a fresh database. Every test here is marked `browser`."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import Served, make_settings

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        await chromium.close()


@pytest.fixture
async def site(db_url: str) -> AsyncIterator[str]:
    """The service on 127.0.0.1 and a free port: its base URL."""
    from service.app import create_app

    server = Served(create_app(make_settings(db_url)), host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


class Pages:
    """Browser contexts (each its own localStorage: its own player) on the site."""

    def __init__(self, browser: Any, site: str) -> None:
        self.browser = browser
        self.site = site
        self.contexts: list[Any] = []
        self.errors: list[str] = []
        self.refused: list[str] = []  # "<status> <address>" of every answer of 400 and up

    async def new(self, width: int = 1280, height: int = 900, motion: str = "reduce") -> Any:
        context = await self.browser.new_context(
            base_url=self.site,
            viewport={"width": width, "height": height},
            reduced_motion=motion,
        )
        self.contexts.append(context)
        page = await context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("response", self._answered)
        return page

    def _answered(self, response: Any) -> None:
        if response.status >= 400:
            self.refused.append(f"{response.status} {response.url}")

    async def close(self) -> None:
        for context in self.contexts:
            await context.close()


@pytest.fixture
async def pages(browser: Any, site: str) -> AsyncIterator[Pages]:
    made = Pages(browser, site)
    yield made
    await made.close()
    assert not made.errors, f"uncaught errors in the page: {made.errors}"


@pytest.fixture
async def page(pages: Pages) -> Any:
    return await pages.new()


@pytest.fixture
async def http(site: str) -> AsyncIterator[aiohttp.ClientSession]:
    """A plain HTTP client on the same service, to check what the page shows."""
    async with aiohttp.ClientSession(base_url=site) as session:
        yield session


def screenshot_path(name: str) -> str:
    ARTIFACTS.mkdir(exist_ok=True)
    return str(ARTIFACTS / name)
