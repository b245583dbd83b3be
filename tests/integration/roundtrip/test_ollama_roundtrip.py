"""Ollama: the ollama client against the local stub."""

from __future__ import annotations

from typing import Any

from forge.tools import ToolRegistry, format_results, parse_tool_calls


def _chat_response(message: dict[str, Any]) -> dict[str, Any]:
    return {"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "done": True,
            "done_reason": "stop", "message": message}  # fmt: skip


def test_chat_round_trip(stub: Any, registry: ToolRegistry, calls: Any) -> None:
    """Whole tool calls in, role: tool messages (matched by tool_name) out."""
    import ollama

    stub.reply_json(_chat_response({"role": "assistant", "content": "", "tool_calls": [
        {"function": {"index": k, "name": n, "arguments": a}}
        for k, (n, a) in enumerate(calls)
    ]}))  # fmt: skip
    stub.reply_json(_chat_response({"role": "assistant", "content": "Paris is 21°C; 42."}))
    client = ollama.Client(host=stub.url, timeout=10)
    tools = registry.to_provider("ollama")
    history: list[Any] = [{"role": "user", "content": "Weather in Paris, and 2+40?"}]

    first = client.chat(model="qwen3", messages=history, tools=tools)

    sent = stub.requests[0]
    assert sent.path == "/api/chat"
    # The client re-validates tools through ollama.Tool, which keeps only the keys it
    # models (provider-formats.md §7): what goes out is that view of ours.
    expected = [ollama.Tool.model_validate(t).model_dump(exclude_none=True) for t in tools]
    assert sent.body["tools"] == expected
    assert [t["function"]["name"] for t in sent.body["tools"]] == ["get_weather", "add"]
    parsed = parse_tool_calls(first)
    assert [(c.name, dict(c.arguments)) for c in parsed] == calls
    replies = format_results(registry.execute_all(parsed), "ollama")
    history += [first.message, *replies]

    second = client.chat(model="qwen3", messages=history, tools=tools)

    assert second.message.content == "Paris is 21°C; 42."
    messages = stub.requests[1].body["messages"]
    assert [(m["role"], m["tool_name"]) for m in messages[-2:]] == [
        ("tool", "get_weather"), ("tool", "add"),
    ]  # fmt: skip
    assert [m["content"] for m in messages[-2:]] == [r["content"] for r in replies]
    assert messages[-1]["content"] == "42"
