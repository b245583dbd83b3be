"""The web catalog in a real headless Chromium, against a real `serve_http` server.

One test per acceptance point of the catalog: open it, filter by category, search as you
type, open a tool, switch provider tabs, submit an invalid form and see the named field, run
a tool and see its result, confirm a destructive tool, see a tool registered at runtime appear
without a reload, be refused without the token, walk the main flow with the keyboard alone,
and pass axe-core with no serious or critical violation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from forge.tools import tool
from tests.browser.support import ERASED, TOKEN, VIEWPORT, CatalogServer

pytestmark = pytest.mark.slow  # a real browser and a real server

EXAMPLE_NAMES = ["word_count", "convert_temperature", "current_time", "plan_trip", "erase_notes"]


def tool_links(page: Any) -> Any:
    return page.locator("#tool-list a")


def field(page: Any, label: str) -> Any:
    """The try-it form's control labelled ``label``."""
    return page.locator("#try-form").get_by_label(re.compile(rf"^{label}( \(optional\))?$"))


def open_tool(page: Any, name: str) -> None:
    page.locator(f'#tool-list a[href="#/tool/{name}"]').click()
    expect(page.locator("#tool-heading")).to_contain_text(name)


def test_open_lists_every_tool(page: Any, catalog: CatalogServer) -> None:
    """The catalog's page lists every registered tool, with its category facets."""
    expect(page.locator("#home-heading")).to_have_text("All tools")
    names = [tool.name for tool in catalog.registry.list_all()]
    expect(tool_links(page)).to_have_count(len(names))
    for name in EXAMPLE_NAMES:
        expect(page.locator(f'#tool-list a[href="#/tool/{name}"]')).to_be_visible()
    expect(page.get_by_role("radio", name=re.compile(r"^utility"))).to_be_visible()
    expect(page.locator("#connection")).to_have_text("Live")


def test_filter_by_category(page: Any, catalog: CatalogServer) -> None:
    """Choosing a category lists only that category's tools; "All" brings the others back."""
    page.get_by_role("radio", name=re.compile(r"^task")).check()
    task = [t.name for t in catalog.registry.list_all() if t.category == "task"]
    expect(tool_links(page)).to_have_count(len(task))
    shown = tool_links(page).evaluate_all("links => links.map(a => a.hash)")
    assert sorted(shown) == sorted(f"#/tool/{name}" for name in task)
    page.get_by_role("radio", name="All").check()
    expect(tool_links(page)).to_have_count(len(catalog.registry.list_all()))


def test_filter_by_tag(page: Any) -> None:
    """Ticking a tag lists only the tools with that tag."""
    page.get_by_role("checkbox", name=re.compile(r"^temperature")).check()
    expect(tool_links(page)).to_have_count(1)
    expect(tool_links(page).first).to_have_attribute("href", "#/tool/convert_temperature")


def test_search_as_you_type(page: Any, catalog: CatalogServer) -> None:
    """Typing in the search box lists the registry's own search results, best first."""
    page.get_by_label("Search tools").press_sequentially("fahrenheit kelvin", delay=20)
    expected = [t.name for t in catalog.registry.search("fahrenheit kelvin")]
    expect(tool_links(page)).to_have_count(len(expected))
    expect(tool_links(page).first).to_have_attribute("href", "#/tool/convert_temperature")
    page.get_by_label("Search tools").fill("")
    expect(tool_links(page)).to_have_count(len(catalog.registry.list_all()))


def test_open_a_tool(page: Any) -> None:
    """A tool's page shows its description, metadata, annotations and schemas; back returns."""
    open_tool(page, "convert_temperature")
    assert page.url.endswith("#/tool/convert_temperature")
    expect(page.locator(".description")).to_contain_text("Celsius, Fahrenheit and Kelvin")
    expect(page.locator("#metadata-heading + *")).to_be_visible()
    expect(page.get_by_text("Boiling point in Fahrenheit")).to_be_visible()
    expect(page.get_by_role("region", name="Annotations")).to_contain_text("readOnlyHint")
    expect(page.get_by_label("Input schema")).to_contain_text('"from_unit"')
    page.go_back()
    expect(page.locator("#home-heading")).to_be_visible()
    page.go_forward()
    expect(page.locator("#tool-heading")).to_contain_text("convert_temperature")


