"""Thousands of tools: the README's deferred loops and a search-tool session for
every provider, each with the official SDK client against a model played by a local server.

Native deferral (Anthropic, OpenAI Responses): the recorded-format search turns of
``tests/unit/tools/golden/tool_search`` come back; the search blocks are no calls, they go
back unchanged, and the tool found is run. Search-tool sessions: the model searches, calls
the tool the search revealed on the next turn, then answers; every request's ``tools`` and
echoed turn are checked against the SDK's request types.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from forge.tools import ToolRegistry, tool
from tests.integration.turns.stub import StubAPI, exact, sse
from tests.unit.test_readme import run_block, session

pytestmark = pytest.mark.slow

GOLDEN = Path(__file__).parents[2] / "unit" / "tools" / "golden" / "tool_search"
ANSWER = "100 EUR is 108 USD."
RATE = {"amount": 100, "from": "EUR", "to": "USD", "result": 108.0}


def golden(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def namespace() -> dict[str, Any]:
    """The README's session (`registry` with `get_weather`) plus a catalogue of other tools."""
    names = session()
    registry: ToolRegistry = names["registry"]

    @tool(tags=["money"])
    def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
        """Convert an amount of money from one currency to another."""
        return {"amount": amount, "from": from_currency, "to": to_currency, "result": 108.0}

    registry.register(convert_currency)
    topics = ("calendar event", "email message", "flight booking", "hotel room", "recipe",
              "stock quote", "translation", "invoice", "parcel tracking")  # fmt: skip
    for topic in topics:
        slug = topic.replace(" ", "_")

        def handler(query: str, _topic: str = topic) -> str:
            return _topic + ": " + query

        registry.register(tool(handler, name=f"find_{slug}",
                               description=f"Find a {topic} by a free-text query."))  # fmt: skip
    return names


CONVERT = {"amount": 100, "from_currency": "EUR", "to_currency": "USD"}
SEARCH = {"query": "convert euros to dollars"}


# -- native deferral ------------------------------------------------------------------------


def anthropic_search_turn() -> dict[str, Any]:
    """The documented search turn, its tool_use asking the README's get_weather for Paris."""
    message = golden("anthropic_message.json")
    message["content"][-1]["input"] = {"location": "Paris"}
    return message


def anthropic_message(content: list[dict[str, Any]]) -> Any:
    from anthropic.types import Message

    return Message.model_validate({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": content, "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    })  # fmt: skip


