"""Re-make the catalog's screenshots (``docs/catalog-*.png``).

Serves the browser tests' tools with `serve_http` on 127.0.0.1, opens the catalog in the same
headless Chromium as the tests (Debian's ``chromium``, driven by Playwright) at 1280x800, and
writes palette-optimised PNGs. Run from the repository root::

    .venv/bin/python docs/screenshots.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.browser.support import (  # noqa: E402
    CHROMIUM_FLAGS,
    INSTALL_HINT,
    TOKEN,
    VIEWPORT,
    CatalogServer,
    catalog_registry,
    find_chromium,
)

OUT = ROOT / "docs"


def save(page: Any, name: str) -> None:
    """Screenshot the viewport into ``docs/<name>.png`` with a 256-colour palette."""
    path = OUT / f"{name}.png"
    page.screenshot(path=str(path))
    with Image.open(path) as shot:
        small = shot.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        small.save(path, optimize=True)
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KiB")


def scroll_to(page: Any, selector: str) -> None:
    page.locator(selector).evaluate("el => el.scrollIntoView({block: 'start'})")


def shoot(page: Any, url: str) -> None:
    page.goto(url)
    page.locator("#tool-list a").first.wait_for()
    expect(page.locator("#connection")).to_have_text("Live")
    save(page, "catalog-list")

    page.goto(url + "#/tool/plan_trip")
    page.get_by_role("tab", name=re.compile("Anthropic")).click()
    scroll_to(page, "#providers-heading")
    save(page, "catalog-providers")

    page.get_by_label("destination").fill("Lisbon")
    page.get_by_label("nights").fill("0")
    page.get_by_role("button", name=re.compile("^Add an item")).click()
    page.get_by_label("name").fill("Ada")
    page.get_by_label("age").fill("200")
    page.get_by_role("button", name="Validate (dry run)").click()
    expect(page.locator(".error-summary")).to_be_visible()
    scroll_to(page, "#try-heading")
    save(page, "catalog-try-error")

    page.get_by_label("nights").fill("3")
    page.get_by_label("age").fill("36")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#run-result")).to_contain_text("Succeeded")
    scroll_to(page, "#try-form .actions")
    save(page, "catalog-try-result")

    page.goto(url + "#/tool/book_shipment")
    expect(page.locator("#tool-heading")).to_contain_text("book_shipment")
    page.evaluate("window.scrollTo(0, 0)")
    save(page, "catalog-tool-page")


def shoot_sign_in(page: Any, url: str) -> None:
    """The page a browser gets from a server with a token, before signing in."""
    page.goto(url)
    expect(page.get_by_label("Access token")).to_be_visible()
    save(page, "catalog-sign-in")


def main() -> None:
    chromium = find_chromium()
    if chromium is None:
        sys.exit(INSTALL_HINT)
    server = CatalogServer(catalog_registry(), token=None)
    guarded = CatalogServer(catalog_registry(), token=TOKEN)
    try:
        with sync_playwright() as playwright:
            # Playwright gives each launch a fresh temporary profile (user-data-dir).
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport=VIEWPORT)
            shoot(page, server.url)
            shoot_sign_in(browser.new_page(viewport=VIEWPORT), guarded.url)
            browser.close()
    finally:
        server.stop()
        guarded.stop()


if __name__ == "__main__":
    main()
