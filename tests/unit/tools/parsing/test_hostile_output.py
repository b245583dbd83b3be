"""Hostile model output: every payload gives calls or `ToolCallFormatError`, nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forge.tools import ToolCall, ToolCallAccumulator, parse_tool_calls
from forge.tools.parsing import PROVIDERS, ToolCallFormatError
from forge.tools.values._repair import MAX_REPAIR_CHARS
from tests.fuzz.strategies import chunks
from tests.fuzz.targets import check_stream

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


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from([None, *PROVIDERS]))
def test_any_chunk_sequence_gives_calls_or_the_format_error(
    data: st.DataObject, provider: str | None
) -> None:
    """Every accumulator takes any chunk sequence: well-formed calls or ToolCallFormatError."""
    check_stream(data.draw(chunks(provider or "auto")), provider)


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


DEEP_TEXT = '{"a": ' + "[" * 5_000 + "]" * 5_000 + "}"
HUGE_INTEGER_TEXT = '{"n": ' + "7" * 5_000 + "}"


def openai_call(arguments: Any, name: str = "f", call_id: Any = "call_1") -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    return {"tool_calls": [{"id": call_id, "type": "function", "function": function}]}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (DEEP_TEXT, "nested too deeply"),
        (HUGE_INTEGER_TEXT, "more than"),
        (HUGE_INTEGER_TEXT[:-1] + ",}", "more than"),
        (HUGE_INTEGER_TEXT.replace('"', "'"), "not valid JSON"),
    ],
)
def test_unreadable_argument_text_flags_the_call(text: str, problem: str) -> None:
    (call,) = parse_tool_calls(openai_call(text), "openai")
    assert call.argument_error is not None
    assert problem in call.argument_error
    assert call.arguments == {}


def test_a_lone_surrogate_in_argument_text_decodes_like_its_escape() -> None:
    (raw,) = parse_tool_calls(openai_call('{"a": "x\ud800"}'), "openai")
    (escaped,) = parse_tool_calls(openai_call('{"a": "x\\ud800"}'), "openai")
    # both replaced with U+FFFD (UTF-8 cannot carry a lone surrogate), the call marked
    assert raw.arguments == escaped.arguments == {"a": "x\ufffd"}
    assert raw.argument_error is None
    assert raw.repaired


def huge_and_odd_payloads() -> list[tuple[str, Any]]:
    huge = {"n": 10**5_000, "s": "\ud800"}
    name = "f\ud800"
    chat_call = {"type": "function", "function": {"name": name, "arguments": "{}"}}
    ollama_call = {"function": {"name": name, "arguments": huge}}
    return [
        ("openai", {"tool_calls": [chat_call]}),
        ("ollama", {"model": "m", "message": {"tool_calls": [ollama_call]}}),
        ("anthropic", [{"type": "tool_use", "name": name, "input": huge}]),
        ("bedrock", [{"toolUse": {"name": name, "input": huge}}]),
        ("gemini", [{"functionCall": {"name": name, "args": huge}}]),
        ("mcp", {"method": "tools/call", "params": {"name": name, "arguments": huge}}),
        ("openai-responses", [{"type": "function_call", "name": name, "arguments": "{}"}]),
    ]  # fmt: skip


@pytest.mark.parametrize(("provider", "payload"), huge_and_odd_payloads())
def test_huge_integers_and_surrogates_without_an_id_still_give_a_call(
    provider: str, payload: Any
) -> None:
    (call,) = parse_tool_calls(payload, provider)
    assert call.name == "f\ud800"
    assert call.id == parse_tool_calls(payload, provider)[0].id  # the generated id is stable


def id_payloads(odd: Any) -> list[tuple[str, Any]]:
    return [
        ("anthropic", [{"type": "tool_use", "id": odd, "name": "f", "input": {}}]),
        ("bedrock", {"output": {"message": {"content": [
            {"toolUse": {"toolUseId": odd, "name": "f", "input": {}}}]}}}),
        ("openai", openai_call("{}", call_id=odd)),
        ("openai-responses", [{"type": "function_call", "call_id": odd, "name": "f"}]),
        ("gemini", [{"functionCall": {"id": odd, "name": "f", "args": {}}}]),
    ]  # fmt: skip


@pytest.mark.parametrize("odd", [{"x": 1}, ["a"], 7, True])
def test_an_id_that_is_not_a_string_is_a_format_error(odd: Any) -> None:
    for provider, payload in id_payloads(odd):
        with pytest.raises(ToolCallFormatError, match="not a string"):
            parse_tool_calls(payload, provider)


@pytest.mark.parametrize("odd", [{"x": 1}, [1], True, 1.5])
def test_an_mcp_request_id_must_be_a_string_or_integer(odd: Any) -> None:
    request = {"jsonrpc": "2.0", "id": odd, "method": "tools/call", "params": {"name": "f"}}
    with pytest.raises(ToolCallFormatError, match="JSON-RPC"):
        parse_tool_calls(request, "mcp")
    (call,) = parse_tool_calls({**request, "id": 3}, "mcp")
    assert call.id == "3"


def test_streamed_ids_that_are_not_strings_are_format_errors() -> None:
    starts = [
        ("anthropic", {"type": "content_block_start", "index": 0,
                       "content_block": {"type": "tool_use", "id": {"x": 1}, "name": "f"}}),
        ("bedrock", {"contentBlockStart": {"contentBlockIndex": 0,
                     "start": {"toolUse": {"toolUseId": {"x": 1}, "name": "f"}}}}),
        ("openai-responses", {"type": "response.output_item.added", "output_index": 0,
                              "item": {"type": "function_call", "id": "fc", "call_id": [1],
                                       "name": "f"}}),
    ]  # fmt: skip
    for provider, event in starts:
        with pytest.raises(ToolCallFormatError, match="not a string"):
            ToolCallAccumulator(provider).add(event)


def test_argument_text_past_the_repair_bound_is_flagged_not_repaired() -> None:
    short = "{'text': 'x',}"
    (call,) = parse_tool_calls(openai_call(short), "openai")
    assert call.repaired
    assert call.argument_error is None
    long = "{'text': '" + "x" * MAX_REPAIR_CHARS + "',}"
    (call,) = parse_tool_calls(openai_call(long), "openai")
    assert call.argument_error is not None
    assert "too long to repair" in call.argument_error
    assert str(MAX_REPAIR_CHARS) in call.argument_error
    assert call.arguments == {}
    assert not call.repaired


@pytest.mark.parametrize("odd", [[1], {"a": 1}, "0", True])
def test_a_streamed_block_index_that_is_not_an_integer_is_a_format_error(odd: Any) -> None:
    events = [
        ("anthropic", {"type": "content_block_start", "index": odd,
                       "content_block": {"type": "tool_use", "id": "a", "name": "f"}}),
        ("anthropic", {"type": "content_block_delta", "index": odd,
                       "delta": {"type": "input_json_delta", "partial_json": "{"}}),
        ("anthropic", {"type": "content_block_stop", "index": odd}),
        ("bedrock", {"contentBlockStart": {"contentBlockIndex": odd,
                     "start": {"toolUse": {"toolUseId": "a", "name": "f"}}}}),
        ("bedrock", {"contentBlockDelta": {"contentBlockIndex": odd,
                     "delta": {"toolUse": {"input": "{"}}}}),
        ("bedrock", {"contentBlockStop": {"contentBlockIndex": odd}}),
    ]  # fmt: skip
    for provider, event in events:
        with pytest.raises(ToolCallFormatError, match="not an integer"):
            ToolCallAccumulator(provider).add(event)


def unshowable_payloads() -> list[tuple[str, Any]]:
    """A nameless call whose error message would quote a value ``repr`` cannot write."""
    deep: dict[str, Any] = {}
    for _ in range(5_000):
        deep = {"a": deep}
    payloads = []
    for odd in (10**5_000, deep):
        payloads += [
            ("gemini", [{"functionCall": {"args": odd}}]),
            ("anthropic", [{"type": "tool_use", "input": odd}]),
            ("bedrock", [{"toolUse": {"input": odd}}]),
            ("openai", {"tool_calls": [{"type": "function", "function": {"arguments": odd}}]}),
            ("openai-responses", [{"type": "function_call", "arguments": odd}]),
            ("mcp", {"method": "tools/call", "params": {"arguments": odd}}),
        ]
    return payloads


@pytest.mark.parametrize(("provider", "payload"), unshowable_payloads())
def test_an_error_quoting_an_unshowable_value_is_still_a_format_error(
    provider: str, payload: Any
) -> None:
    """A 5,000-digit integer or 5,000-deep value in a broken call gives the format error."""
    with pytest.raises(ToolCallFormatError, match="no"):
        parse_tool_calls(payload, provider)
    if provider == "gemini":  # the stream's chunks go through the same part parser
        with pytest.raises(ToolCallFormatError):
            ToolCallAccumulator(provider).add({"candidates": [{"content": {"parts": payload}}]})


def openai_chunk(call_id: Any = "c1", arguments: Any = "{}") -> dict[str, Any]:
    fragment = {"index": 0, "id": call_id, "type": "function",
                "function": {"name": "f", "arguments": arguments}}  # fmt: skip
    return {"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]}


def test_a_streamed_integer_id_past_the_digit_limit_is_a_format_error() -> None:
    """An OpenAI stream id of 5,000 digits is the format error, not a ValueError."""
    with pytest.raises(ToolCallFormatError, match="4300 digits"):
        ToolCallAccumulator("openai").add(openai_chunk(call_id=10**5_000))


def test_streamed_arguments_that_are_a_huge_integer_flag_the_call() -> None:
    """Arguments that are a 5,000-digit integer give a flagged call with a string id."""
    accumulator = ToolCallAccumulator("openai")
    accumulator.add(openai_chunk(arguments=10**5_000))
    (call,) = accumulator.finish()
    assert call.id == "c1"
    assert call.argument_error is not None
    assert "must be a JSON object" in call.argument_error


@pytest.mark.parametrize("provider", [None, "openai", "anthropic", "bedrock", "gemini"])
def test_chunk_text_nested_past_the_parser_is_a_format_error(provider: str | None) -> None:
    """A chunk given as text nested 100,000 deep is the format error, not a RecursionError."""
    with pytest.raises(ToolCallFormatError, match="not JSON"):
        ToolCallAccumulator(provider).add("[" * 100_000 + "]" * 100_000)
