"""OpenTelemetry for tool calls: GenAI-convention spans and metrics, and trace propagation.

Install `OpenTelemetryHook` in an executor (``ToolExecutor(registry,
hooks=[OpenTelemetryHook()])``, or ``instrument(executor)``) to get an
``execute_tool {name}`` span, a duration histogram and a call counter per call
(`forge.tools.integrations.otel._hook` lists the attributes). `inject_context` and
`attach_context` carry the trace across processes: our MCP client and server use them,
so a remote tool's span is a child of the call that reached it.

Everything here works without OpenTelemetry installed (the hook is then inert and the
propagation helpers do nothing); ``pip install 'forge-tools[otel]'`` adds the SDK.
"""

from __future__ import annotations

from forge.tools.integrations.otel._hook import (
    DURATION_BUCKETS,
    OpenTelemetryHook,
    instrument,
    tool_type,
)
from forge.tools.integrations.otel._propagation import attach_context, inject_context

__all__ = [
    "DURATION_BUCKETS",
    "OpenTelemetryHook",
    "attach_context",
    "inject_context",
    "instrument",
    "tool_type",
]
