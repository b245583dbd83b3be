"""Server-side tool search in responses and streams: not calls; what it revealed.

The fixtures (``tests/unit/tools/golden/tool_search``, sources in its README) are each
first validated by the provider SDK's own types, then read as dicts and as SDK objects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forge.tools import (
    ToolCall,
    ToolCallAccumulator,
    ToolCallFormatError,
    TurnBuilder,
    parse_tool_calls,
    read_turn,
    revealed_tools,
)

GOLDEN = Path(__file__).parents[1] / "golden" / "tool_search"


def load(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def anthropic_message() -> Any:
    from anthropic.types import Message

    return Message.model_validate(load("anthropic_message.json"))


def anthropic_events() -> list[Any]:
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    return [adapter.validate_python(e) for e in load("anthropic_stream.json")]


def responses_response() -> Any:
    from openai.types.responses import Response

    return Response.model_validate(load("responses_response.json"))


def responses_events() -> list[Any]:
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    return [adapter.validate_python(e) for e in load("responses_stream.json")]


def read_lazy(value: Any) -> Any:
    """A validated value with the iterables pydantic validates lazily read into lists."""
    if isinstance(value, dict):
        return {k: read_lazy(v) for k, v in value.items()}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return [read_lazy(v) for v in value]


ANTHROPIC_CALL = ToolCall("toolu_01XYZ789", "get_weather",
                          {"location": "San Francisco", "unit": "fahrenheit"})  # fmt: skip
RESPONSES_CALL = ToolCall("call_01", "get_weather", {"location": "San Francisco"})


@pytest.mark.parametrize("as_sdk", [False, True])
def test_anthropic_message_search_blocks_are_not_calls(as_sdk: bool) -> None:
    """Only the tool_use is a call; the tool_reference names are what was revealed."""
    message = anthropic_message() if as_sdk else load("anthropic_message.json")
    assert parse_tool_calls(message) == [ANTHROPIC_CALL]
    assert revealed_tools(message) == ["get_weather"]
    turn = read_turn(message)
    assert turn.calls == (ANTHROPIC_CALL,)
    assert turn.revealed == ("get_weather",)
    assert turn.text.startswith("I'll search for tools")


def test_anthropic_turn_echoes_the_search_blocks_unchanged() -> None:
    """The assistant turn holds every block as returned, valid as the SDK's message param."""
    from anthropic.types import ContentBlockParam
    from pydantic import TypeAdapter

    turn = read_turn(load("anthropic_message.json"))
    (message,) = turn.items
    assert message["content"] == load("anthropic_message.json")["content"]
    adapter: TypeAdapter[Any] = TypeAdapter(ContentBlockParam)  # alive while its iterators are read
    for block in message["content"]:
        assert read_lazy(adapter.validate_python(block)) == block
    answered = turn.answer([])
    assert answered.revealed == ("get_weather",)


def test_anthropic_stream_matches_the_sdks_own_accumulator() -> None:
    """Our turn from the stream equals what the SDK accumulates; the search is no call."""
    from anthropic.lib.streaming._messages import accumulate_event

    events = anthropic_events()
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in events:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    expected = [b.model_dump(mode="json", exclude_none=True) for b in snapshot.content]

    builder = TurnBuilder()
    for event in events:
        builder.add(event)
    turn = builder.finish()
    assert list(turn.items[0]["content"]) == expected
    assert turn.calls == (ANTHROPIC_CALL,)
    assert turn.revealed == ("get_weather", "get_forecast")
    assert turn.items[0]["content"][1]["input"] == {"query": "weather forecast"}

    accumulator = ToolCallAccumulator("anthropic")
    for event in load("anthropic_stream.json"):
        accumulator.add(event)
    assert accumulator.finish() == [ANTHROPIC_CALL]


@pytest.mark.parametrize("as_sdk", [False, True])
def test_responses_search_items_are_not_calls(as_sdk: bool) -> None:
    """tool_search_call / tool_search_output are skipped; their functions are revealed."""
    response = responses_response() if as_sdk else load("responses_response.json")
    assert parse_tool_calls(response) == [RESPONSES_CALL]
    assert revealed_tools(response) == ["get_weather", "lookup_customer"]
    turn = read_turn(response)
    assert turn.revealed == ("get_weather", "lookup_customer")
    assert [item["type"] for item in turn.items] == [
        "tool_search_call", "tool_search_output", "function_call"]  # fmt: skip


def test_responses_turn_goes_back_as_valid_input_items() -> None:
    """The echoed items are the SDK's input items (the search items included)."""
    from openai.types.responses import ResponseInputItemParam
    from pydantic import TypeAdapter

    turn = read_turn(load("responses_response.json"))
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseInputItemParam)
    for item in turn.items:
        adapter.validate_python(item)
    assert list(turn.items) == load("responses_response.json")["output"]


