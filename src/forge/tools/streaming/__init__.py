"""Assembling tool calls from streamed responses.

`ToolCallAccumulator` takes a provider's stream chunks or events one at a time (dicts,
JSON text, or the SDK's objects) and assembles complete `ToolCall`s: fragments of one call
are joined by the provider's key (OpenAI ``index``, Responses ``item_id``, Anthropic
``index``, Bedrock ``contentBlockIndex``), so two parallel calls are never merged and one
call is never split, whatever order the fragments arrive in. Arguments are decoded when
the call completes, as `forge.tools.parse_tool_calls` decodes them: repaired where safe,
otherwise the call carries the problem (a stream cut off mid-call gives truncated JSON,
reported as such).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from forge.tools.parsing import ToolCallFormatError, detect_provider, resolve_provider
from forge.tools.streaming.anthropic import AnthropicAccumulator
from forge.tools.streaming.bedrock import BedrockAccumulator
from forge.tools.streaming.gemini import GeminiAccumulator
from forge.tools.streaming.openai import ChatAccumulator
from forge.tools.streaming.responses import ResponsesAccumulator
from forge.tools.streaming.whole import McpAccumulator, OllamaAccumulator
from forge.tools.values.calls import ToolCall

__all__ = ["ToolCallAccumulator"]


class _Accumulator(Protocol):
    def add(self, chunk: Any) -> list[ToolCall]: ...
    def finish(self) -> list[ToolCall]: ...


_KINDS: dict[str, Callable[[], _Accumulator]] = {
    "openai": ChatAccumulator,
    "openai-responses": ResponsesAccumulator,
    "anthropic": AnthropicAccumulator,
    "gemini": GeminiAccumulator,
    "ollama": OllamaAccumulator,
    "bedrock": BedrockAccumulator,
    "mistral": ChatAccumulator,
    "mcp": McpAccumulator,
}


class ToolCallAccumulator:
    """Turns one streamed response into complete tool calls.

    Args:
        provider: The provider the stream comes from (see `forge.tools.parsing.PROVIDERS`);
            detected from the first chunk when ``None``.

    Feed every chunk or event to `add`, in order; it returns the calls that chunk
    completed (useful to start running a call before the stream ends). `finish` returns
    every call, in the order the model made them.

    >>> acc = ToolCallAccumulator("anthropic")
    >>> for event in [
    ...     {"type": "content_block_start", "index": 0,
    ...      "content_block": {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}},
    ...     {"type": "content_block_delta", "index": 0,
    ...      "delta": {"type": "input_json_delta", "partial_json": '{"a": 1, '}},
    ...     {"type": "content_block_delta", "index": 0,
    ...      "delta": {"type": "input_json_delta", "partial_json": '"b": 2}'}},
    ...     {"type": "content_block_stop", "index": 0},
    ... ]:
    ...     _ = acc.add(event)
    >>> acc.finish()[0].arguments
    {'a': 1, 'b': 2}
    """

    __slots__ = ("_impl", "provider")

    def __init__(self, provider: str | None = None) -> None:
        self.provider: str | None = None if provider is None else resolve_provider(provider)
        self._impl: _Accumulator | None = None
        if self.provider is not None:
            self._impl = _KINDS[self.provider]()

    def add(self, chunk: Any) -> list[ToolCall]:
        """Take the next chunk or event; return the calls it completed (often ``[]``).

        Raises:
            ToolCallFormatError: The provider was not given and the first chunk's shape
                matches none.
        """
        if isinstance(chunk, str | bytes | bytearray):
            try:
                chunk = json.loads(chunk)
            except (ValueError, RecursionError) as exc:
                raise ToolCallFormatError(f"the chunk text is not JSON: {exc}") from exc
        impl = self._impl
        if impl is None:
            self.provider = detect_provider(chunk)
            impl = self._impl = _KINDS[self.provider]()
        return impl.add(chunk)

    def finish(self) -> list[ToolCall]:
        """Return every call in order, finishing calls the stream left open.

        A call cut off mid-arguments carries ``argument_error`` (truncated JSON) and is
        answered with an ``invalid_json`` result when executed.
        """
        return self._impl.finish() if self._impl is not None else []
