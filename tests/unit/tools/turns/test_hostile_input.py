"""Whatever a model or a broken proxy sends, reading a turn returns one or raises a format
error naming the problem, never anything else."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forge.core.errors import ForgeError
from forge.tools import ToolCallFormatError, ToolExecutor, ToolRegistry, TurnBuilder, read_turn
from forge.tools.turns import TURN_PROVIDERS

KEYS = st.sampled_from([
    "choices", "message", "delta", "content", "tool_calls", "function", "arguments", "name",
    "id", "index", "type", "text", "output", "candidates", "parts", "functionCall", "args",
    "thought", "thoughtSignature", "input", "partial_json", "content_block", "item",
    "output_index", "toolUse", "contentBlockDelta", "contentBlockStart", "contentBlockIndex",
    "start", "reasoningContent", "thinking", "signature", "response", "data", "role",
])  # fmt: skip
EVENT_TYPES = st.sampled_from([
    "message_start", "content_block_start", "content_block_delta", "content_block_stop",
    "text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta",
    "tool_use", "text", "thinking", "response.output_item.done", "response.completed",
    "response.output_text.delta", "response.created", "function_call", "message",
])  # fmt: skip
SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=8) | EVENT_TYPES
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=JSON, provider=st.sampled_from([None, *TURN_PROVIDERS]))
@example(value=[{"text": True}], provider="gemini")  # a non-string text (found by this test)
@example(value={"content": [{"type": "text", "text": 1}]}, provider="anthropic")
@example(value={"output": [{"type": "message", "content": [{"type": "output_text", "text": []}]}]},
         provider="openai-responses")  # fmt: skip
def test_read_turn_returns_or_raises_a_forge_error(value: Any, provider: str | None) -> None:
    """No input makes read_turn raise anything but a ForgeError."""
    try:
        turn = read_turn(value, provider)
    except ForgeError:
        return
    assert turn.provider in TURN_PROVIDERS
    assert isinstance(turn.text, str)


@settings(max_examples=300, deadline=None)
@given(events=st.lists(JSON, max_size=6), provider=st.sampled_from([None, *TURN_PROVIDERS]))
@example(
    events=[
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {"type": "content_block_start", "content_block": {"type": "text"}},
    ],
    provider="anthropic",
)  # a block without an index beside one with an index
@example(events=[{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "a"}}},
                 {"contentBlockDelta": {"delta": {"text": "b"}}}],
         provider="bedrock")  # fmt: skip
@example(
    events=[
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": True},
        },
    ],
    provider="anthropic",
)  # a fragment that is not text, joined at the end
@example(events=[{"model": "m", "message": {"role": "assistant", "thinking": 1}}],
         provider="ollama")  # fmt: skip
def test_turn_builder_returns_or_raises_a_forge_error(
    events: list[Any], provider: str | None
) -> None:
    """No stream makes TurnBuilder raise anything but a ForgeError."""
    builder = TurnBuilder(provider)
    try:
        for event in events:
            builder.add(event)
        turn = builder.finish()
    except ForgeError:
        return
    assert isinstance(turn.text, str)


@pytest.mark.parametrize("whole", [{"choices": []}, "text"])
def test_stream_turn_refuses_a_whole_response(whole: Any) -> None:
    """A whole response given as a stream is a TypeError saying to use run_turn."""
    from forge.tools import ToolRegistry

    with pytest.raises(TypeError, match="run_turn"):
        ToolRegistry().stream_turn(whole)


WRONG_CONTENT = [
    ({"output": [{"type": "message", "role": "assistant", "content": True}]}, "openai-responses"),
    ({"output": [{"type": "message", "role": "assistant", "content": 5}]}, "openai-responses"),
    ({"output": [{"type": "message", "role": "assistant", "content": True}]}, None),
    ({"choices": [{"message": {"role": "assistant",
                               "content": [{"type": "text", "text": ["a"]}]}}]}, "openai"),
    ({"choices": [{"message": {"role": "assistant",
                               "content": [{"type": "text", "text": {"a": 1}}]}}]}, None),
    ({"message": {"role": "assistant", "content": [{"type": "text", "text": ["a"]}]}}, "ollama"),
]  # fmt: skip


@pytest.mark.parametrize(("response", "provider"), WRONG_CONTENT)
def test_content_or_text_parts_of_the_wrong_type_are_format_errors(
    response: Any, provider: str | None
) -> None:
    """read_turn and run_turn (sync and async) raise ToolCallFormatError, not TypeError."""
    registry = ToolRegistry()
    with pytest.raises(ToolCallFormatError, match="not a"):
        read_turn(response, provider)
    with pytest.raises(ToolCallFormatError, match="not a"):
        registry.run_turn(response, provider=provider)
    with pytest.raises(ToolCallFormatError, match="not a"):
        asyncio.run(ToolExecutor(registry).run_turn(response, provider=provider))
