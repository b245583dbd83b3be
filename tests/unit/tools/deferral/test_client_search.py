"""Native deferral with the search run by the client: ``tool_search="client"``
exports and native sessions, checked against the providers' SDK types and the documented
shapes of ``tests/unit/tools/golden/tool_search``."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from forge.tools import ToolRegistry, tool
from forge.tools.formats.deferral import NoNativeSearchError
from forge.tools.parsing import revealed_tools

GOLDEN = Path(__file__).parents[1] / "golden" / "tool_search"


def golden(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def exact(kind: Any, value: Any) -> None:
    """``value`` validates as ``kind`` (an SDK request type) and loses no key doing so."""
    assert json.loads(json.dumps(TypeAdapter(kind).validate_python(value), default=list)) == (
        json.loads(json.dumps(value))
    )


def registry() -> ToolRegistry:
    reg = ToolRegistry()

    @tool
    def get_weather(location: str) -> dict[str, Any]:
        """Get the current weather for a city."""
        return {"location": location, "temp": 21}

    @tool
    def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
        """Convert an amount of money from one currency to another."""
        return {"amount": amount, "result": 108.0}

    @tool
    def find_recipe(query: str) -> str:
        """Find a cooking recipe by a free-text query."""
        return query

    for t in (get_weather, convert_currency, find_recipe):
        reg.register(t)
    return reg


# -- exports --------------------------------------------------------------------------------


def test_responses_client_export_is_a_tool_param() -> None:
    from openai.types.responses import ToolParam

    tools = registry().to_provider("openai-responses", defer=["convert_currency"],
                                   tool_search="client")  # fmt: skip
    exact(list[ToolParam], tools)
    search = tools[-1]
    assert (search["type"], search["execution"]) == ("tool_search", "client")
    assert search["parameters"]["properties"]["query"]["type"] == "string"
    assert [t.get("defer_loading", False) for t in tools[:-1]] == [False, True, False]


def test_anthropic_client_export_is_a_tool_union_param() -> None:
    from anthropic.types import ToolUnionParam

    tools = registry().to_provider("anthropic", defer=True, tool_search="client")
    exact(list[ToolUnionParam], tools)
    assert [t.get("defer_loading") for t in tools[:-1]] == [True, True, True]
    assert tools[-1]["name"] == "search_tools"
    assert "defer_loading" not in tools[-1]  # the search tool itself is always loaded


def test_client_export_refuses_a_taken_search_name() -> None:
    reg = registry()
    reg.register(tool(lambda query: query, name="search_tools", description="Mine."))
    with pytest.raises(ValueError, match="search_name"):
        reg.to_provider("anthropic", defer=True, tool_search="client")


def test_client_export_search_tool_searches_the_registry() -> None:
    from forge.tools.deferral._export import _search_tool

    reg = registry()
    found = _search_tool(reg, reg.names())(query="convert currency")
    assert found["tools"][0] == {"name": "convert_currency"}


def test_native_session_tools_defer_all_but_pinned() -> None:
    from anthropic.types import ToolUnionParam
    from openai.types.responses import ToolParam

    for provider, kind in (("anthropic", ToolUnionParam), ("openai-responses", ToolParam)):
        session = registry().deferred(provider, native=True, pinned=["get_weather"])
        tools = session.tools()
        exact(list[kind], tools)  # type: ignore[valid-type]
        assert [t.get("defer_loading", False) for t in tools[:-1]] == [False, True, True]


def test_native_needs_a_provider_with_native_deferral() -> None:
    with pytest.raises(NoNativeSearchError, match=r"registry\.deferred"):
        registry().deferred("openai", native=True)
    with pytest.raises(ValueError, match="max_tokens"):
        registry().deferred("anthropic", native=True, max_tokens=5000)
    with pytest.raises(TypeError, match="native"):
        registry().deferred("anthropic", native="yes")  # type: ignore[arg-type]


# -- turns ----------------------------------------------------------------------------------


def test_responses_client_search_answered_with_tool_search_output() -> None:
    from openai.types.responses import Response, ResponseInputItemParam

    session = registry().deferred("openai-responses", native=True)
    first = golden("responses_client_response.json")
    turn = session.run_turn(Response.model_validate(first))
    assert not turn.done
    assert turn.revealed == ("convert_currency",) == tuple(revealed_tools(turn.messages))[:1]
    echoed, output = turn.messages[0], turn.messages[-1]
    assert echoed["type"] == "tool_search_call"
    assert echoed["call_id"] == "call_ts_01"
    for item in turn.messages:
        exact(ResponseInputItemParam, item)
    assert (output["type"], output["call_id"], output["execution"]) == (
        "tool_search_output",
        "call_ts_01",
        "client",
    )
    loaded = [t["name"] for t in output["tools"]]
    assert loaded[0] == "convert_currency"
    by_name = {t.get("name"): t for t in session.tools()}
    assert output["tools"][0] == by_name["convert_currency"]  # the request's own definition


def test_anthropic_client_search_answered_with_tool_references() -> None:
    from anthropic.types import MessageParam

    session = registry().deferred("anthropic", native=True)
    turn = session.run_turn(golden("anthropic_client_message.json"))
    assert not turn.done
    assistant, results = turn.messages
    exact(MessageParam, assistant)
    exact(MessageParam, results)
    (block,) = results["content"]
    assert block["tool_use_id"] == "toolu_01Search"
    assert block["content"][0] == {"type": "tool_reference", "tool_name": "convert_currency"}
    assert turn.revealed[0] == "convert_currency"
    assert revealed_tools(results, "anthropic") == list(turn.revealed)


def test_anthropic_search_that_finds_nothing_keeps_its_text() -> None:
    reg = registry()
    session = reg.deferred("anthropic", native=True, pinned=reg.names())  # none to find
    message = golden("anthropic_client_message.json")
    turn = session.run_turn(message)
    (block,) = turn.messages[-1]["content"]
    assert "No tool matches" in block["content"]
    assert block["is_error"] is False
    assert turn.revealed == ()


@pytest.mark.parametrize("arguments", [{"query": 3}, {}, {"query": " "}, {"nope": "x"}])
def test_anthropic_bad_search_arguments_get_an_error_result(arguments: dict[str, Any]) -> None:
    session = registry().deferred("anthropic", native=True)
    message = golden("anthropic_client_message.json")
    message["content"][-1]["input"] = arguments
    turn = session.run_turn(message)
    (block,) = turn.messages[-1]["content"]
    assert block["is_error"] is True
    assert isinstance(block["content"], str)
    assert block["content"]
    assert turn.revealed == ()


@pytest.mark.parametrize("arguments", ["{bad", [1, 2], {"query": 3}, "null", {}])
def test_responses_bad_search_arguments_get_an_error_result(arguments: Any) -> None:
    from openai.types.responses import ResponseInputItemParam

    session = registry().deferred("openai-responses", native=True)
    first = golden("responses_client_response.json")
    first["output"][0]["arguments"] = arguments
    turn = session.run_turn(first)
    _, output, note = turn.messages
    assert (output["type"], output["tools"]) == ("tool_search_output", [])
    assert note["role"] == "developer"
    assert "tool search failed" in note["content"]
    for item in turn.messages:
        exact(ResponseInputItemParam, item)
    assert not turn.results[0].success


def test_async_and_stream_turns_answer_searches() -> None:
    from openai.types.responses import Response

    session = registry().deferred("openai-responses", native=True)
    response = Response.model_validate(golden("responses_client_response.json"))
    turn = asyncio.run(session.arun_turn(response))
    assert turn.messages[-1]["type"] == "tool_search_output"
    assert turn.revealed[0] == "convert_currency"

    item = golden("responses_client_response.json")["output"][0]
    events = [
        {"type": "response.output_item.done", "output_index": 0, "item": item,
         "sequence_number": 1},
    ]  # fmt: skip
    stream = session.stream_turn(iter(events))
    assert list(stream) == []
    assert stream.turn.messages[-1]["call_id"] == "call_ts_01"
    assert stream.turn.revealed[0] == "convert_currency"

    async def read() -> Any:
        async def agen() -> Any:
            for event in events:
                yield event

        streamed = session.stream_turn(agen())
        async for _ in streamed:
            pass
        return streamed.turn

    assert asyncio.run(read()).messages[-1]["type"] == "tool_search_output"


def test_server_search_items_are_left_to_the_provider() -> None:
    """A hosted search in a native session's turn is echoed, not answered a second time."""
    session = registry().deferred("openai-responses", native=True)
    turn = session.run_turn(golden("responses_response.json"))
    assert [r["type"] for r in turn.replies] == ["function_call_output"]
    assert turn.revealed == ("get_weather", "lookup_customer")


