"""A stdio MCP server whose tool calls are traced to the JSON-lines file $FORGE_TEST_SPANS."""

from __future__ import annotations

import asyncio
import os

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

from forge.mcp import MCPToolServer
from forge.mcp.serve import serve_stdio
from forge.tools import ToolExecutor, ToolRegistry, tool
from forge.tools.integrations.otel import OpenTelemetryHook


@tool
def remote_add(a: int, b: int) -> int:
    """Add two numbers on the server."""
    return a + b


def main() -> None:
    """Serve `remote_add` on stdio, one span per line in the file."""
    with open(os.environ["FORGE_TEST_SPANS"], "a", encoding="utf-8") as out:
        provider = TracerProvider()
        exporter = ConsoleSpanExporter(
            out=out, formatter=lambda span: span.to_json(indent=None) + "\n"
        )
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        registry = ToolRegistry([remote_add])
        executor = ToolExecutor(registry, hooks=[OpenTelemetryHook(tracer_provider=provider)])
        asyncio.run(serve_stdio(MCPToolServer(registry, executor=executor)))
        provider.shutdown()


if __name__ == "__main__":
    main()
