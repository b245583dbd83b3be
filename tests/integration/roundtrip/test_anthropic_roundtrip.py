"""Anthropic Messages: the official client against the local stub."""

from __future__ import annotations

import json
from typing import Any

from forge.tools import ToolCallAccumulator, ToolRegistry, format_results, parse_tool_calls


def _client(stub: Any) -> Any:
    from anthropic import Anthropic

    return Anthropic(base_url=stub.url, api_key="test-key", max_retries=0, timeout=10)


def _message(content: list[Any], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_rt", "type": "message", "role": "assistant", "model": "claude-opus-4-6",
        "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }  # fmt: skip


def test_messages_round_trip(stub: Any, registry: ToolRegistry, calls: Any) -> None:
    """tool_use blocks in, one user message of tool_result blocks out, ids exact."""
    ids = ["toolu_01AbCdEf", "toolu_02GhIjKl"]
    stub.reply_json(_message([
        {"type": "text", "text": "Checking."},
        *[{"type": "tool_use", "id": i, "name": n, "input": a}
          for i, (n, a) in zip(ids, calls, strict=True)],
    ], "tool_use"))  # fmt: skip
    stub.reply_json(_message([{"type": "text", "text": "Paris is 21°C; 42."}], "end_turn"))
    client = _client(stub)
    tools = registry.to_provider("anthropic")
    history: list[Any] = [{"role": "user", "content": "Weather in Paris, and 2+40?"}]

    first = client.messages.create(
        model="claude-opus-4-6", max_tokens=256, messages=history, tools=tools
    )

    assert stub.requests[0].path == "/v1/messages"
    assert stub.requests[0].body["tools"] == tools
    parsed = parse_tool_calls(first)
    assert [(c.id, c.name, dict(c.arguments)) for c in parsed] == [
        (i, n, a) for i, (n, a) in zip(ids, calls, strict=True)
    ]
    replies = format_results(registry.execute_all(parsed), "anthropic")
    history += [{"role": "assistant", "content": [b.model_dump() for b in first.content]}]
    history += replies

    second = client.messages.create(
        model="claude-opus-4-6", max_tokens=256, messages=history, tools=tools
    )

    assert second.content[0].text == "Paris is 21°C; 42."  # type: ignore[union-attr]
    sent = stub.requests[1].body["messages"]
    assert sent[-1] == replies[0]
    assert [b["tool_use_id"] for b in sent[-1]["content"]] == ids
    assert [b["is_error"] for b in sent[-1]["content"]] == [False, False]


def test_messages_round_trip_with_a_failure(stub: Any, registry: ToolRegistry) -> None:
    """A call to an unknown tool and one with truncated JSON go back with is_error."""
    stub.reply_json(_message([
        {"type": "tool_use", "id": "toolu_x", "name": "no_such_tool", "input": {}},
        {"type": "tool_use", "id": "toolu_y", "name": "add", "input": '{"a": 1, "b": '},
    ], "tool_use"))  # fmt: skip
    stub.reply_json(_message([{"type": "text", "text": "Sorry."}], "end_turn"))
    client = _client(stub)
    history: list[Any] = [{"role": "user", "content": "go"}]
    first = client.messages.create(model="m", max_tokens=64, messages=history)
    results = registry.execute_all(parse_tool_calls(first))
    assert [r.error_kind for r in results] == ["unknown_tool", "invalid_json"]
    replies = format_results(results, "anthropic")
    history += [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_x", "name": "no_such_tool", "input": {}},
        {"type": "tool_use", "id": "toolu_y", "name": "add", "input": {}},
    ]}, *replies]  # fmt: skip
    client.messages.create(model="m", max_tokens=64, messages=history)
    blocks = stub.requests[1].body["messages"][-1]["content"]
    assert [b["is_error"] for b in blocks] == [True, True]
    assert "truncated JSON" in blocks[1]["content"]


def test_streaming_round_trip(stub: Any, registry: ToolRegistry) -> None:
    """Events read through the client's own stream assemble into the calls."""
    events = [
        {"type": "message_start", "message": _message([], "tool_use") | {"stop_reason": None}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_s1", "name": "add", "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"a": 5, '}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '"b": 6}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]  # fmt: skip
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    stub.replies.append((200, {"Content-Type": "text/event-stream"}, body.encode()))
    acc = ToolCallAccumulator()
    with _client(stub).messages.stream(
        model="m", max_tokens=64, messages=[{"role": "user", "content": "go"}],
        tools=registry.to_provider("anthropic"),
    ) as stream:  # fmt: skip
        for event in stream:
            acc.add(event)
    (call,) = acc.finish()
    assert (call.id, call.name, call.arguments) == ("toolu_s1", "add", {"a": 5, "b": 6})
    assert registry.execute_all([call])[0].output == 11
