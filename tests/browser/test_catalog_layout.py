"""The catalog's layout in a real browser at a laptop's viewport (1280x800).

A realistic tool's page (`book_shipment`: nested objects, unions, formats, defaults, so
that providers drop or change many keywords) puts "Try it" on the first screen, folds the
conversion notes per provider, and keeps the sidebar in view however far it scrolls. The
sign-in page wears the catalog's stylesheet.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.support import VIEWPORT, CatalogServer

pytestmark = pytest.mark.slow  # a real browser and a real server

LONG_TOOL = "book_shipment"


def open_long_tool(page: Any, catalog: CatalogServer) -> None:
    page.goto(catalog.url + f"#/tool/{LONG_TOOL}")
    expect(page.locator("#tool-heading")).to_contain_text(LONG_TOOL)


def test_try_it_is_on_the_first_screen(page: Any, catalog: CatalogServer) -> None:
    """The "Try it" heading starts within the first 800 pixels, after the description and a one-line
    summary of the parameters."""
    open_long_tool(page, catalog)
    params = page.locator(".params")
    expect(params).to_contain_text("sender")
    expect(params).to_contain_text("pickup_after")
    expect(params).to_contain_text("string (date-time)")
    box = page.locator("#try-heading").bounding_box()
    assert box is not None
    assert box["y"] < VIEWPORT["height"], box


def test_conversion_notes_are_folded_per_provider(page: Any, catalog: CatalogServer) -> None:
    """Each provider's conversion notes sit in one closed disclosure whose summary counts
    them; opening it shows them."""
    open_long_tool(page, catalog)
    folds = page.locator("#lint-heading ~ details.notes")
    expect(folds.first).to_be_attached()
    assert folds.count() >= 4
    assert folds.evaluate_all("els => els.filter(e => e.open).length") == 0
    anthropic = folds.filter(has_text="Anthropic")
    expect(anthropic.locator("summary")).to_contain_text(" notes")
    notes = anthropic.locator("li")
    expect(notes.first).to_be_hidden()
    count = int(anthropic.locator("summary").inner_text().split("(")[1].split(" ")[0])
    assert count == notes.count() > 10
    anthropic.locator("summary").click()
    expect(notes.first).to_be_visible()


def test_sidebar_stays_in_view_at_the_bottom(page: Any, catalog: CatalogServer) -> None:
    """Scrolled to the very bottom of a long page, the sidebar still fills the left column
    and its tool list can be reached."""
    open_long_tool(page, catalog)
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height > 2 * VIEWPORT["height"]  # a long page, or the check proves nothing
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function("window.scrollY > 0")
    sidebar = page.locator(".sidebar").bounding_box()
    assert sidebar is not None
    assert sidebar["y"] >= 0
    assert sidebar["y"] + sidebar["height"] <= VIEWPORT["height"] + 1
    assert sidebar["height"] > VIEWPORT["height"] / 2
    expect(page.get_by_label("Search tools")).to_be_in_viewport()
    expect(page.locator(f'#tool-list a[href="#/tool/{LONG_TOOL}"]')).to_be_visible()


def test_sign_in_page_is_styled(browser: Any, catalog: CatalogServer) -> None:
    """The sign-in page loads the catalog's stylesheet: its font, header and button are the
    catalog's, not the browser's defaults, and the field has its label."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(catalog.url)
        token = page.get_by_label("Access token")
        expect(token).to_be_visible()
        font = page.evaluate("getComputedStyle(document.documentElement).fontFamily")
        assert "system-ui" in font
        button = page.get_by_role("button", name="Sign in")
        background = button.evaluate("el => getComputedStyle(el).backgroundColor")
        assert background == "rgb(5, 80, 174)"  # the catalog's accent
        header = page.locator("header.top").evaluate("el => getComputedStyle(el).display")
        assert header == "flex"
    finally:
        context.close()
