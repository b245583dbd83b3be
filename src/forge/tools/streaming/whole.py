"""Providers whose stream chunks carry whole calls: Gemini, Ollama, and MCP requests.

Gemini's ``streamGenerateContent`` chunks hold complete ``functionCall`` parts (partial
arguments are a Vertex-only feature); Ollama's chunks hold complete ``tool_calls``. Calls
are collected across chunks and never merged. Ids generated for id-less calls count
calls across the whole stream, so they stay unique and stable.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing import gemini, mcp, openai
from forge.tools.parsing._common import field, items
from forge.tools.values.calls import ToolCall

__all__ = ["GeminiAccumulator", "McpAccumulator", "OllamaAccumulator"]


class _Collect:
    def __init__(self) -> None:
        self._calls: list[ToolCall] = []

    def finish(self) -> list[ToolCall]:
        """Every call, in order."""
        return list(self._calls)

    def _keep(self, calls: list[ToolCall]) -> list[ToolCall]:
        self._calls.extend(calls)
        return calls


class GeminiAccumulator(_Collect):
    """Collects ``functionCall`` parts from ``GenerateContentResponse`` chunks."""

    def add(self, chunk: Any) -> list[ToolCall]:
        """Take one chunk; return the calls it holds."""
        if isinstance(chunk, list | tuple):
            return self._keep(gemini.parse_parts(chunk, len(self._calls)))
        candidates = field(chunk, "candidates")
        content = chunk
        if candidates is not None:
            candidates = items(candidates)
            content = field(candidates[0], "content") if candidates else None
        parts = items(field(content, "parts")) if content is not None else []
        return self._keep(gemini.parse_parts(parts, len(self._calls)))


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
