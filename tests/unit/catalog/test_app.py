"""The catalog served by `serve_http` beside ``/mcp``: a real uvicorn on 127.0.0.1, over httpx."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from forge.catalog.events import ChangeFeed
from forge.tools import tool

from .conftest import Served

pytestmark = pytest.mark.slow
TOKEN = "catalog-test-token-0123456789"


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """One server with a token for the module."""
    server = Served(token=TOKEN)
    yield server
    server.stop()


@pytest.fixture
def client(served: Served) -> Iterator[httpx.Client]:
    """A client sending the bearer token."""
    with served.client() as c:
        yield c


def test_the_page_and_its_assets_come_from_the_package(client: httpx.Client) -> None:
    """``/`` is index.html, no-cache, under a strict CSP; unknown files are 404."""
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["cache-control"] == "no-cache"
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert client.get("/static/index.html").text == page.text
    assert client.get("/static/../pyproject.toml").status_code == 404
    assert client.get("/static/nothing.js").status_code == 404


def test_every_api_response_carries_the_security_headers(client: httpx.Client) -> None:
    """JSON too, errors included."""
    for response in (client.get("/api/tools"), client.get("/api/tools/nope"),
                     client.get("/api/nothing")):  # fmt: skip
        assert response.headers["content-security-policy"].startswith("default-src 'self'")
        assert response.headers["x-content-type-options"] == "nosniff"


def test_the_tool_list_filters_and_searches(client: httpx.Client) -> None:
    """Query parameters map onto the catalog; ``tag`` may repeat."""
    listing = client.get("/api/tools").json()
    assert [t["name"] for t in listing["tools"]][:2] == ["echo", "place_order"]
    assert {c["name"] for c in listing["categories"]} >= {"utility", "task", "database"}
    only = client.get("/api/tools", params={"category": "database"}).json()["tools"]
    assert [t["name"] for t in only] == ["wipe"]
    tagged = client.get("/api/tools", params=[("tag", "admin"), ("tag", "text")]).json()
    assert tagged["tools"] == []
    found = client.get("/api/tools", params={"q": "order"}).json()["tools"]
    assert found[0]["name"] == "place_order"
    bad = client.get("/api/tools", params={"category": "nope"})
    assert bad.status_code == 400
    assert "category" in bad.json()["message"]


def test_a_tools_page_and_an_unknown_one(client: httpx.Client) -> None:
    """Details with every provider; an unknown name is 404 naming close ones."""
    page = client.get("/api/tools/place_order").json()
    assert page["name"] == "place_order"
    assert len(page["providers"]) == 9
    assert page["metrics"] is not None
    missing = client.get("/api/tools/plac_order")
    assert missing.status_code == 404
    body = missing.json()
    assert body["error"] == "not_found"
    assert "'plac_order'" in body["message"]
    assert "'place_order'" in body["message"]


def test_validate_names_the_nested_field(client: httpx.Client) -> None:
    """An array item's field inside an object, by path."""
    arguments = {"lines": [{"sku": "a", "qty": "many"}], "ship_to": {"city": "X", "zip": "1"}}
    answer = client.post("/api/tools/place_order/validate", json={"arguments": arguments}).json()
    assert answer["ok"] is False
    assert [e["path"] for e in answer["errors"]] == [["lines", 0, "qty"], ["ship_to", "zip"]]
    assert [e["field"] for e in answer["errors"]] == ["lines[0].qty", "ship_to.zip"]


def test_runs_go_through_the_servers_executor(client: httpx.Client) -> None:
    """Its policy denies, its metrics count, failures are results."""
    ok = client.post("/api/tools/echo/run", json={"arguments": {"text": "hey"}}).json()
    assert (ok["ok"], ok["result"], ok["model_message"]) == (True, "hey", "hey")
    denied = client.post("/api/tools/forbidden/run",
                         json={"arguments": {"command": "x"}, "confirm": True})  # fmt: skip
    assert denied.status_code == 200
    assert denied.json()["error_kind"] == "denied"
    broke = client.post("/api/tools/explode/run", json={"arguments": {}}).json()
    assert broke["error_kind"] == "tool_error"
    metrics = client.get("/api/metrics").json()
    assert metrics["enabled"] is True
    assert metrics["tools"]["echo"]["calls"] >= 1
    assert set(metrics["tools"]["echo"]) == {"calls", "failures", "p50_ms", "p95_ms"}


