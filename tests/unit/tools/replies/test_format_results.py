"""format_results: each provider's tool-result messages, checked by its own SDK."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

from forge.core.errors import UnsupportedProviderError
from forge.tools import ErrorKind, ToolCallFormatError, ToolResult, format_results
from forge.tools.parsing import GENERATED_ID_PREFIX, PROVIDERS
from tests.unit.tools.replies.sdk_checks import check_bedrock, check_mcp


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Weather(BaseModel):
    city: str
    at: dt.datetime


RESULTS = [
    ToolResult.ok("sunny, 21°C").for_call("id_text01", "weather"),
    ToolResult.ok({"hits": ["a", "b"], "total": 2}).for_call("id_dict02", "search"),
    ToolResult.ok([1, 2, 3]).for_call("id_list03", "numbers"),
    ToolResult.ok(
        {"point": Point(1, 2), "tags": {"b", "a"}, "raw": b"\x00\xff", "when": dt.date(2024, 5, 1),
         "model": Weather(city="Paris", at=dt.datetime(2024, 5, 1, 12, 0))}
    ).for_call("id_odd0004", "odd"),
    ToolResult.fail("Unknown tool: nope. Call one of: weather, search",
                    error_kind=ErrorKind.UNKNOWN_TOOL).for_call("id_fail05", "nope"),
    ToolResult.ok(None).for_call("id_none06", "ping"),
]  # fmt: skip

ODD_JSON = {
    "point": {"x": 1, "y": 2},
    "tags": ["a", "b"],
    "raw": "AP8=",
    "when": "2024-05-01",
    "model": {"city": "Paris", "at": "2024-05-01T12:00:00"},
}


def _typed(kind: Any) -> Callable[[Any], None]:
    adapter: TypeAdapter[Any] = TypeAdapter(kind)

    def check(message: Any) -> None:
        # TypedDict validation drops unknown keys: equality catches a misspelt one.
        assert adapter.validate_python(message) == message

    return check


def _check_openai(messages: list[Any]) -> None:
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolMessageParam

    for message in messages:
        _typed(ChatCompletionToolMessageParam)(message)
        _typed(ChatCompletionMessageParam)(message)


def _check_responses(items: list[Any]) -> None:
    from openai.types.responses import ResponseInputItemParam
    from openai.types.responses.response_input_param import FunctionCallOutput

    for item in items:
        _typed(FunctionCallOutput)(item)
        _typed(ResponseInputItemParam)(item)


def _check_anthropic(messages: list[Any]) -> None:
    from anthropic.types import MessageParam, ToolResultBlockParam

    adapter: TypeAdapter[Any] = TypeAdapter(MessageParam)
    for message in messages:
        validated = adapter.validate_python(message)
        assert {**validated, "content": list(validated["content"])} == message
        for block in message["content"]:
            _typed(ToolResultBlockParam)(block)


def _check_gemini(contents: list[Any]) -> None:
    from google.genai import types

    for content in contents:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model = types.Content.model_validate(content)  # extra="forbid"
        assert model.model_dump(mode="json", by_alias=True, exclude_none=True) == content


def _check_ollama(messages: list[Any]) -> None:
    import ollama

    for message in messages:
        model = ollama.Message.model_validate(message)
        assert model.model_dump(exclude_none=True) == message


def _check_mistral(messages: list[Any]) -> None:
    from mistralai.client.models import ToolMessage

    for message in messages:
        model = ToolMessage.model_validate(message)
        assert model.tool_call_id == message["tool_call_id"]
        assert model.name == message["name"]
        assert model.content == message["content"]


CHECKS = {
    "openai": _check_openai,
    "openai-responses": _check_responses,
    "anthropic": _check_anthropic,
    "gemini": _check_gemini,
    "ollama": _check_ollama,
    "bedrock": check_bedrock,
    "mistral": _check_mistral,
    "mcp": check_mcp,
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_messages_are_accepted_by_the_sdk(provider: str) -> None:
    """Every provider's result messages validate against that provider's SDK types."""
    CHECKS[provider](format_results(RESULTS, provider))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_messages_are_plain_json(provider: str) -> None:
    """The messages survive a JSON round trip unchanged: ready to send as they are."""
    messages = format_results(RESULTS, provider)
    assert json.loads(json.dumps(messages)) == messages


@pytest.mark.parametrize("provider", PROVIDERS)
def test_no_results_no_messages(provider: str) -> None:
    """Nothing to answer gives nothing to send."""
    assert format_results([], provider) == []


def test_openai() -> None:
    """One tool message per result, in order; text as is, the rest as JSON, errors marked."""
    messages = format_results(RESULTS, "openai")
    assert [m["tool_call_id"] for m in messages] == [r.call_id for r in RESULTS]
    assert messages[0] == {"role": "tool", "tool_call_id": "id_text01", "content": "sunny, 21°C"}
    assert json.loads(messages[1]["content"]) == {"hits": ["a", "b"], "total": 2}
    assert json.loads(messages[3]["content"]) == ODD_JSON
    assert messages[4]["content"] == "Error: Unknown tool: nope. Call one of: weather, search"
    assert messages[5]["content"] == "null"


def test_the_provider_defaults_to_openai() -> None:
    """``format_results(results)`` alone gives OpenAI's tool messages."""
    assert format_results(RESULTS) == format_results(RESULTS, "openai")


