"""Property tests for argument decoding and for the parsers of every provider."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ToolCall, parse_tool_calls
from forge.tools.values._repair import decode_arguments

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)  # fmt: skip
ARGUMENTS = st.dictionaries(st.text(max_size=8), JSON, max_size=5)
NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,20}", fullmatch=True)
IDS = st.from_regex(r"[A-Za-z0-9_]{1,24}", fullmatch=True)


@given(ARGUMENTS, st.sampled_from([None, 0, 2]), st.booleans())
def test_valid_json_objects_decode_exactly(
    arguments: dict[str, Any], indent: Any, ascii_: bool
) -> None:
    """Any JSON object text, however formatted, decodes to itself and is not 'repaired'."""
    text = json.dumps(arguments, indent=indent, ensure_ascii=ascii_)
    assert decode_arguments(text) == (arguments, False, None)


@given(st.data(), ARGUMENTS.filter(bool))
def test_every_truncation_is_reported_never_guessed(data: st.DataObject, arguments: Any) -> None:
    """Any strict, non-empty prefix of a JSON object is flagged, never run with guesses."""
    text = json.dumps(arguments)
    cut = data.draw(st.integers(1, len(text) - 1))
    decoded = decode_arguments(text[:cut])
    assert decoded.error is not None
    assert decoded.arguments == {}
    assert not decoded.repaired


@given(ARGUMENTS.filter(bool))
def test_a_trailing_comma_is_repaired_to_the_same_object(arguments: dict[str, Any]) -> None:
    """A trailing comma before the final brace is a safe repair that loses nothing."""
    text = json.dumps(arguments)
    decoded = decode_arguments(text[:-1] + ",}")
    assert decoded.arguments == arguments
    assert decoded.repaired
    assert decoded.error is None


@given(st.text(max_size=40))
def test_decoding_never_crashes(text: str) -> None:
    """Arbitrary text gives a dict or a problem, never an exception or a silent {}."""
    decoded = decode_arguments(text)
    assert isinstance(decoded.arguments, dict)
    if decoded.error is not None:
        assert decoded.arguments == {}
    elif decoded.arguments == {}:
        assert text.strip().strip("{}, \t\r\n`").strip() in ("", "null", "json") or decoded.repaired


def _responses(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    chat = [{"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls]  # fmt: skip
    return {
        "openai": {"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": chat}}]},
        "mistral": {"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [
            {"id": i, "function": {"name": n, "arguments": a}} for i, n, a in calls]}}]},
        "openai-responses": {"output": [
            {"type": "function_call", "id": f"fc_{i}", "call_id": i, "name": n,
             "arguments": json.dumps(a)} for i, n, a in calls]},
        "anthropic": {"type": "message", "role": "assistant", "content": [
            {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]},
        "gemini": {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls]}}]},
        "bedrock": {"output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in calls]}}},
        "mcp": [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
                 "params": {"name": n, "arguments": a}} for i, n, a in calls],
    }  # fmt: skip


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(IDS, NAMES, ARGUMENTS), min_size=1, max_size=5, unique_by=lambda c: c[0]))
def test_every_provider_parses_what_it_was_given(calls: list[tuple[str, str, Any]]) -> None:
    """For each provider, parsing a response with these calls gives them back exactly."""
    expected = [ToolCall(i, n, a) for i, n, a in calls]
    for provider, response in _responses(calls).items():
        assert parse_tool_calls(response, provider) == expected, provider
        assert parse_tool_calls(response) == expected, provider


PY_SAFE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)  # fmt: skip


@settings(max_examples=200)
@given(st.dictionaries(st.text(max_size=8), PY_SAFE, min_size=1, max_size=4))
def test_a_python_literal_is_repaired_exactly_or_refused(arguments: dict[str, Any]) -> None:
    """Models often send ``repr(dict)``: it is repaired to the same object, or reported.

    A repair that silently changed a value would be worse than no repair.
    """
    decoded = decode_arguments(repr(arguments))
    if decoded.error is None:
        assert decoded.arguments == arguments