def test_readme_native_anthropic_loop(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """All but the 3 best tools deferred with the BM25 search tool; the search blocks go back
    unchanged before the tool_result of the tool the search found."""
    from anthropic.types import ContentBlockParam, Message, ToolUnionParam

    first = anthropic_search_turn()
    api.queue(Message.model_validate(first), anthropic_message([{"type": "text", "text": "21 °C"}]))
    names = run_block("deferred-native", namespace())

    assert capsys.readouterr().out == "21 °C\n"
    sent, second = api.bodies()
    exact(list[ToolUnionParam], sent["tools"])
    loaded = [t["name"] for t in sent["tools"][:-1] if not t.get("defer_loading")]
    question = "What is the weather in Paris?"
    assert loaded == [t.name for t in names["registry"].search(question, limit=3)]
    assert "get_weather" in loaded
    assert sent["tools"][-1] == {"type": "tool_search_tool_bm25_20251119",
                                 "name": "tool_search_tool_bm25"}  # fmt: skip
    _, assistant, results = second["messages"]
    assert assistant == {"role": "assistant", "content": first["content"]}
    for block in assistant["content"]:
        exact(ContentBlockParam, block)
    (result,) = results["content"]
    assert (result["tool_use_id"], result["is_error"]) == ("toolu_01XYZ789", False)
    assert json.loads(result["content"]) == {"location": "Paris", "temp": 21, "unit": "c"}


def test_native_anthropic_stream_reveals(api: StubAPI) -> None:
    """The documented stream through the SDK: the turn says what the search revealed."""
    from anthropic import Anthropic

    names = namespace()
    registry: ToolRegistry = names["registry"]
    events = golden("anthropic_stream.json")
    for event in events:
        if event["type"] == "content_block_start" and event["content_block"]["type"] == "tool_use":
            event["content_block"]["name"] = "get_weather"
    pieces = [e for e in events if e.get("delta", {}).get("type") == "input_json_delta"]
    pieces[-2]["delta"]["partial_json"] = '{"location"'
    pieces[-1]["delta"]["partial_json"] = ': "Rome"}'
    api.queue(sse(events))
    client = Anthropic()
    stream = client.messages.create(model="claude-sonnet-4-6", max_tokens=1024, stream=True,
                                    tools=registry.to_provider("anthropic", defer=True),
                                    messages=[{"role": "user", "content": "Rome?"}])  # fmt: skip
    turn_stream = registry.stream_turn(stream)
    assert "".join(turn_stream) == "I'll search for tools to help with the weather information."
    turn = turn_stream.turn
    assert turn.revealed == ("get_weather", "get_forecast")
    assert [c.name for c in turn.calls] == ["get_weather"]
    assert turn.results[0].output == {"location": "Rome", "temp": 21, "unit": "c"}
    kinds = [b["type"] for b in turn.assistant[0]["content"]]
    assert kinds == ["text", "server_tool_use", "tool_search_tool_result", "tool_use"]


def test_native_responses_loop(api: StubAPI) -> None:
    """Responses: every tool deferred with the hosted tool_search; the search items go back
    as input items, then the function_call_output of the call."""
    from openai import OpenAI
    from openai.types.responses import Response, ResponseInputItemParam, ToolParam

    registry: ToolRegistry = namespace()["registry"]
    first = golden("responses_response.json")
    answer = copy.deepcopy(first)
    text = {"type": "output_text", "text": "21", "annotations": []}
    answer["output"] = [{"type": "message", "id": "msg_1", "role": "assistant",
                         "status": "completed", "content": [text]}]  # fmt: skip
    api.queue(Response.model_validate(first), Response.model_validate(answer))
    client = OpenAI()
    tools = registry.to_provider("openai-responses", defer=True)
    items: list[Any] = [{"role": "user", "content": "Weather in San Francisco?"}]
    while True:
        turn = registry.run_turn(client.responses.create(model="gpt-5.4", tools=tools, input=items))
        items += turn.messages
        if turn.done:
            break
    sent, second = api.bodies()
    exact(list[ToolParam], sent["tools"])
    assert sent["tools"][-1] == {"type": "tool_search"}
    _, search_call, search_output, call, output = second["input"]
    assert [search_call, search_output, call] == [
        {k: v for k, v in item.items() if v is not None} for item in first["output"]
    ]  # as the SDK returned them (it leaves out the null call_id)
    for item in second["input"]:
        exact(ResponseInputItemParam, item)
    assert (output["type"], output["call_id"]) == ("function_call_output", "call_01")
    assert json.loads(output["output"])["location"] == "San Francisco"


# -- search-tool sessions -------------------------------------------------------------------


def completion(message: dict[str, Any]) -> Any:
    from openai.types.chat import ChatCompletion

    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-5.5",
        "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                     "message": {"role": "assistant", "refusal": None, **message}}],
    })  # fmt: skip


def chat_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip


