"""Providers whose stream chunks carry whole calls: Ollama, and MCP requests.

Ollama's chunks hold complete ``tool_calls``. Calls are collected across chunks and never
merged. Ids generated for id-less calls count calls across the whole stream, so they stay
unique and stable. (Gemini, whose calls are usually whole but can arrive in pieces on
Vertex AI, has its own module.)
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing import field, items, mcp, openai
from forge.tools.values.calls import ToolCall

__all__ = ["McpAccumulator", "OllamaAccumulator"]


class _Collect:
    def __init__(self) -> None:
        self._calls: list[ToolCall] = []

    def finish(self) -> list[ToolCall]:
        """Every call, in order."""
        return list(self._calls)

    def _keep(self, calls: list[ToolCall]) -> list[ToolCall]:
        self._calls.extend(calls)
        return calls


class OllamaAccumulator(_Collect):
    """Collects ``message.tool_calls`` from ``/api/chat`` stream chunks."""

    def add(self, chunk: Any) -> list[ToolCall]:
        """Take one chunk; return the calls it holds."""
        message = field(chunk, "message")
        tool_calls = items(field(message if message is not None else chunk, "tool_calls"))
        return self._keep(openai.parse_tool_call_list(tool_calls, len(self._calls)))


class McpAccumulator(_Collect):
    """Collects ``tools/call`` requests."""

    def add(self, chunk: Any) -> list[ToolCall]:
        """Take one request; return its call."""
        return self._keep(mcp.parse(chunk))
