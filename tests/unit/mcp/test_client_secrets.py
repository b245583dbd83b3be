"""Credentials of an MCP server never shown: not in errors, results, logs or the catalog page.

A server's headers, token and environment are secrets, and so are the userinfo and query
values of its URL (``?key=...``). Each test gives the client (or the gateway) a secret,
makes every surface speak (a refused connection, a lost one, a failed call, the HTTP
client's and the SDK's debug logs, the tool's catalog page) and looks for the secret.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from mcp_harness import TOOLS_SPEC, HttpServer, wait_for

from forge.catalog.detail import tool_detail
from forge.gateway.config import parse_servers
from forge.gateway.gateway import Gateway
from forge.mcp import MCPConnectionError, import_tools
from forge.tools import ToolRegistry

pytestmark = pytest.mark.slow  # real MCP servers and HTTP servers on 127.0.0.1

URL_KEY = "sk-url-" + "3" * 24
HEADER_KEY = "sk-header-" + "4" * 24


class _Refusing(BaseHTTPRequestHandler):
    """Answers 401 and echoes the ``X-Key`` it got in the challenge (as some servers do)."""

    def do_POST(self) -> None:
        echoed = self.headers.get("X-Key", "")
        self.send_response(401)
        self.send_header("WWW-Authenticate", f'Bearer error="invalid_token: {echoed}"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_DELETE = do_POST

    def log_message(self, format: str, *args: object) -> None:
        """Keep test output quiet."""


class _Missing(_Refusing):
    """Answers 404 to everything: not an MCP endpoint."""

    def do_POST(self) -> None:
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_DELETE = do_POST


def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    server.shutdown()
    server.server_close()


@pytest.fixture
def refusing() -> Iterator[str]:
    """The URL of an HTTP server that answers 401 echoing the key it was sent."""
    yield from _serve(_Refusing)


@pytest.fixture
def missing() -> Iterator[str]:
    """The URL of an HTTP server that answers 404."""
    yield from _serve(_Missing)


def test_a_header_http_cannot_send_is_refused_before_connecting() -> None:
    """A header or token ending in a line break: a ValueError naming it, the value unshown."""
    with pytest.raises(ValueError, match=r"the header 'X-Key' .* ends with a line break") as raised:
        import_tools(ToolRegistry(), "http://127.0.0.1:9/mcp", headers={"X-Key": HEADER_KEY + "\n"})
    assert HEADER_KEY not in str(raised.value)
    with pytest.raises(ValueError, match=r"the token .* ends with a line break") as raised:
        import_tools(ToolRegistry(), "http://127.0.0.1:9/mcp", token=HEADER_KEY + "\n")
    assert HEADER_KEY not in str(raised.value)


def test_a_refused_connection_shows_neither_the_url_key_nor_an_echoed_header(
    refusing: str, missing: str, caplog: pytest.LogCaptureFixture
) -> None:
    """401 with the header echoed, 404: the errors say why, with ``?key=***`` and no secret."""
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(MCPConnectionError) as refused:
            import_tools(ToolRegistry(), f"{refusing}?key={URL_KEY}", headers={"X-Key": HEADER_KEY})
        with pytest.raises(MCPConnectionError) as absent:
            import_tools(ToolRegistry(), f"{missing}?key={URL_KEY}", reconnect_attempts=0)
    messages = [str(refused.value), str(absent.value)]
    assert "401 Unauthorized" in messages[0]
    assert "HTTP 404" in messages[1]
    assert all("/mcp?key=***" in m for m in messages)
    for text in [*messages, caplog.text]:
        assert URL_KEY not in text
        assert HEADER_KEY not in text


def test_a_url_key_stays_out_of_metadata_catalog_failures_and_dependency_logs(
    start_http: Callable[..., HttpServer], caplog: pytest.LogCaptureFixture
) -> None:
    """Connected, called, lost: no surface (nor httpx2's or the SDK's log) shows the key."""
    server = start_http("--tools", TOOLS_SPEC)
    registry = ToolRegistry()
    with caplog.at_level(logging.DEBUG):
        client = import_tools(
            registry, f"{server.url}?key={URL_KEY}", headers={"X-Key": HEADER_KEY},
            reconnect_attempts=0,
        )  # fmt: skip
        try:
            assert registry.execute("add", {"a": 1, "b": 2}).output == 3
            page = json.dumps(tool_detail(registry.get_or_raise("add")))
            server.stop()
            assert wait_for(lambda: client.error is not None)
            failed = asyncio.run(client.acall("add", {"a": 1, "b": 2}))
        finally:
            client.close()
    assert registry.names() == []
    assert "/mcp?key=***" in page
    assert "HTTP Request: POST" in caplog.text  # httpx2 logged its requests, without the key
    shown = [page, failed.error or "", client.error or "", caplog.text]
    assert not [text for text in shown if URL_KEY in text or HEADER_KEY in text]


def test_the_gateway_shows_no_credential_an_upstream_echoes(
    refusing: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The upstream's error, the model's "not connected" result and the logs: no key."""
    monkeypatch.setenv("FORGE_TEST_ECHOED_KEY", HEADER_KEY)
    document = {
        "mcpServers": {
            "api": {
                "url": f"{refusing}?key={URL_KEY}",
                "headers": {"X-Key": "${FORGE_TEST_ECHOED_KEY}"},
            }
        }
    }
    with caplog.at_level(logging.DEBUG), Gateway(parse_servers(document, os.environ)) as gateway:
        upstream = gateway.upstreams["api"]
        result = asyncio.run(gateway.run("api__anything", {}))
        error = upstream.error or ""
    assert "401 Unauthorized" in error
    assert "not connected" in (result.error or "")
    for text in [error, result.error or "", caplog.text, upstream.config.display]:
        assert URL_KEY not in text
        assert HEADER_KEY not in text
