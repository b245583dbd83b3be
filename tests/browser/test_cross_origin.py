"""Pages of other origins on the same machine cannot drive the catalog; its own page can.

An attacker's page is served from another port, as ``http://127.0.0.1:<port>`` and as
``http://localhost:<port>``, and makes Chromium post a destructive run with ``"confirm":
true`` to the catalog: a ``no-cors`` fetch with a ``text/plain`` body, a ``text/plain``
form whose body is that JSON, and an ordinary form. The catalog must refuse each (nothing
is erased), for a browser signed in to a server with a token (its cookie is sent: the
ports are one site) and for a server without a token; the catalog's page still runs tools.
"""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from forge.tools import tool
from tests.browser.support import ERASED, VIEWPORT, CatalogServer, catalog_registry

RUN = "api/tools/erase_notes/run"
WIPE = {"arguments": {"prefix": "attack"}, "confirm": True}
ATTACKS = ("fetch", "text-form", "form")


def _page(kind: str, target: str) -> str:
    """The attacker's page of ``kind``, aimed at ``target`` (the run URL)."""
    if kind == "fetch":
        script = (
            f"fetch({json.dumps(target)}, {{method: 'POST', mode: 'no-cors', "
            "credentials: 'include', headers: {'Content-Type': 'text/plain'}, "
            f"body: {json.dumps(json.dumps(WIPE))}}})"
            ".then(() => { document.title = 'sent'; }, (e) => { document.title = 'failed'; });"
        )
        return f"<!doctype html><title>attack</title><script>{script}</script>"
    if kind == "text-form":  # the body is name=value: {"arguments":{"prefix":"attack="},...}
        name, value = '{"arguments":{"prefix":"attack', '"},"confirm":true}'
        enctype = "text/plain"
    else:
        name, value, enctype = "confirm", "true", "application/x-www-form-urlencoded"
    return (
        f'<!doctype html><title>attack</title><form method="post" enctype="{enctype}" '
        f'action="{html.escape(target)}"><input type="hidden" name="{html.escape(name)}" '
        f'value="{html.escape(value)}"></form><script>document.forms[0].submit()</script>'
    )


class _Attacker(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        body = _page(query["kind"][0], query["target"][0]).encode()
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture(scope="module")
def attacker() -> Iterator[int]:
    """The attacker's web server on a free port of 127.0.0.1 (its port)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture(scope="module")
def open_catalog() -> Iterator[CatalogServer]:
    """A catalog server without a token (the default loopback bind)."""
    server = CatalogServer(catalog_registry(), token=None)
    try:
        yield server
    finally:
        server.stop()


def _attack(context: Any, origin: str, kind: str, catalog: CatalogServer) -> int:
    """Load the attacker's page of ``kind`` from ``origin``; the status the run got."""
    page = context.new_page()
    target = catalog.url + RUN
    url = f"{origin}/?kind={kind}&target={target}"
    try:
        with page.expect_response(lambda r: r.url == target and r.request.method == "POST") as sent:
            page.goto(url)
        status: int = sent.value.status
        if kind == "fetch":
            expect(page).to_have_title(re.compile("^(sent|failed)$"))
        return status
    finally:
        page.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_another_origin_cannot_run_a_tool_while_signed_in(
    browser: Any, session: dict[str, Any], catalog: CatalogServer, attacker: int, host: str
) -> None:
    """From another port of 127.0.0.1 or localhost, with the session cookie in the browser:
    the no-cors fetch, the text/plain form and the plain form are all refused."""
    ERASED.clear()
    context = browser.new_context(viewport=VIEWPORT, storage_state=session)
    try:
        for kind in ATTACKS:
            status = _attack(context, f"http://{host}:{attacker}", kind, catalog)
            assert status in (401, 403, 415), (kind, status)
        assert ERASED == []
    finally:
        context.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_another_origin_cannot_run_a_tool_without_a_token(
    browser: Any, open_catalog: CatalogServer, attacker: int, host: str
) -> None:
    """A server without a token refuses the same pages; its own page still runs the tool."""
    ERASED.clear()
    context = browser.new_context(viewport=VIEWPORT)
    try:
        for kind in ATTACKS:
            status = _attack(context, f"http://{host}:{attacker}", kind, open_catalog)
            assert status in (403, 415), (kind, status)
        assert ERASED == []
        page = context.new_page()
        page.goto(open_catalog.url + "#/tool/erase_notes")
        expect(page.locator("#tool-heading")).to_contain_text("erase_notes")
        page.locator("#try-form").get_by_label(re.compile("^prefix")).fill("mine")
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_role("alertdialog").get_by_role("button", name="Yes, run it").click()
        expect(page.locator("#run-result")).to_contain_text("erased the notes starting with")
        assert ERASED == ["mine"]
    finally:
        context.close()


def test_a_tool_without_hints_asks_for_confirmation(page: Any, catalog: CatalogServer) -> None:
    """A tool with no annotations may be destructive (MCP's default): the page asks first."""
    ran: list[str] = []

    @tool(category="utility", tags=["runtime"])
    def rename_notes(prefix: str) -> str:
        """Rename notes (no hints said what it does)."""
        ran.append(prefix)
        return f"renamed {prefix}"

    catalog.registry.register(rename_notes)
    try:
        link = page.locator('#tool-list a[href="#/tool/rename_notes"]')
        link.click()
        expect(page.locator("#tool-heading")).to_contain_text("rename_notes")
        expect(page.locator("#try-form .warning")).to_contain_text("may be destructive")
        page.locator("#try-form").get_by_label(re.compile("^prefix")).fill("old")
        page.get_by_role("button", name="Run", exact=True).click()
        dialog = page.get_by_role("alertdialog")
        expect(dialog).to_contain_text("may be destructive")
        dialog.get_by_role("button", name="Cancel").click()
        assert ran == []
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_role("alertdialog").get_by_role("button", name="Yes, run it").click()
        expect(page.locator("#run-result")).to_contain_text("renamed old")
        assert ran == ["old"]
    finally:
        catalog.registry.deregister("rename_notes")
