"""A real headless Chromium and a real catalog server (`serve_http`) for the browser tests.

``make test`` installs Debian's ``chromium`` when it is missing; under ``CI`` a missing
browser fails the tests, elsewhere they are skipped with the reason printed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.support import (
    CHROMIUM_FLAGS,
    INSTALL_HINT,
    TOKEN,
    VIEWPORT,
    CatalogServer,
    catalog_registry,
    find_chromium,
)

CHROMIUM = find_chromium()
IN_CI = bool(os.environ.get("CI"))
if CHROMIUM is None and not IN_CI:
    print(f"skipping the catalog browser tests: {INSTALL_HINT}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every browser test slow; without Chromium, skip them outside CI.

    Under CI the test command installs Chromium, so its absence fails each test instead
    (in the `browser` fixture), with the same message.
    """
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.slow)
            if CHROMIUM is None and not IN_CI:
                item.add_marker(pytest.mark.skip(reason=INSTALL_HINT))


@pytest.fixture(scope="module")
def catalog() -> Iterator[CatalogServer]:
    """One catalog server with a bearer token for the whole module."""
    server = CatalogServer(catalog_registry(), token=TOKEN)
    try:
        yield server
    finally:
        server.stop()


# ------------------------------------------------------------------ the browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole module."""
    from playwright.sync_api import sync_playwright

    if CHROMIUM is None:  # only under CI: elsewhere the tests are skipped at collection
        pytest.fail(INSTALL_HINT, pytrace=False)
    with sync_playwright() as playwright:
        # Each launch gets a fresh temporary profile (user-data-dir) from Playwright itself.
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def session(browser: Any, catalog: CatalogServer) -> dict[str, Any]:
    """The storage state (the session cookie) of a login through the token form."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(catalog.url)
        page.locator("input[name=token]").fill(TOKEN)
        page.locator("input[name=token]").press("Enter")
        page.wait_for_url(catalog.url)
        page.locator("#tool-list a").first.wait_for()
        state: dict[str, Any] = context.storage_state()
        return state
    finally:
        context.close()


@pytest.fixture
def page(browser: Any, session: dict[str, Any], catalog: CatalogServer) -> Iterator[Any]:
    """A logged-in page on the catalog; errors thrown by the page's scripts fail the test."""
    context = browser.new_context(viewport=VIEWPORT, storage_state=session)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(catalog.url)
    opened.locator("#tool-list a").first.wait_for()
    try:
        yield opened
    finally:
        context.close()
    assert not errors, f"the page threw: {errors}"