def test_a_destructive_run_needs_confirm(client: httpx.Client) -> None:
    """409 and nothing ran; with confirm it runs."""
    refused = client.post("/api/tools/wipe/run", json={"arguments": {"table": "t"}})
    assert refused.status_code == 409
    assert refused.json()["error"] == "confirmation_required"
    done = client.post("/api/tools/wipe/run", json={"arguments": {"table": "t"}, "confirm": True})
    assert done.json()["result"] == "wiped t"


def test_an_unannotated_run_needs_confirm_as_a_destructive_one(client: httpx.Client) -> None:
    """MCP reads a tool without hints as destructive: 409 and nothing ran; with confirm it runs."""
    calls = client.get("/api/metrics").json()["tools"].get("forbidden", {}).get("calls", 0)
    refused = client.post("/api/tools/forbidden/run", json={"arguments": {"command": "x"}})
    assert refused.status_code == 409
    assert refused.json()["error"] == "confirmation_required"
    assert "neither read-only nor non-destructive" in refused.json()["message"]
    after = client.get("/api/metrics").json()["tools"].get("forbidden", {}).get("calls", 0)
    assert after == calls
    assert client.get("/api/tools/forbidden").json()["needs_confirmation"] is True
    assert client.get("/api/tools/echo").json()["needs_confirmation"] is False
    done = client.post("/api/tools/forbidden/run",
                       json={"arguments": {"command": "x"}, "confirm": True})  # fmt: skip
    assert done.json()["error_kind"] == "denied"


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"{oops", "not valid JSON"), (b"[1]", "JSON object"),
     (b"\xc3\x28", "UTF-8"), (b'{"arguments": {"text": NaN}}', "NaN is not a JSON number"),
     (b'{"arguments": {"text": ' + b"7" * 5_000 + b"}}", "more than 4,300 digits"),
     (b'{"arguments": {"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}", "too deeply")],
)  # fmt: skip
def test_bad_bodies_are_400_with_a_reason(
    client: httpx.Client, content: bytes, message: str
) -> None:
    """Nothing a client sends crashes the server: deep nesting and huge integers included."""
    response = client.post("/api/tools/echo/run", content=content,
                           headers={"content-type": "application/json"})  # fmt: skip
    assert response.status_code == 400
    assert message in response.json()["message"]


def test_without_the_token_everything_is_refused(served: Served) -> None:
    """The page is a sign-in form only; the API answers 401 JSON."""
    with served.client(headers={}) as anonymous:
        page = anonymous.get("/")
        assert page.status_code == 401
        assert "<form" in page.text
        assert 'name="token"' in page.text
        assert "echo" not in page.text
        assert "<script" not in page.text
        assert anonymous.get("/static/index.html").status_code == 401
        api = anonymous.get("/api/tools")
        assert api.status_code == 401
        assert api.json()["error"] == "unauthorized"
        wrong = {"Authorization": "Bearer not-the-token-at-all-000"}
        assert anonymous.get("/api/tools", headers=wrong).status_code == 401


def test_sign_in_page_loads_the_catalog_stylesheet_without_the_token(served: Served) -> None:
    """The sign-in page links the catalog's stylesheet and icon, which load before signing
    in; the scripts and the page itself still need the token."""
    with served.client(headers={}) as anonymous:
        page = anonymous.get("/").text
        assert '<link rel="stylesheet" href="/static/app.css">' in page
        assert '<label for="token">Access token</label>' in page
        for public in ("/static/app.css", "/static/favicon.svg"):
            assert anonymous.get(public).status_code == 200
        for private in ("/static/app.js", "/static/form.js", "/static/index.html"):
            assert anonymous.get(private).status_code == 401
        assert anonymous.post("/static/app.css").status_code == 401


def test_a_wrong_token_is_announced_next_to_the_field(served: Served) -> None:
    """A refused sign-in shows an alert the token field is described by."""
    with served.client(headers={}) as anonymous:
        refused = anonymous.post("/login", data={"token": "wrong"}).text
        assert 'role="alert" id="token-error"' in refused
        assert 'aria-describedby="token-hint token-error"' in refused