def test_metadata_and_deprecation(page: Any) -> None:
    """Version, notes, limitations and the deprecation are shown, and flagged in the list."""
    row = page.locator("tr", has=page.locator('a[href="#/tool/inches_to_cm"]'))
    expect(row).to_contain_text("deprecated")
    open_tool(page, "inches_to_cm")
    expect(page.locator("#tool-heading")).to_contain_text("deprecated")
    metadata = page.get_by_role("region", name="Metadata")
    for shown in ("0.9", "Rounds to whole centimetres.", "Inches only", "convert_length"):
        expect(metadata).to_contain_text(shown)


def test_unknown_tool_says_so(page: Any, catalog: CatalogServer) -> None:
    """A link to a tool that does not exist shows the server's message, not a broken page."""
    page.goto(catalog.url + "#/tool/convert_temprature")
    expect(page.get_by_role("alert")).to_contain_text("convert_temprature")


def test_switch_provider_tabs(page: Any) -> None:
    """Each provider tab shows that provider's definition; strict and default differ."""
    open_tool(page, "plan_trip")
    tabs = page.get_by_role("tab")
    assert tabs.count() >= 3
    panel = page.get_by_role("tabpanel")
    expect(tabs.first).to_have_attribute("aria-selected", "true")
    first_text = panel.inner_text()
    anthropic = page.get_by_role("tab", name=re.compile("Anthropic"))
    anthropic.click()
    expect(anthropic).to_have_attribute("aria-selected", "true")
    expect(panel).to_contain_text('"input_schema"')
    assert panel.inner_text() != first_text
    page.get_by_role("tab", name=re.compile("OpenAI")).first.click()
    page.get_by_role("radio", name="Strict").check()
    strict = panel.locator("pre").inner_text()
    page.get_by_role("radio", name="Default").check()
    expect(panel.locator("pre")).not_to_have_text(strict)
    expect(panel).to_contain_text("Conversion report")


def test_invalid_form_names_the_field(page: Any) -> None:
    """A dry run of bad arguments puts each error next to the field it names, nested ones too."""
    open_tool(page, "plan_trip")
    field(page, "destination").fill("Lisbon")
    field(page, "nights").fill("0")
    page.get_by_role("button", name=re.compile("^Add an item")).click()
    field(page, "name").fill("Ada")
    field(page, "age").fill("200")
    page.get_by_role("button", name="Validate (dry run)").click()
    nights = field(page, "nights")
    expect(nights).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#{nights.get_attribute('id')}-error")).to_be_visible()
    age = field(page, "age")
    expect(age).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#{age.get_attribute('id')}-error")).to_contain_text("200")
    expect(field(page, "destination")).not_to_have_attribute("aria-invalid", "true")
    summary = page.locator(".error-summary")
    expect(summary).to_contain_text("nights")
    expect(summary).to_contain_text("age")


def test_missing_required_field_is_named(page: Any) -> None:
    """A required field left empty gets its own error, not one for the whole form."""
    open_tool(page, "convert_temperature")
    page.get_by_role("button", name="Validate (dry run)").click()
    value = field(page, "value")
    expect(value).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#{value.get_attribute('id')}-error")).to_be_visible()
    expect(page.locator(".error-summary")).to_contain_text("value")
    expect(field(page, "from_unit")).to_have_attribute("aria-invalid", "true")


def test_run_shows_the_result(page: Any) -> None:
    """A real run shows the result and the message the model would see."""
    open_tool(page, "plan_trip")
    field(page, "destination").fill("Lisbon")
    field(page, "nights").fill("3")
    field(page, "transport").select_option("plane")
    page.get_by_role("button", name=re.compile("^Add an item")).click()
    field(page, "name").fill("Ada")
    field(page, "age").fill("36")
    page.get_by_role("button", name="Run", exact=True).click()
    result = page.locator("#run-result")
    expect(result).to_contain_text("Succeeded")
    expect(result).to_contain_text("3 nights in Lisbon by plane for Ada")
    expect(result.get_by_label("Message to the model")).to_contain_text("Lisbon")


