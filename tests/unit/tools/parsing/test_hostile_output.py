"""Hostile model output: every payload gives calls or `ToolCallFormatError`, nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forge.tools import ToolCall, parse_tool_calls
from forge.tools.parsing import PROVIDERS, ToolCallFormatError

# Keys the parsers and the provider detection look at, so generated payloads reach them.
KEYS = st.sampled_from(
    ["type", "id", "name", "input", "arguments", "args", "function", "tool_calls", "choices",
     "message", "content", "parts", "candidates", "functionCall", "function_call", "output",
     "toolUse", "toolUseId", "method", "params", "model", "done", "call_id", "delta", "data"]
) | st.text(max_size=4)  # fmt: skip
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["function", "tool_use", "message", "function_call", "tools/call"])
)  # fmt: skip
PAYLOADS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=16,
)


def parse_or_format_error(payload: Any, provider: str | None = None) -> list[ToolCall]:
    try:
        calls = parse_tool_calls(payload, provider)
    except ToolCallFormatError:
        return []
    for call in calls:
        assert isinstance(call.id, str)
        assert isinstance(call.name, str)
    return calls


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(PAYLOADS, st.sampled_from([None, *PROVIDERS]))
def test_any_json_like_payload_gives_calls_or_the_format_error(
    payload: Any, provider: str | None
) -> None:
    parse_or_format_error(payload, provider)


@pytest.mark.parametrize("kind", [[], {}, [1, 2], {"a": 1}])
def test_a_type_that_is_not_a_string_is_a_format_error(kind: Any) -> None:
    with pytest.raises(ToolCallFormatError, match="provider"):
        parse_tool_calls({"type": kind})


def test_content_that_is_not_a_list_is_a_format_error() -> None:
    for content in (5, True, "text"):
        with pytest.raises(ToolCallFormatError):
            parse_tool_calls({"type": "message", "content": content})


def test_deeply_nested_response_text_and_messages_are_format_errors() -> None:
    with pytest.raises(ToolCallFormatError, match="not JSON"):
        parse_tool_calls("[" * 100_000 + "]" * 100_000)
    nested: dict[str, Any] = {"type": "x"}
    for _ in range(5_000):
        nested = {"message": nested}
    with pytest.raises(ToolCallFormatError):
        parse_tool_calls(nested)
