"""Google Gemini ``streamGenerateContent`` chunks.

Chunks usually hold whole ``functionCall`` parts, which are collected across chunks and
never merged. Vertex AI can also stream one call's arguments in pieces (``partialArgs``,
``willContinue``): those are assembled, and the call is returned by the chunk holding its
last piece (see `forge.tools.parsing.gemini.GeminiCalls`). Ids generated for id-less calls
count calls across the whole stream, so they stay unique and stable.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing import field, items
from forge.tools.parsing.gemini import GeminiCalls
from forge.tools.values.calls import ToolCall

__all__ = ["GeminiAccumulator"]


class GeminiAccumulator:
    """Assembles calls from ``GenerateContentResponse`` chunks (dicts or SDK objects)."""

    def __init__(self) -> None:
        self._parts = GeminiCalls()
        self._calls: list[ToolCall] = []

    def add(self, chunk: Any) -> list[ToolCall]:
        """Take one chunk (a response, a content or a list of parts); return its calls."""
        if isinstance(chunk, list | tuple):
            parts: list[Any] = list(chunk)
        else:
            candidates = field(chunk, "candidates")
            content = chunk
            if candidates is not None:
                candidates = items(candidates)
                content = field(candidates[0], "content") if candidates else None
            parts = items(field(content, "parts")) if content is not None else []
        done = self._parts.add(parts)
        self._calls.extend(done)
        return done

    def finish(self) -> list[ToolCall]:
        """Every call, in order; a call still arriving in pieces is flagged incomplete."""
        self._calls.extend(self._parts.finish())
        return list(self._calls)