def test_form_lists_unions_and_json_mode(page: Any) -> None:
    """Lists add and remove items, a union falls back to a JSON field, optional booleans
    can stay unset, and the whole form can be edited as JSON: the tool gets exactly that."""
    open_tool(page, "echo_arguments")
    add = page.get_by_role("button", name=re.compile("^Add an item"))
    for word in ("alpha", "beta", "gamma"):
        add.click()
        newest = page.locator("#try-form").get_by_label(re.compile(r"^labels \d$")).last
        expect(newest).to_be_focused()
        page.keyboard.type(word)
    page.get_by_role("button", name="Remove item 2 of labels").click()
    field(page, "limits").fill('{"reads": 3}')
    expect(field(page, "urgent")).to_have_value("")
    page.get_by_role("button", name="Run", exact=True).click()
    result = page.locator("#run-result").get_by_label("Result")
    expect(result).to_contain_text('"alpha"')
    shown = json.loads(result.inner_text())
    assert shown == {"labels": ["alpha", "gamma"], "limits": {"reads": 3}, "urgent": None,
                     "ratio": 0.5}  # fmt: skip
    page.get_by_label("Edit the arguments as JSON").check()
    raw = page.get_by_label("Arguments as JSON", exact=True)
    assert json.loads(raw.input_value()) == {
        "labels": ["alpha", "gamma"], "limits": {"reads": 3}, "ratio": 0.5,
    }  # fmt: skip
    raw.fill('{"labels": [], "limits": 7, "urgent": true}')
    page.get_by_role("button", name="Run", exact=True).click()
    expect(result).to_contain_text('"limits": 7')
    page.get_by_label("Edit the arguments as JSON").uncheck()
    expect(field(page, "urgent")).to_have_value("0")  # the option for true
    expect(field(page, "limits")).to_have_value("7")


def test_failed_run_shows_error_kind_and_model_message(page: Any) -> None:
    """A run that fails shows its error kind and the message the model would get."""
    open_tool(page, "current_time")
    field(page, "timezone").fill("Mars/Olympus_Mons")
    page.get_by_role("button", name="Run", exact=True).click()
    result = page.locator("#run-result")
    expect(result).to_contain_text("Failed")
    expect(result.locator(".error-kind")).not_to_be_empty()
    expect(result.get_by_label("Message to the model")).to_contain_text("unknown time zone")


def test_destructive_tool_needs_confirmation(page: Any) -> None:
    """A destructive tool runs only after an explicit confirmation; cancelling runs nothing."""
    ERASED.clear()
    open_tool(page, "erase_notes")
    field(page, "prefix").fill("draft")
    page.get_by_role("button", name="Run", exact=True).click()
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("destructive")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    assert ERASED == []
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("alertdialog").get_by_role("button", name="Yes, run it").click()
    expect(page.locator("#run-result")).to_contain_text("erased the notes starting with 'draft'")
    assert ERASED == ["draft"]


def test_metrics_shown_after_calls(page: Any) -> None:
    """With metrics on, a tool's page shows its calls, failures and latency percentiles."""
    open_tool(page, "word_count")
    field(page, "text").fill("one two three")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#run-result")).to_contain_text('"words": 3')
    metrics = page.locator("#metrics")
    expect(metrics).to_be_visible()
    expect(metrics).to_contain_text("p95")
    expect(metrics.locator("dd").first).not_to_have_text("0")


def test_tool_registered_at_runtime_appears(page: Any, catalog: CatalogServer) -> None:
    """A tool registered while the page is open appears without a reload; removed, it goes."""
    page.evaluate("window.__sameDocument = true")
    before = tool_links(page).count()

    @tool(category="utility", tags=["runtime"])
    def shout(text: str) -> str:
        """Return the text in capitals."""
        return text.upper()

    catalog.registry.register(shout)
    try:
        expect(page.locator('#tool-list a[href="#/tool/shout"]')).to_be_visible()
        expect(tool_links(page)).to_have_count(before + 1)
        open_tool(page, "shout")
        catalog.registry.deregister("shout")
        expect(page.get_by_role("alert")).to_contain_text("shout was removed")
        expect(page.get_by_role("button", name="Run", exact=True)).to_be_disabled()
        expect(tool_links(page)).to_have_count(before)
    finally:
        catalog.registry.deregister("shout")
    assert page.evaluate("window.__sameDocument") is True


