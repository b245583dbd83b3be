"""The catalog's ASGI app in process (httpx's ASGI transport): limits and odd outputs."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import httpx

from forge.catalog import Catalog
from forge.catalog.app import MAX_BODY_BYTES, catalog_app
from forge.tools import ToolRegistry, tool


@tool(annotations={"readOnlyHint": True})
def not_a_number() -> float:
    """Returns NaN, which JSON cannot carry."""
    return math.nan


def _call(method: str, path: str, **options: Any) -> httpx.Response:
    shelf = Catalog(ToolRegistry([not_a_number]))

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=catalog_app(shelf))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            if method != "GET" and path.startswith("/api/"):
                csrf = (await c.get("/api/session")).json()["csrf"]
                options["headers"] = {"content-type": "application/json", "x-forge-csrf": csrf}
            return await c.request(method, path, **options)

    try:
        return asyncio.run(go())
    finally:
        shelf.close()


def test_a_body_over_the_limit_is_refused() -> None:
    """A megabyte and more is a 400 naming the limit."""
    big = b'{"arguments": {"x": "' + b"a" * MAX_BODY_BYTES + b'"}}'
    response = _call("POST", "/api/tools/not_a_number/validate", content=big)
    assert response.status_code == 400
    assert str(MAX_BODY_BYTES) in response.json()["message"]


def test_an_output_json_cannot_carry_is_sent_as_text() -> None:
    """NaN comes back as the string ``NaN``, so the answer stays JSON."""
    response = _call("POST", "/api/tools/not_a_number/run", json={"arguments": {}})
    assert response.status_code == 200
    assert response.json()["result"] == "NaN"


def test_signing_in_without_a_token_goes_straight_to_the_catalog() -> None:
    """A server without a token has nothing to sign in to."""
    response = _call("POST", "/login", data={"token": "x"})
    assert (response.status_code, response.headers["location"]) == (303, "/")


def test_unknown_api_paths_and_methods() -> None:
    """A JSON 404 for an unknown API path; 405 for a wrong method."""
    missing = _call("GET", "/api/nothing/here")
    assert missing.status_code == 404
    assert missing.json()["error"] == "not_found"
    assert _call("DELETE", "/api/tools").status_code == 405
