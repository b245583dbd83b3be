"""Mistral: the mistralai client against the local stub."""

from __future__ import annotations

import json
from typing import Any

from forge.tools import ToolRegistry, format_results, parse_tool_calls


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "cmpl-rt", "object": "chat.completion", "model": "mistral-large-latest",
        "created": 1700000000,
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }  # fmt: skip


def test_chat_round_trip(stub: Any, registry: ToolRegistry, calls: Any) -> None:
    """Calls with 9-character ids in, role: tool messages with id and name out."""
    from mistralai.client import Mistral

    ids = ["D681PevKs", "aB3dE5fG7"]
    stub.reply_json(_completion({"role": "assistant", "content": "", "tool_calls": [
        {"id": i, "type": "function", "index": k,
         "function": {"name": n, "arguments": json.dumps(a)}}
        for k, (i, (n, a)) in enumerate(zip(ids, calls, strict=True))
    ]}, "tool_calls"))  # fmt: skip
    stub.reply_json(_completion({"role": "assistant", "content": "Paris is 21°C; 42."}, "stop"))
    client = Mistral(api_key="test-key", server_url=stub.url, timeout_ms=10_000)
    tools = registry.to_provider("mistral")
    history: list[Any] = [{"role": "user", "content": "Weather in Paris, and 2+40?"}]

    first = client.chat.complete(model="mistral-large-latest", messages=history, tools=tools)

    sent = stub.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.body["tools"] == tools
    parsed = parse_tool_calls(first)
    assert [(c.id, c.name, dict(c.arguments)) for c in parsed] == [
        (i, n, a) for i, (n, a) in zip(ids, calls, strict=True)
    ]
    replies = format_results(registry.execute_all(parsed), "mistral")
    assistant = first.choices[0].message.model_dump(mode="json", exclude_none=True)
    history += [assistant, *replies]

    second = client.chat.complete(model="mistral-large-latest", messages=history, tools=tools)

    assert second.choices[0].message.content == "Paris is 21°C; 42."
    messages = stub.requests[1].body["messages"]
    assert [(m["tool_call_id"], m["name"]) for m in messages[-2:]] == list(
        zip(ids, ["get_weather", "add"], strict=True)
    )
    assert [m["content"] for m in messages[-2:]] == [r["content"] for r in replies]