def test_refused_without_the_token(browser: Any, catalog: CatalogServer) -> None:
    """Without the token the page shows only a token form; a wrong token is refused, the
    right one logs in with a cookie, and that cookie never opens /mcp."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        response = page.goto(catalog.url)
        assert response is not None
        assert response.status == 401
        expect(page.locator("input[name=token]")).to_be_visible()
        assert "convert_temperature" not in page.content()
        api = context.request.get(catalog.url + "api/tools")
        assert api.status == 401
        page.locator("input[name=token]").fill("not-the-token")
        page.locator("input[name=token]").press("Enter")
        page.wait_for_load_state()
        expect(page.locator("input[name=token]")).to_be_visible()
        assert "convert_temperature" not in page.content()
        page.locator("input[name=token]").fill(TOKEN)
        page.locator("input[name=token]").press("Enter")
        expect(page.locator('#tool-list a[href="#/tool/convert_temperature"]')).to_be_visible()
        cookies = context.cookies()
        assert cookies
        assert all(TOKEN not in cookie["value"] for cookie in cookies)
        assert all(cookie["httpOnly"] for cookie in cookies)
        mcp = context.request.post(
            catalog.url + "mcp",
            data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        assert mcp.status == 401
    finally:
        context.close()
    bearer = httpx.get(catalog.url + "api/tools", headers={"Authorization": f"Bearer {TOKEN}"})
    assert bearer.status_code == 200


def _tab_to(page: Any, selector: str, limit: int = 120) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement?.matches(s) ?? false", selector):
            return
    raise AssertionError(f"Tab never reached {selector!r}")


def test_keyboard_only_main_flow(page: Any) -> None:
    """Search, open a tool, fill the form and run it, switch provider tabs: keyboard alone,
    with a visible focus ring throughout."""
    _tab_to(page, "#search")
    page.keyboard.type("temperature")
    expect(tool_links(page).first).to_have_attribute("href", "#/tool/convert_temperature")
    _tab_to(page, 'a[href="#/tool/convert_temperature"]')
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", "")
    page.keyboard.press("Enter")
    expect(page.locator("#tool-heading")).to_be_focused()
    _tab_to(page, "#try-form input:not([type=checkbox])")
    page.keyboard.type("100")
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")  # from_unit: Choose… -> c
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # to_unit: Choose… -> c -> f
    _tab_to(page, "#run-button")
    page.keyboard.press("Enter")
    expect(page.locator("#run-result")).to_contain_text("212")
    _tab_to(page, '[role="tab"]')
    first = page.evaluate("document.activeElement.id")
    page.keyboard.press("ArrowRight")
    second = page.get_by_role("tab").nth(1)
    expect(second).to_be_focused()
    expect(second).to_have_attribute("aria-selected", "true")
    assert page.evaluate("document.activeElement.id") != first


def _serious(page: Any, within: str | None = None) -> list[dict[str, Any]]:
    """The serious and critical violations axe-core finds in the page (or the elements
    matching ``within``) as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    if not page.evaluate("typeof window.axe === 'object'"):
        # Evaluated through the DevTools protocol, so the page's CSP does not block it.
        page.evaluate(Axe().axe_script)
    results = page.evaluate(
        "within => axe.run(within ? {include: [...document.querySelectorAll(within)]} : document,"
        " {resultTypes: ['violations']})",
        within,
    )
    violations: list[dict[str, Any]] = results["violations"]
    serious = [v for v in violations if v.get("impact") in ("serious", "critical")]
    return [{"id": v["id"], "help": v["help"], "nodes": len(v["nodes"])} for v in serious]


def test_accessibility_axe(page: Any) -> None:
    """axe-core finds no serious or critical violation on the list, nor on a tool's page
    showing a run's result and a dry run's errors."""
    assert _serious(page) == []
    open_tool(page, "convert_temperature")
    page.get_by_role("button", name="Validate (dry run)").click()
    expect(page.locator(".error-summary")).to_be_visible()
    assert _serious(page) == []
    page.get_by_role("button", name=re.compile("^Use example 1")).click()
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#run-result")).to_contain_text("212")
    assert _serious(page, "#try-heading + *, #run-result") == []


def test_assets_are_served_by_the_package(catalog: CatalogServer) -> None:
    """The page's scripts and styles come from the package with a strict CSP, no CDN."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    index = httpx.get(catalog.url, headers=headers)
    assert "default-src 'self'" in index.headers["content-security-policy"]
    static = Path(__file__).resolve().parents[2] / "src/forge/catalog/static"
    for name in ("app.js", "form.js", "dom.js", "app.css"):
        served = httpx.get(f"{catalog.url}static/{name}", headers=headers)
        assert served.status_code == 200
        assert served.content == (static / name).read_bytes()
    assert not re.search(r"https?://", index.text)