def test_readme_session_loop_openai(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """Chat Completions: the search reveals convert_currency, which the next request carries
    and the model then calls."""
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

    api.queue(completion({"content": None,
                          "tool_calls": [chat_call("call_1", "search_tools", SEARCH)]}),
              completion({"content": None,
                          "tool_calls": [chat_call("call_2", "convert_currency", CONVERT)]}),
              completion({"content": ANSWER}))  # fmt: skip
    names = run_block("deferred-session", namespace())

    assert capsys.readouterr().out == ANSWER + "\n"
    first, second, third = api.bodies()
    tool_names = [[t["function"]["name"] for t in body["tools"]] for body in api.bodies()]
    assert tool_names[0] == ["get_weather", "search_tools"]
    assert "convert_currency" in tool_names[1]
    assert tool_names[1][0] == "get_weather"
    assert tool_names[1][-1] == "search_tools"
    for body in (first, second, third):
        exact(list[ChatCompletionToolParam], body["tools"])
        exact(list[ChatCompletionMessageParam], body["messages"])
    found = json.loads(second["messages"][-1]["content"])["tools"]
    assert found[0]["name"] == "convert_currency"
    assert json.loads(third["messages"][-1]["content"]) == RATE
    assert names["session"].active()[:2] == ["get_weather", "convert_currency"]


def test_session_loop_responses(api: StubAPI) -> None:
    """Responses: function_call items answered, the revealed tool sent on the next request."""
    from openai import OpenAI
    from openai.types.responses import Response, ResponseInputItemParam, ToolParam

    def response(output: list[dict[str, Any]]) -> Any:
        return Response.model_validate({
            "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5.5",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "status": "completed",
        })  # fmt: skip

    def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
                "arguments": json.dumps(arguments), "status": "completed"}  # fmt: skip

    api.queue(response([call("c1", "search_tools", SEARCH)]),
              response([call("c2", "convert_currency", CONVERT)]),
              response([{"type": "message", "id": "m", "role": "assistant", "status": "completed",
                         "content": [{"type": "output_text", "text": ANSWER,
                                      "annotations": []}]}]))  # fmt: skip
    registry: ToolRegistry = namespace()["registry"]
    deferred = registry.deferred("openai-responses")
    client = OpenAI()
    items: list[Any] = [{"role": "user", "content": "Convert 100 euros to dollars."}]
    while True:
        turn = deferred.run_turn(client.responses.create(model="gpt-5.5", input=items,
                                                         tools=deferred.tools()))  # fmt: skip
        items += turn.messages
        if turn.done:
            break
    assert turn.text == ANSWER
    bodies = api.bodies()
    assert [t["name"] for t in bodies[0]["tools"]] == ["search_tools"]
    assert "convert_currency" in [t["name"] for t in bodies[1]["tools"]]
    for body in bodies:
        exact(list[ToolParam], body["tools"])
        for item in body["input"]:
            exact(ResponseInputItemParam, item)
    assert json.loads(bodies[2]["input"][-1]["output"]) == RATE