def test_session_without_native_is_unchanged() -> None:
    session = registry().deferred("anthropic")
    message = golden("anthropic_client_message.json")
    turn = session.run_turn(message)
    (block,) = turn.messages[-1]["content"]
    assert isinstance(block["content"], str)  # names and purposes, as JSON text
    assert json.loads(block["content"])["tools"][0]["name"] == "convert_currency"


@settings(max_examples=60, deadline=None)
@given(arguments=st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=8,
) | st.text(max_size=40))  # fmt: skip
def test_any_search_arguments_get_one_output_never_a_crash(arguments: Any) -> None:
    first = golden("responses_client_response.json")
    first["output"][0]["arguments"] = arguments
    turn = SESSION.run_turn(copy.deepcopy(first))
    outputs = [m for m in turn.messages if m.get("type") == "tool_search_output"]
    assert len(outputs) == 1
    assert outputs[0]["call_id"] == "call_ts_01"
    notes = [m for m in turn.messages if m.get("role") == "developer"]
    if turn.results[0].success:
        assert notes == []
        assert [t["name"] for t in outputs[0]["tools"]] == list(turn.revealed)
    else:
        assert outputs[0]["tools"] == []
        assert turn.revealed == ()
        assert len(notes) == 1
        assert turn.results[0].error in notes[0]["content"]


