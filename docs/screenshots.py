"""Re-make the catalog screenshots shown in the README (``docs/catalog-*.png``).

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


def main() -> None:
    chromium = find_chromium()
    if chromium is None:
        sys.exit(INSTALL_HINT)
    server = CatalogServer(catalog_registry(), token=None)
    try:
        with sync_playwright() as playwright:
            # Playwright gives each launch a fresh temporary profile (user-data-dir).
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport=VIEWPORT)
            shoot(page, server.url)
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