def test_responses_stream_reveals_and_calls() -> None:
    """From the stream: one call, the revealed names, the items in output order."""
    builder = TurnBuilder("openai-responses")
    for event in responses_events():
        builder.add(event)
    turn = builder.finish()
    assert turn.calls == (RESPONSES_CALL,)
    assert turn.revealed == ("get_weather", "lookup_customer")
    accumulator = ToolCallAccumulator("openai-responses")
    for event in load("responses_stream.json"):
        accumulator.add(event)
    assert accumulator.finish() == [RESPONSES_CALL]


def test_providers_without_tool_search_reveal_nothing() -> None:
    """A chat completion reveals no tool; a failed search reveals none either."""
    chat = {"role": "assistant", "content": "hi"}
    assert revealed_tools(chat, "openai") == []
    assert revealed_tools(None, "anthropic") == []
    failed = {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
              "content": {"type": "tool_search_tool_result_error",
                          "error_code": "unavailable"}}  # fmt: skip
    assert revealed_tools([failed], "anthropic") == []
    assert revealed_tools(json.dumps([failed]), "anthropic") == []


def test_malformed_search_blocks_are_format_errors() -> None:
    """tool_references that is not a list, or text that is not JSON, is named."""
    bad = {"type": "tool_search_tool_result", "tool_use_id": "x",
           "content": {"type": "tool_search_tool_search_result", "tool_references": 3}}  # fmt: skip
    with pytest.raises(ToolCallFormatError, match="tool_references is not a list"):
        revealed_tools([bad], "anthropic")
    with pytest.raises(ToolCallFormatError, match="tools is not a list"):
        revealed_tools([{"type": "tool_search_output", "tools": "x"}], "openai-responses")
    with pytest.raises(ToolCallFormatError, match="not JSON"):
        revealed_tools("{", "anthropic")
    assert revealed_tools({"type": "tool_search_output", "tools": []}) == []


NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,30}", fullmatch=True)
JUNK = st.none() | st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=2)


@given(st.lists(st.lists(NAMES, max_size=4), max_size=4), st.booleans())
def test_anthropic_reveals_every_reference_in_order(groups: list[list[str]], failed: bool) -> None:
    """Any mix of search results and other blocks: the names, in order, and no calls."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": "searching"}]
    for i, group in enumerate(groups):
        blocks.append({"type": "server_tool_use", "id": f"srvtoolu_{i}",
                       "name": "tool_search_tool_bm25", "input": {"query": "q"}})  # fmt: skip
        content: dict[str, Any] = (
            {"type": "tool_search_tool_result_error", "error_code": "unavailable"} if failed
            else {"type": "tool_search_tool_search_result",
                  "tool_references": [{"type": "tool_reference", "tool_name": n} for n in group]}
        )  # fmt: skip
        blocks.append({"type": "tool_search_tool_result", "tool_use_id": f"srvtoolu_{i}",
                       "content": content})  # fmt: skip
    message = {"role": "assistant", "content": blocks}
    expected = [] if failed else [n for group in groups for n in group]
    assert revealed_tools(message, "anthropic") == expected
    assert parse_tool_calls(message, "anthropic") == []
    assert read_turn(message, "anthropic").revealed == tuple(expected)


@given(st.lists(st.tuples(NAMES, st.booleans()), max_size=6))
def test_responses_reveals_functions_and_namespace_members(tools: list[tuple[str, bool]]) -> None:
    """Functions at the top and inside namespaces are revealed, in order."""
    loaded: list[dict[str, Any]] = []
    for name, nested in tools:
        function = {"type": "function", "name": name, "parameters": {"type": "object"},
                    "strict": False}  # fmt: skip
        loaded.append({"type": "namespace", "name": "ns", "description": "d",
                       "tools": [function]} if nested else function)  # fmt: skip
    output = [{"type": "tool_search_output", "id": "tso", "execution": "server",
               "status": "completed", "tools": loaded}]  # fmt: skip
    assert revealed_tools({"output": output}, "openai-responses") == [n for n, _ in tools]


@given(st.dictionaries(st.sampled_from(["type", "content", "tool_references", "tool_name"]),
                       JUNK, max_size=4))  # fmt: skip
def test_hostile_blocks_reveal_names_or_fail_clearly(block: dict[str, Any]) -> None:
    """Junk in a block never crashes: a list of names, or a ToolCallFormatError."""
    for provider in ("anthropic", "openai-responses"):
        try:
            found = revealed_tools([block], provider)
        except ToolCallFormatError:
            continue
        assert all(isinstance(n, str) for n in found)
