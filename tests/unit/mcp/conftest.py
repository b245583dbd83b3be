"""Fixtures that start real `forge-tools serve` subprocesses for the MCP tests."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "servers"))

from mcp_harness import TOOLS_SPEC, HttpServer, Relay, server_env, stdio_params

from forge.mcp import MCPClient, import_tools
from forge.tools import ToolRegistry
from tests.unit.tools.conftest import copied

__all__ = ["copied"]  # the snapshot-counting fixture of the library's tests


@pytest.fixture(scope="module")
def http_server() -> Iterator[HttpServer]:
    """One HTTP server for the module's tests, stopped in teardown."""
    server = HttpServer("--tools", TOOLS_SPEC)
    yield server
    server.stop()


@pytest.fixture
def start_http() -> Iterator[Callable[..., HttpServer]]:
    """Start extra HTTP servers inside one test; all are stopped in teardown."""
    started: list[HttpServer] = []

    def start(*args: str, token: str | None = None) -> HttpServer:
        server = HttpServer(*args, token=token)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def relay() -> Iterator[Relay]:
    """A relay on a fixed address of this test, to no server yet; closed in teardown."""
    relay = Relay()
    yield relay
    relay.close()


@pytest.fixture
def target(request: pytest.FixtureRequest, http_server: HttpServer) -> Any:
    """What `mcp.Client` connects to for the ``transport`` parameter of the test."""
    return stdio_params() if request.param == "stdio" else http_server.url


@pytest.fixture
def registry() -> ToolRegistry:
    """An empty registry for the imported tools."""
    return ToolRegistry()


@pytest.fixture
def connect(registry: ToolRegistry) -> Iterator[Callable[..., MCPClient]]:
    """Import from a server; every client is closed (and its server stopped) in teardown.

    The servers run the code under test: ``env`` defaults to this checkout's ``PYTHONPATH``.
    """
    clients: list[MCPClient] = []

    def open_client(server: object, **options: object) -> MCPClient:
        options.setdefault("env", {"PYTHONPATH": server_env()["PYTHONPATH"]})
        client = import_tools(registry, server, **options)  # type: ignore[arg-type]
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        client.close()
