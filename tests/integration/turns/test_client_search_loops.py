"""Native deferral with the search run by the client, through the official SDK
clients against a model played by a local server: the model searches with the client's
tool search, the session answers with what ``registry.search`` finds in the provider's
form, the model calls the tool loaded, then answers. Every request's ``tools`` and echoed
items are checked against the SDK's request types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forge.tools import ToolRegistry
from tests.integration.turns.stub import StubAPI, exact
from tests.integration.turns.test_deferred_loops import CONVERT, RATE, namespace

pytestmark = pytest.mark.slow

GOLDEN = Path(__file__).parents[2] / "unit" / "tools" / "golden" / "tool_search"
ANSWER = "100 EUR is 108 USD."


def golden(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def responses(output: list[dict[str, Any]]) -> Any:
    from openai.types.responses import Response

    return Response.model_validate({**golden("responses_client_response.json"), "output": output})


def test_responses_client_search_loop(api: StubAPI) -> None:
    from openai import OpenAI
    from openai.types.responses import ResponseInputItemParam, ToolParam

    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "convert_currency",
        "arguments": json.dumps(CONVERT),
        "status": "completed",
    }
    text = {"type": "message", "id": "m", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}  # fmt: skip
    api.queue(responses(golden("responses_client_response.json")["output"]), responses([call]),
              responses([text]))  # fmt: skip
    registry: ToolRegistry = namespace()["registry"]
    session = registry.deferred("openai-responses", native=True, pinned=["get_weather"])
    client = OpenAI()
    items: list[Any] = [{"role": "user", "content": "Convert 100 euros to dollars."}]
    revealed: list[str] = []
    while True:
        turn = session.run_turn(client.responses.create(model="gpt-5.4", input=items,
                                                        tools=session.tools()))  # fmt: skip
        items += turn.messages
        revealed += turn.revealed
        if turn.done:
            break
    assert turn.text == ANSWER
    assert revealed[0] == "convert_currency"
    first, second, third = api.bodies()
    for body in (first, second, third):
        exact(list[ToolParam], body["tools"])
        for item in body["input"]:
            exact(ResponseInputItemParam, item)
    assert first["tools"][-1]["type"] == "tool_search"
    assert first["tools"][-1]["execution"] == "client"
    deferred = {t["name"] for t in first["tools"][:-1] if t.get("defer_loading")}
    assert deferred == set(registry.names()) - {"get_weather"}
    _, search_call, output = second["input"]
    assert (search_call["type"], search_call["call_id"]) == ("tool_search_call", "call_ts_01")
    assert (output["type"], output["call_id"]) == ("tool_search_output", "call_ts_01")
    assert output["tools"][0]["name"] == "convert_currency"
    assert json.loads(third["input"][-1]["output"]) == RATE


def anthropic_message(content: list[dict[str, Any]], stop: str) -> Any:
    from anthropic.types import Message

    return Message.model_validate({**golden("anthropic_client_message.json"),
                                   "content": content, "stop_reason": stop})  # fmt: skip


def test_anthropic_client_search_loop(api: StubAPI) -> None:
    from anthropic import Anthropic
    from anthropic.types import MessageParam, ToolUnionParam

    use = {"type": "tool_use", "id": "toolu_2", "name": "convert_currency", "input": CONVERT}
    api.queue(anthropic_message(golden("anthropic_client_message.json")["content"], "tool_use"),
              anthropic_message([use], "tool_use"),
              anthropic_message([{"type": "text", "text": ANSWER}], "end_turn"))  # fmt: skip
    registry: ToolRegistry = namespace()["registry"]
    session = registry.deferred("anthropic", native=True)
    client = Anthropic()
    messages: list[Any] = [{"role": "user", "content": "Convert 100 euros to dollars."}]
    while True:
        response = client.messages.create(model="claude-sonnet-4-6", max_tokens=1024,
                                          tools=session.tools(), messages=messages)  # fmt: skip
        turn = session.run_turn(response)
        messages += turn.messages
        if turn.done:
            break
    assert turn.text == ANSWER
    first, second, third = api.bodies()
    for body in (first, second, third):
        exact(list[ToolUnionParam], body["tools"])
        for message in body["messages"]:
            exact(MessageParam, message)
    assert first["tools"][-1]["name"] == "search_tools"
    assert all(t["defer_loading"] for t in first["tools"][:-1])
    (result,) = second["messages"][-1]["content"]
    assert result["tool_use_id"] == "toolu_01Search"
    assert result["content"][0] == {"type": "tool_reference", "tool_name": "convert_currency"}
    assert json.loads(third["messages"][-1]["content"][0]["content"]) == RATE


def test_anthropic_client_search_stream(api: StubAPI) -> None:
    """Streamed through the SDK: the search's tool_use is answered with tool_reference blocks."""
    from anthropic import Anthropic

    from tests.integration.turns.stub import sse

    message = golden("anthropic_client_message.json")
    start = {**message, "content": [], "stop_reason": None}
    arguments = json.dumps(message["content"][1]["input"])
    events = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "text_delta", "text": message["content"][0]["text"]}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {**message["content"][1], "input": {}}},
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "input_json_delta", "partial_json": arguments}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": 48}},
        {"type": "message_stop"},
    ]  # fmt: skip
    api.queue(sse(events))
    registry: ToolRegistry = namespace()["registry"]
    session = registry.deferred("anthropic", native=True)
    question = [{"role": "user", "content": "100 EUR?"}]
    stream = Anthropic().messages.create(model="claude-sonnet-4-6", max_tokens=1024, stream=True,
                                         tools=session.tools(), messages=question)  # fmt: skip
    turn_stream = session.stream_turn(stream)
    assert "".join(turn_stream) == message["content"][0]["text"]
    turn = turn_stream.turn
    assert turn.revealed[0] == "convert_currency"
    (result,) = turn.messages[-1]["content"]
    assert result["content"][0] == {"type": "tool_reference", "tool_name": "convert_currency"}


def responses_events(response: dict[str, Any]) -> list[dict[str, Any]]:
    """A Responses stream of ``response``: created, each item added and done, completed."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0,
         "response": {**response, "status": "in_progress", "output": []}},
    ]  # fmt: skip
    for index, item in enumerate(response["output"]):
        for kind in ("response.output_item.added", "response.output_item.done"):
            events.append({"type": kind, "output_index": index, "item": item,
                           "sequence_number": len(events)})  # fmt: skip
    events.append({"type": "response.completed", "response": response,
                   "sequence_number": len(events)})  # fmt: skip
    return events


def test_responses_client_search_async_stream(api: StubAPI) -> None:
    """AsyncOpenAI, streamed: the search item is answered once the stream ends."""
    import asyncio

    from openai import AsyncOpenAI
    from openai.types.responses import ResponseInputItemParam

    from tests.integration.turns.stub import sse

    api.queue(sse(responses_events(golden("responses_client_response.json"))))
    registry: ToolRegistry = namespace()["registry"]
    session = registry.deferred("openai-responses", native=True)

    async def turn() -> Any:
        client = AsyncOpenAI()
        stream = await client.responses.create(model="gpt-5.4", input="100 EUR in USD?",
                                               tools=session.tools(), stream=True)  # fmt: skip
        turn_stream = session.stream_turn(stream)
        async for _ in turn_stream:
            pass
        await client.close()
        return turn_stream.turn

    done = asyncio.run(turn())
    assert not done.done
    assert done.revealed[0] == "convert_currency"
    search_call, output = done.messages
    assert search_call["call_id"] == output["call_id"] == "call_ts_01"
    for item in done.messages:
        exact(ResponseInputItemParam, item)