def test_signing_in_sets_a_session_cookie_that_opens_only_the_catalog(served: Served) -> None:
    """The cookie is an opaque id, HttpOnly and SameSite=Strict; /mcp still needs the token."""
    with served.client(headers={}) as browser:
        assert browser.post("/login", data={"token": "wrong"}).status_code == 401
        signed = browser.post("/login", data={"token": TOKEN})
        assert signed.status_code == 303
        assert signed.headers["location"] == "/"
        cookie = signed.headers["set-cookie"]
        assert cookie.startswith("forge_catalog=")
        for flag in ("HttpOnly", "SameSite=Strict", "Path=/"):
            assert flag in cookie
        assert TOKEN not in cookie
        assert browser.get("/api/tools").status_code == 200
        assert browser.get("/").status_code == 200
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        mcp = browser.post("/mcp", json=initialize,
                           headers={"accept": "application/json, text/event-stream"})  # fmt: skip
        assert mcp.status_code == 401
    with served.client(headers={}, cookies={"forge_catalog": "made-up"}) as forger:
        assert forger.get("/api/tools").status_code == 401


def _events(response: httpx.Response) -> Iterator[tuple[str, Any]]:
    event = None
    for line in response.iter_lines():
        if line.startswith("event: "):
            event = line.removeprefix("event: ")
        elif line.startswith("data: ") and event is not None:
            yield event, json.loads(line.removeprefix("data: "))
            event = None


def test_events_announce_tools_added_and_removed_and_metrics(served: Served) -> None:
    """A tool registered at runtime and one removed reach an open stream; metrics follow."""

    @tool
    def late_arrival(x: int) -> int:
        """Registered while the page is open."""
        return x

    with served.client() as c, c.stream("GET", "/api/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        served.registry.register(late_arrival)
        events = _events(stream)
        kind, data = next(events)
        assert kind == "tools"
        assert data["added"] == ["late_arrival"]
        assert data["version"] == served.registry.version
        listed = c.get("/api/tools").json()
        assert listed["version"] == data["version"]
        assert "late_arrival" in [t["name"] for t in listed["tools"]]
        served.registry.deregister("late_arrival")
        seen = [next(events) for _ in range(3)]
        removed = [d for k, d in seen if k == "tools"]
        assert removed[0]["removed"] == ["late_arrival"]
        assert any(k == "metrics" and "tools" in d for k, d in seen)


def test_a_browser_that_goes_away_leaves_nothing_behind(served: Served) -> None:
    """Closing the stream unsubscribes it on the server."""
    feed = next(
        o for o in gc.get_objects() if isinstance(o, ChangeFeed) and o.registry is served.registry
    )
    assert feed.subscribers == 0
    with served.client() as c, c.stream("GET", "/api/events") as stream:
        lines = stream.iter_lines()  # kept: a dropped iterator closes the response
        next(lines)
        assert feed.subscribers == 1
    deadline = time.monotonic() + 10
    while feed.subscribers and time.monotonic() < deadline:
        time.sleep(0.05)
    assert feed.subscribers == 0


def test_shutdown_ends_open_streams_and_no_catalog_means_no_page() -> None:
    """Stopping the server closes the event stream cleanly; ``catalog=False`` serves only /mcp."""
    server = Served(catalog=False)
    try:
        with server.client() as c:
            assert c.get("/").status_code == 404
            assert c.get("/api/tools").status_code == 404
    finally:
        server.stop()
    server = Served()
    with server.client() as c, c.stream("GET", "/api/events") as stream:
        lines = stream.iter_lines()
        next(lines)
        server.stop()
        rest = list(lines)
    assert all(not line.startswith("event:") for line in rest)


def test_pages_of_a_fan_out_schema_stay_small_and_the_catalog_answers(served: Served) -> None:
    """Six concurrent pages of a 2 KB schema doubling at each of 16 levels: each is small,
    Gemini's entry holds the schema whole, and the tool list still answers meanwhile."""
    from concurrent.futures import ThreadPoolExecutor

    from forge.tools import from_record
    from tests.unit.tools.formats.test_schema_bombs import SCHEMAS

    schema = SCHEMAS["properties"]
    bomb = from_record({"name": "fan_out", "description": "Fan-out references.",
                        "parameters": schema, "handler": lambda **_: None})  # fmt: skip
    served.registry.register(bomb)
    try:
        with served.client() as client, ThreadPoolExecutor(6) as pool:
            pages = list(pool.map(lambda _: client.get("/api/tools/fan_out", timeout=60), range(6)))
            listing = client.get("/api/tools", timeout=60)
        assert listing.status_code == 200
        assert "fan_out" in listing.text
        for page in pages:
            assert page.status_code == 200
            assert len(page.content) < 200_000
            gemini = next(p for p in page.json()["providers"] if p["id"] == "gemini")
            assert gemini["default"]["parametersJsonSchema"] == schema
    finally:
        served.registry.deregister("fan_out")
