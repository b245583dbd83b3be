"""OpenAI Chat Completions and Responses: the official client against the local stub."""

from __future__ import annotations

import json
from typing import Any

from forge.tools import ToolRegistry, format_results, parse_tool_calls


def _client(stub: Any) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=f"{stub.url}/v1", api_key="test-key", max_retries=0, timeout=10)


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-rt", "object": "chat.completion", "created": 1700000000,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
    }  # fmt: skip


def test_chat_completions_round_trip(stub: Any, registry: ToolRegistry, calls: Any) -> None:
    """Tools out, calls in, results out: every step accepted by the openai client."""
    ids = ["call_Xy12AbC", "call_Zz98Qwe"]
    stub.reply_json(_completion({
        "role": "assistant", "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in zip(ids, calls, strict=True)
        ],
    }, "tool_calls"))  # fmt: skip
    stub.reply_json(_completion({"role": "assistant", "content": "Paris: 21°C; 42."}, "stop"))
    client = _client(stub)
    tools = registry.to_provider("openai")
    history: list[Any] = [{"role": "user", "content": "Weather in Paris, and 2+40?"}]

    first = client.chat.completions.create(model="gpt-4.1", messages=history, tools=tools)

    sent = stub.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.body["tools"] == tools
    parsed = parse_tool_calls(first)
    assert [(c.id, c.name, dict(c.arguments)) for c in parsed] == [
        (i, n, a) for i, (n, a) in zip(ids, calls, strict=True)
    ]
    results = registry.execute_all(parsed)
    assert all(r.success for r in results)
    replies = format_results(results, "openai")
    history += [first.choices[0].message.model_dump(exclude_none=True), *replies]

    second = client.chat.completions.create(model="gpt-4.1", messages=history, tools=tools)

    assert second.choices[0].message.content == "Paris: 21°C; 42."
    assert parse_tool_calls(second) == []
    body = stub.requests[1].body
    assert body["messages"][-2:] == replies
    assert [m["tool_call_id"] for m in body["messages"][-2:]] == ids
    assert [m["id"] for m in body["messages"][1]["tool_calls"]] == ids
    assert json.loads(replies[0]["content"])["temperature"] == 21
    assert replies[1]["content"] == "42"


def test_chat_completions_streaming_round_trip(stub: Any, registry: ToolRegistry) -> None:
    """Streamed deltas read through the client's own stream assemble into the calls."""
    chunks = [
        {"index": 0, "id": "call_s1", "type": "function",
         "function": {"name": "add", "arguments": ""}},
        {"index": 1, "id": "call_s2", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city"'}},
        {"index": 0, "function": {"arguments": '{"a": 1, "b": 2}'}},
        {"index": 1, "function": {"arguments": ': "Oslo"}'}},
    ]  # fmt: skip
    events = [
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
         "choices": [{"index": 0, "delta": {"tool_calls": [c]}, "finish_reason": None}]}
        for c in chunks
    ] + [{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
          "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]  # fmt: skip
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    stub.replies.append((200, {"Content-Type": "text/event-stream"}, body.encode()))
    from forge.tools import ToolCallAccumulator

    acc = ToolCallAccumulator("openai")
    stream = _client(stub).chat.completions.create(
        model="gpt-4.1", messages=[{"role": "user", "content": "go"}],
        tools=registry.to_provider("openai"), stream=True,
    )  # fmt: skip
    for chunk in stream:
        acc.add(chunk)
    parsed = acc.finish()
    assert [(c.id, c.name, c.arguments) for c in parsed] == [
        ("call_s1", "add", {"a": 1, "b": 2}),
        ("call_s2", "get_weather", {"city": "Oslo"}),
    ]
    results = registry.execute_all(parsed)
    assert next(r.output for r in results) == 3


def _response(output: list[Any]) -> dict[str, Any]:
    return {
        "id": "resp_rt", "object": "response", "created_at": 1700000000, "model": "gpt-4.1",
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": output,
    }  # fmt: skip


def test_responses_round_trip(stub: Any, registry: ToolRegistry, calls: Any) -> None:
    """function_call items in, function_call_output items out, by call_id."""
    ids = ["call_R1", "call_R2"]
    stub.reply_json(_response([
        {"type": "reasoning", "id": "rs_1", "summary": []},
        *[{"type": "function_call", "id": f"fc_{n}", "call_id": i, "name": name,
           "arguments": json.dumps(args), "status": "completed"}
          for n, (i, (name, args)) in enumerate(zip(ids, calls, strict=True))],
    ]))  # fmt: skip
    stub.reply_json(_response([
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Done.", "annotations": []}]},
    ]))  # fmt: skip
    client = _client(stub)
    tools = registry.to_provider("openai-responses")
    history: list[Any] = [{"role": "user", "content": "Weather in Paris, and 2+40?"}]

    first = client.responses.create(model="gpt-4.1", input=history, tools=tools)

    assert stub.requests[0].path == "/v1/responses"
    assert stub.requests[0].body["tools"] == tools
    parsed = parse_tool_calls(first)
    assert [c.id for c in parsed] == ids
    replies = format_results(registry.execute_all(parsed), "openai-responses")
    history += [item.model_dump(exclude_none=True) for item in first.output] + replies

    second = client.responses.create(model="gpt-4.1", input=history, tools=tools)

    assert second.output_text == "Done."
    sent = stub.requests[1].body["input"]
    assert sent[-2:] == replies
    assert [i["call_id"] for i in sent if i.get("type") == "function_call"] == ids
    assert [i["call_id"] for i in sent[-2:]] == ids