SESSION = registry().deferred("openai-responses", native=True)


def test_searches_and_calls_in_one_turn_keep_their_own_replies() -> None:
    from anthropic.types import MessageParam
    from openai.types.responses import ResponseInputItemParam

    session = registry().deferred("openai-responses", native=True)
    first = golden("responses_client_response.json")
    first["output"].append({"type": "function_call", "id": "fc_1", "call_id": "call_1",
                            "name": "get_weather", "arguments": '{"location": "Oslo"}',
                            "status": "completed"})  # fmt: skip
    turn = session.run_turn(first)
    kinds = [m["type"] for m in turn.replies]
    assert kinds == ["tool_search_output", "function_call_output"]
    for item in turn.messages:
        exact(ResponseInputItemParam, item)

    anthropic = registry().deferred("anthropic", native=True)
    message = golden("anthropic_client_message.json")
    message["content"].append({"type": "tool_use", "id": "toolu_2", "name": "get_weather",
                               "input": {"location": "Oslo"}})  # fmt: skip
    turn = anthropic.run_turn(message)
    search, weather = turn.messages[-1]["content"]
    assert search["content"][0]["type"] == "tool_reference"
    assert json.loads(weather["content"]) == {"location": "Oslo", "temp": 21}
    exact(MessageParam, turn.messages[-1])
    assert revealed_tools(turn.messages[-1], "anthropic") == list(turn.revealed)


def test_native_session_refuses_nothing_the_provider_loaded() -> None:
    """Past ``max_active`` the provider keeps what it loaded, so ``refuse`` refuses nothing."""
    session = registry().deferred(
        "anthropic", native=True, inactive="refuse", max_active=1, search_limit=1
    )
    session.search("weather in a city")
    session.search("cooking recipe")
    assert "get_weather" not in session.active()
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
               "stop_reason": "tool_use", "stop_sequence": None,
               "usage": {"input_tokens": 1, "output_tokens": 1},
               "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                            "input": {"location": "Oslo"}}]}  # fmt: skip
    (result,) = session.run_turn(message).results
    assert result.success
    assert result.output == {"location": "Oslo", "temp": 21}

    plain = registry().deferred("anthropic", inactive="refuse", max_active=1, search_limit=1)
    (refused,) = plain.run_turn(message).results
    assert not refused.success  # without native, the session's own active set decides


def test_revealed_tools_reads_only_tool_references() -> None:
    message = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "plain text"},
        {"type": "tool_result", "tool_use_id": "b", "content": [
            {"type": "text", "text": "x"}, {"type": "tool_reference", "tool_name": "find_recipe"},
            {"type": "tool_reference", "tool_name": ""}]},
    ]}  # fmt: skip
    assert revealed_tools(message, "anthropic") == ["find_recipe"]


def test_an_unknown_tool_search_variant_points_to_client() -> None:
    with pytest.raises(NoNativeSearchError, match="client"):
        registry().to_provider("anthropic", defer=True, tool_search="vector")