def test_responses() -> None:
    """function_call_output items answer by call_id."""
    items = format_results(RESULTS[:1], "openai-responses")
    assert items == [
        {"type": "function_call_output", "call_id": "id_text01", "output": "sunny, 21°C"}
    ]


def test_anthropic() -> None:
    """One user message holds every tool_result block, with is_error."""
    (message,) = format_results(RESULTS, "anthropic")
    assert message["role"] == "user"
    blocks = message["content"]
    assert [b["tool_use_id"] for b in blocks] == [r.call_id for r in RESULTS]
    assert [b["is_error"] for b in blocks] == [False, False, False, False, True, False]
    assert blocks[4]["content"] == "Unknown tool: nope. Call one of: weather, search"


def test_gemini() -> None:
    """functionResponse parts: output or error objects, ids kept, generated ids left out."""
    results = [
        ToolResult.ok({"t": 21}).for_call("8f2b1a3c", "weather"),
        ToolResult.ok("x").for_call(f"{GENERATED_ID_PREFIX}1-abc", "search"),
        ToolResult.fail("bad city").for_call("9a0c", "weather"),
    ]
    (content,) = format_results(results, "gemini")
    assert content == {"role": "user", "parts": [
        {"functionResponse": {"id": "8f2b1a3c", "name": "weather",
                              "response": {"output": {"t": 21}}}},
        {"functionResponse": {"name": "search", "response": {"output": "x"}}},
        {"functionResponse": {"id": "9a0c", "name": "weather", "response": {"error": "bad city"}}},
    ]}  # fmt: skip


def test_bedrock() -> None:
    """toolResult blocks carry status; objects go as json, everything else as text."""
    (message,) = format_results(RESULTS, "bedrock")
    blocks = [b["toolResult"] for b in message["content"]]
    assert [b["status"] for b in blocks] == ["success"] * 4 + ["error", "success"]
    assert blocks[0]["content"] == [{"text": "sunny, 21°C"}]
    assert blocks[1]["content"] == [{"json": {"hits": ["a", "b"], "total": 2}}]
    assert blocks[2]["content"] == [{"text": "[1,2,3]"}]
    assert blocks[3]["content"] == [{"json": ODD_JSON}]


def test_bedrock_object_like_outputs_go_as_json() -> None:
    """A dataclass or pydantic model output is an object, so it goes as json."""
    (message,) = format_results([ToolResult.ok(Point(3, 4)).for_call("t", "p")], "bedrock")
    assert message["content"][0]["toolResult"]["content"] == [{"json": {"x": 3, "y": 4}}]


def test_ollama_and_mistral() -> None:
    """Ollama answers by tool name; Mistral by id and name."""
    assert format_results(RESULTS[:1], "ollama") == [
        {"role": "tool", "tool_name": "weather", "content": "sunny, 21°C"}
    ]
    assert format_results(RESULTS[4:5], "mistral") == [
        {"role": "tool", "tool_call_id": "id_fail05", "name": "nope",
         "content": "Error: Unknown tool: nope. Call one of: weather, search"}
    ]  # fmt: skip


def test_mcp() -> None:
    """CallToolResult: structuredContent for objects (with its JSON text), isError on failure."""
    text, obj, listed, _, failed, _ = format_results(RESULTS, "mcp")
    assert text == {"content": [{"type": "text", "text": "sunny, 21°C"}], "isError": False}
    assert obj["structuredContent"] == {"hits": ["a", "b"], "total": 2}
    assert json.loads(obj["content"][0]["text"]) == obj["structuredContent"]
    assert "structuredContent" not in listed
    assert failed["isError"] is True


def test_one_result_alone() -> None:
    """A single ToolResult is accepted as well as a list."""
    assert format_results(RESULTS[0], "openai") == format_results(RESULTS[:1], "openai")


def test_a_failure_without_a_message_still_says_something() -> None:
    """A failed result with no error text gets a generic message naming its kind."""
    result = ToolResult(success=False, error_kind=ErrorKind.TIMEOUT).for_call("c", "slow")
    (message,) = format_results([result], "openai")
    assert message["content"] == "Error: The tool failed (timeout)."


@pytest.mark.parametrize(
    "provider", ["openai", "openai-responses", "anthropic", "bedrock", "mistral"]
)
def test_results_need_the_call_id(provider: str) -> None:
    """Providers that match by id refuse a result without one, saying how to fix it."""
    with pytest.raises(ToolCallFormatError, match="execute_all"):
        format_results([ToolResult.ok(1)], provider)


@pytest.mark.parametrize("provider", ["gemini", "ollama", "mistral"])
def test_results_need_the_tool_name(provider: str) -> None:
    """Providers that match (also) by name refuse a result without one."""
    with pytest.raises(ToolCallFormatError, match="tool's name"):
        format_results([ToolResult.ok(1).for_call("c", None)], provider)


def test_bad_input() -> None:
    """Unknown providers and non-results are rejected clearly."""
    with pytest.raises(UnsupportedProviderError):
        format_results(RESULTS, "cohere")
    with pytest.raises(ToolCallFormatError, match="not a ToolResult"):
        format_results([{"success": True}], "openai")  # type: ignore[list-item]


def test_non_result_message_uses_the_right_article() -> None:
    """A stray int is reported as "an int", not "a int"."""
    with pytest.raises(ToolCallFormatError, match="result 0 is an int, not a ToolResult"):
        format_results([3], "openai")  # type: ignore[list-item]
