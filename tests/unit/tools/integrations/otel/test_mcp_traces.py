"""One trace across MCP: our client's call and our server's tool, over HTTP and stdio."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters
from opentelemetry.sdk.trace import ReadableSpan

from forge.mcp import MCPClient, MCPToolServer, import_tools
from forge.mcp.serve import serve_http
from forge.tools import ToolExecutor, ToolRegistry, tool

from .conftest import Telemetry

pytestmark = pytest.mark.slow

STDIO_SERVER = Path(__file__).parent / "traced_server.py"


@tool
def remote_add(a: int, b: int) -> int:
    """Add two numbers on the server."""
    return a + b


class ServerThread:
    """Our MCP server over streamable HTTP on 127.0.0.1, on a thread of this process."""

    def __init__(self, server: MCPToolServer) -> None:
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self.port = 0
        self._thread = threading.Thread(target=asyncio.run, args=(self._main(server),))
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the MCP server did not start in 30 s")

    async def _main(self, server: MCPToolServer) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()

        def started(_host: str, port: int) -> None:
            self.port = port
            self._ready.set()

        with contextlib.suppress(asyncio.CancelledError):
            await serve_http(server, port=0, on_started=started)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        if self._loop is not None and self._task is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(30)


@pytest.fixture(params=[None, True], ids=["our-extraction", "sdk-span-kept"])
def http_server(telemetry: Telemetry, request: pytest.FixtureRequest) -> Iterator[ServerThread]:
    """Our server, whose executor traces into the test's provider, over real HTTP.

    By default (no global provider) the server drops the SDK's span per message and runs
    the call in the client's context itself; with ``tracing=True`` the SDK's span does it.
    """
    registry = ToolRegistry([remote_add])
    executor = ToolExecutor(registry, hooks=[telemetry.hook()])
    server = MCPToolServer(registry, executor=executor, tracing=request.param)
    running = ServerThread(server)
    yield running
    running.stop()
    executor.close()


def call_through_client(telemetry: Telemetry, client_registry: ToolRegistry) -> ReadableSpan:
    """Call the imported tool inside an agent span; return that span."""
    executor = ToolExecutor(client_registry, hooks=[telemetry.hook()])
    tracer = telemetry.tracer_provider.get_tracer("agent")
    with tracer.start_as_current_span("agent turn") as agent:
        result = executor.run_sync("remote_add", {"a": 2, "b": 3})
    assert result.success, result.error
    assert result.output == 5
    return agent  # type: ignore[return-value]


def by_type(spans: list[ReadableSpan], kind: str) -> ReadableSpan:
    """The one tool span whose gen_ai.tool.type is ``kind``."""
    (found,) = [s for s in spans if (s.attributes or {}).get("gen_ai.tool.type") == kind]
    return found


def test_remote_tool_span_is_a_child_of_the_client_call_over_http(
    telemetry: Telemetry, http_server: ServerThread
) -> None:
    """agent turn → execute_tool (client, extension) → execute_tool (server): one trace."""
    client_registry = ToolRegistry()
    client: MCPClient = import_tools(client_registry, http_server.url)
    try:
        agent = call_through_client(telemetry, client_registry)
    finally:
        client.close()
    spans = telemetry.spans()
    local, remote = by_type(spans, "extension"), by_type(spans, "function")
    assert local.name == remote.name == "execute_tool remote_add"
    trace_id = agent.get_span_context().trace_id
    assert local.context is not None
    assert remote.context is not None
    assert local.context.trace_id == remote.context.trace_id == trace_id
    assert local.parent is not None
    assert local.parent.span_id == agent.get_span_context().span_id
    assert remote.parent is not None
    assert remote.parent.is_remote
    assert remote.parent.span_id == local.context.span_id


def test_remote_tool_span_is_a_child_of_the_client_call_over_stdio(
    telemetry: Telemetry, tmp_path: Path
) -> None:
    """The same across a stdio server subprocess, whose spans are written to a file."""
    spans_file = tmp_path / "spans.jsonl"
    env = {
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        "FORGE_TEST_SPANS": str(spans_file),
    }
    params = StdioServerParameters(command=sys.executable, args=[str(STDIO_SERVER)], env=env)
    client_registry = ToolRegistry()
    client = import_tools(client_registry, params)
    try:
        agent = call_through_client(telemetry, client_registry)
    finally:
        client.close()  # the server exits and flushes its spans
    local = by_type(telemetry.spans(), "extension")
    remote: dict[str, Any] = json.loads(spans_file.read_text().splitlines()[-1])
    assert remote["name"] == "execute_tool remote_add"
    assert remote["context"]["trace_id"] == f"0x{agent.get_span_context().trace_id:032x}"
    assert local.context is not None
    assert remote["parent_id"] == f"0x{local.context.span_id:016x}"