def anthropic_events(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A streamed message of text and tool_use blocks (inputs in JSON pieces)."""
    start = {"id": "msg_s", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
             "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {"input_tokens": 5, "output_tokens": 1}}  # fmt: skip
    out: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            out.append({"type": "content_block_start", "index": index,
                        "content_block": {**block, "input": {}}})  # fmt: skip
            text = json.dumps(block["input"])
            out += [{"type": "content_block_delta", "index": index,
                     "delta": {"type": "input_json_delta", "partial_json": text[i:i + 5]}}
                    for i in range(0, len(text), 5)]  # fmt: skip
        else:
            out.append({"type": "content_block_start", "index": index,
                        "content_block": {"type": "text", "text": ""}})  # fmt: skip
            out.append({"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": block["text"]}})  # fmt: skip
        out.append({"type": "content_block_stop", "index": index})
    stop = "tool_use" if blocks[-1]["type"] == "tool_use" else "end_turn"
    out += [{"type": "message_delta", "usage": {"output_tokens": 9},
             "delta": {"stop_reason": stop, "stop_sequence": None}},
            {"type": "message_stop"}]  # fmt: skip
    return out


def test_session_loop_anthropic_streamed(api: StubAPI) -> None:
    """Anthropic streamed through a session: the search is answered as a tool_result, the
    revealed tool then runs while the stream arrives."""
    from anthropic import AsyncAnthropic
    from anthropic.types import MessageParam, ToolUnionParam

    api.queue(
        sse(anthropic_events([{"type": "tool_use", "id": "toolu_1", "name": "search_tools",
                               "input": SEARCH}])),
        sse(anthropic_events([{"type": "tool_use", "id": "toolu_2", "name": "convert_currency",
                               "input": CONVERT}])),
        sse(anthropic_events([{"type": "text", "text": ANSWER}])),
    )  # fmt: skip
    registry: ToolRegistry = namespace()["registry"]
    deferred = registry.deferred("anthropic", pinned=["get_weather"], max_active=6)

    async def loop() -> str:
        client = AsyncAnthropic()
        messages: list[Any] = [{"role": "user", "content": "Convert 100 euros to dollars."}]
        while True:
            stream = await client.messages.create(model="claude-sonnet-4-6", max_tokens=512,
                                                  stream=True, tools=deferred.tools(),
                                                  messages=messages)  # fmt: skip
            turn_stream = deferred.stream_turn(stream)
            text = "".join([piece async for piece in turn_stream])
            messages += turn_stream.turn.messages
            if turn_stream.turn.done:
                await client.close()
                return text

    import asyncio

    assert asyncio.run(loop()) == ANSWER
    bodies = api.bodies()
    assert [t["name"] for t in bodies[0]["tools"]] == ["get_weather", "search_tools"]
    assert "convert_currency" in [t["name"] for t in bodies[1]["tools"]]
    for body in bodies:
        exact(list[ToolUnionParam], body["tools"])
        exact(list[MessageParam], body["messages"])
    result = bodies[2]["messages"][-1]["content"][0]
    assert (result["tool_use_id"], json.loads(result["content"])) == ("toolu_2", RATE)


def test_session_loop_gemini(api: StubAPI) -> None:
    """Gemini: functionCall parts answered by id; the declarations grow after the search."""
    from google import genai
    from google.genai import types

    def generated(parts: list[dict[str, Any]]) -> Any:
        return types.GenerateContentResponse.model_validate({
            "candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP"}],
            "modelVersion": "gemini-2.5-flash",
        })  # fmt: skip

    api.queue(
        generated([{"functionCall": {"id": "f1", "name": "search_tools", "args": SEARCH}}]),
        generated([{"functionCall": {"id": "f2", "name": "convert_currency", "args": CONVERT}}]),
        generated([{"text": ANSWER}]),
    )  # fmt: skip
    registry: ToolRegistry = namespace()["registry"]
    deferred = registry.deferred("gemini")
    client = genai.Client()
    contents: list[Any] = [{"role": "user", "parts": [{"text": "Convert 100 euros to dollars."}]}]
    while True:
        response = client.models.generate_content(model="gemini-2.5-flash", contents=contents,
                                                  config={"tools": deferred.tools()})  # fmt: skip
        turn = deferred.run_turn(response)
        contents += turn.messages
        if turn.done:
            break
    assert turn.text == ANSWER
    declared = [[d["name"] for d in body["tools"][0]["functionDeclarations"]]
                for body in api.bodies()]  # fmt: skip
    assert declared[0] == ["search_tools"]
    assert "convert_currency" in declared[1]
    answer = api.bodies()[2]["contents"][-1]["parts"][0]["functionResponse"]
    assert answer == {"id": "f2", "name": "convert_currency", "response": {"output": RATE}}
    for content in api.bodies()[2]["contents"]:
        validated = types.Content.model_validate(content)
        assert validated.model_dump(mode="json", by_alias=True, exclude_none=True) == content


# -- reveal options: toolkits, a token budget, usage pins, a query per step ---------------------


def gateway_registry() -> ToolRegistry:
    """Tools named ``<server>__<tool>`` as a gateway serves them: a document server whose
    later steps the question never names, a clock, and unrelated servers."""
    registry = ToolRegistry()
    servers = {
        "docs": {"create_document": "Create a new Word document with a title.",
                 "add_paragraph": "Append a paragraph of text to an existing document.",
                 "convert_to_pdf": "Export an existing document as PDF."},
        "clock": {"get_current_time": "Get the current date and time in a time zone."},
        "maps": {"geocode_address": "Turn a street address into latitude and longitude.",
                 "get_route_directions": "Directions between two points by car or foot."},
        "music": {"beat_track": "Track the beats of an audio file.",
                  "mfcc": "Mel-frequency cepstral coefficients of an audio file."},
    }  # fmt: skip
    for server, tools in servers.items():
        for name, description in tools.items():

            def handler(text: str = "", _name: str = name) -> str:
                return f"{_name} done: {text}"

            registry.register(tool(handler, name=f"{server}__{name}", description=description))
    return registry


def test_session_options_loop_openai(api: StubAPI) -> None:
    """Chat Completions through the SDK: one search call with a query per step reveals the
    document server's siblings (convert_to_pdf, never asked for), within max_tokens, with
    the executor's most-called tool pinned; the model then calls the sibling."""
    from openai import OpenAI
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

    from forge.tools import ExecutionMetrics, ToolExecutor
    from forge.tools.deferral import estimate_tokens

    registry = gateway_registry()
    metrics = ExecutionMetrics()
    executor = ToolExecutor(registry, metrics=metrics)
    assert executor.execute_sync("clock__get_current_time").success
    budget = registry.deferred("openai", pinned=["clock__get_current_time"]).estimated_tokens()
    budget += 500  # room for five of these tools (about 100 each), not all seven
    deferred = registry.deferred("openai", executor=executor, pin_used=1, groups="__",
                                 siblings=5, search_limit=1, max_tokens=budget)  # fmt: skip
    assert deferred.pinned == ("clock__get_current_time",)
    plan = {"queries": ["create a Word document", "walking directions"]}
    pdf = {"text": "report.docx"}
    api.queue(completion({"content": None,
                          "tool_calls": [chat_call("c1", "search_tools", plan)]}),
              completion({"content": None,
                          "tool_calls": [chat_call("c2", "docs__convert_to_pdf", pdf)]}),
              completion({"content": "Saved as PDF."}))  # fmt: skip
    client = OpenAI()
    messages: list[Any] = [{"role": "user", "content": "Write a report and give me a PDF."}]
    while True:
        turn = deferred.run_turn(client.chat.completions.create(
            model="gpt-5.5", messages=messages, tools=deferred.tools()))  # fmt: skip
        messages += turn.messages
        if turn.done:
            break
    assert turn.text == "Saved as PDF."
    bodies = api.bodies()
    for body in bodies:
        exact(list[ChatCompletionToolParam], body["tools"])
        exact(list[ChatCompletionMessageParam], body["messages"])
        assert estimate_tokens(body["tools"]) <= budget
    sent = [[t["function"]["name"] for t in body["tools"]] for body in bodies]
    assert sent[0] == ["clock__get_current_time", "search_tools"]
    assert {"docs__create_document", "docs__convert_to_pdf"} <= set(sent[1])
    assert "maps__get_route_directions" in sent[1]
    assert "music__mfcc" not in sent[1]
    schema = bodies[0]["tools"][-1]["function"]["parameters"]["properties"]["queries"]
    assert schema["type"] == "array"
    found = json.loads(bodies[1]["messages"][-1]["content"])["tools"]
    assert [t["name"] for t in found][:2] == ["docs__create_document",
                                              "maps__get_route_directions"]  # fmt: skip
    assert bodies[2]["messages"][-1]["content"] == "convert_to_pdf done: report.docx"


def test_session_options_loop_gemini(api: StubAPI) -> None:
    """Gemini through the SDK: the search tool's ``queries`` array is a declaration the
    SDK's types take, and one call with two steps reveals both steps' tools."""
    from google import genai
    from google.genai import types

    def generated(parts: list[dict[str, Any]]) -> Any:
        return types.GenerateContentResponse.model_validate({
            "candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP"}],
            "modelVersion": "gemini-2.5-flash",
        })  # fmt: skip

    plan = {"queries": ["beats of an audio file", "what time is it"]}
    api.queue(generated([{"functionCall": {"id": "f1", "name": "search_tools", "args": plan}}]),
              generated([{"text": "Both found."}]))  # fmt: skip
    registry = gateway_registry()
    deferred = registry.deferred("gemini", search_limit=1, groups="__", siblings=1,
                                 max_tokens=2000)  # fmt: skip
    client = genai.Client()
    contents: list[Any] = [{"role": "user", "parts": [{"text": "Beats, and the time?"}]}]
    while True:
        response = client.models.generate_content(model="gemini-2.5-flash", contents=contents,
                                                  config={"tools": deferred.tools()})  # fmt: skip
        turn = deferred.run_turn(response)
        contents += turn.messages
        if turn.done:
            break
    first, second = api.bodies()
    for body in (first, second):
        types.Tool.model_validate(body["tools"][0])
    declared = [d["name"] for d in second["tools"][0]["functionDeclarations"]]
    assert {"music__beat_track", "music__mfcc", "clock__get_current_time"} <= set(declared)
    answer = second["contents"][-1]["parts"][0]["functionResponse"]["response"]["output"]
    assert [t["name"] for t in answer["tools"]][:2] == ["music__beat_track",
                                                        "clock__get_current_time"]  # fmt: skip
