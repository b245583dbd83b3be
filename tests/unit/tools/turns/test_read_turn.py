"""`read_turn`: the model's turn rebuilt as each provider takes it back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter

from forge.core.errors import UnsupportedProviderError
from forge.tools import ToolCallFormatError, ToolResult, read_turn


def exact(kind: Any, value: Any) -> None:
    """``value`` is a valid ``kind`` with no key the type does not know."""
    assert _read(TypeAdapter(kind).validate_python(value)) == value


def _read(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _read(v) for k, v in value.items()}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return [_read(v) for v in value]


def test_openai_message_keeps_refusal_audio_and_custom_calls() -> None:
    """Chat Completions: arguments text untouched, custom calls, refusal and audio id kept;
    response-only keys (annotations, audio data) dropped."""
    from openai.types.chat import ChatCompletion, ChatCompletionAssistantMessageParam

    completion = ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 1, "model": "gpt-5.5",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Hi", "refusal": "no", "annotations": [],
            "audio": {"id": "audio_1", "data": "AAAA", "expires_at": 1, "transcript": "Hi"},
            "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "f", "arguments": '{"a":  1}'}},
                {"id": "call_2", "type": "custom", "custom": {"name": "g", "input": "raw"}},
            ]}}],
    })  # fmt: skip
    turn = read_turn(completion)
    [message] = turn.items
    exact(ChatCompletionAssistantMessageParam, message)
    assert message == {
        "role": "assistant", "content": "Hi", "refusal": "no", "audio": {"id": "audio_1"},
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "f", "arguments": '{"a":  1}'}},
            {"id": "call_2", "type": "custom", "custom": {"name": "g", "input": "raw"}},
        ],
    }  # fmt: skip
    assert (turn.provider, turn.text, [c.id for c in turn.calls]) == ("openai", "Hi", ["call_1"])


def test_mistral_sdk_response_and_replies() -> None:
    """Mistral: object arguments kept as sent; replies carry the tool name Mistral wants."""
    from mistralai.client.models import AssistantMessage, ChatCompletionResponse

    response = ChatCompletionResponse.model_validate({
        "id": "m", "object": "chat.completion", "model": "mistral-large", "created": 1,
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "",
            "tool_calls": [{"id": "abc123xyz", "type": "function",
                            "function": {"name": "f", "arguments": {"a": 1}}}]}}],
    })  # fmt: skip
    turn = read_turn(response)
    [message] = turn.items
    assert turn.provider == "mistral"
    assert message["tool_calls"][0]["function"]["arguments"] == {"a": 1}
    AssistantMessage.model_validate(message)
    [reply] = turn.answer([ToolResult.ok(2).for_call("abc123xyz", "f")]).replies
    assert reply == {"role": "tool", "tool_call_id": "abc123xyz", "name": "f", "content": "2"}


def test_ollama_keeps_thinking_and_calls() -> None:
    """Ollama: content, thinking and the calls' object arguments, in the client's Message."""
    import ollama

    response = ollama.ChatResponse.model_validate({
        "model": "qwen3", "created_at": "2026-01-01T00:00:00Z", "done": True,
        "message": {"role": "assistant", "content": "", "thinking": "Weather, then.",
                    "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]},
    })  # fmt: skip
    turn = read_turn(response)
    [message] = turn.items
    calls = [{"function": {"name": "f", "arguments": {"a": 1}}}]
    assert message == {
        "role": "assistant", "content": "", "thinking": "Weather, then.", "tool_calls": calls,
    }  # fmt: skip
    ollama.Message.model_validate(message)
    assert turn.provider == "ollama"
    assert [c.name for c in turn.calls] == ["f"]


def test_anthropic_keeps_redacted_thinking_and_server_blocks() -> None:
    """Anthropic: every block goes back as it came, in a valid MessageParam."""
    from anthropic.types import Message, MessageParam

    blocks = [
        {"type": "redacted_thinking", "data": "opaque=="},
        {"type": "text", "text": "See ", "citations": None},
        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
    ]
    msg = Message.model_validate({
        "id": "m", "type": "message", "role": "assistant", "model": "claude", "content": blocks,
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    })  # fmt: skip
    [message] = read_turn(msg).items
    exact(MessageParam, message)
    assert message["content"] == [blocks[0], {"type": "text", "text": "See "}, blocks[2]]


def test_responses_items_given_as_a_list() -> None:
    """Responses: output items given directly are echoed; the text is the output_text."""
    from openai.types.responses import ResponseInputItemParam

    output = [
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Done.", "annotations": []}]},
    ]  # fmt: skip
    turn = read_turn(output, "responses")
    assert turn.items == tuple(output)
    exact(ResponseInputItemParam, output[0])
    assert (turn.text, turn.calls, turn.answer([]).done) == ("Done.", (), True)


def test_responses_parsed_response_goes_back_without_what_the_sdk_parsed() -> None:
    """A ``ParsedResponse`` (``responses.parse()``, ``stream().get_final_response()``, strict
    tools): its ``parsed`` and ``parsed_arguments`` are left out, as the SDK leaves them out
    of a request; the items are the plain response's, each a valid input item."""
    from openai.lib._parsing._responses import parse_response
    from openai.types.responses import Response, ResponseInputItemParam
    from pydantic import BaseModel

    class Answer(BaseModel):
        x: int

    output = [
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": '{"x": 1}', "annotations": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f",
         "arguments": '{"a": 1}', "status": "completed"},
    ]  # fmt: skip
    response = Response.model_validate({
        "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5",
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "output": output,
    })  # fmt: skip
    tools: Any = [{"type": "function", "name": "f", "strict": True, "parameters": {
        "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
        "additionalProperties": False}}]  # fmt: skip
    parsed = parse_response(text_format=Answer, input_tools=tools, response=response)
    assert parsed.output[1].parsed_arguments == {"a": 1}  # type: ignore[union-attr]
    turn = read_turn(parsed)
    assert turn.items == tuple(output) == read_turn(response).items
    for item in turn.items:
        exact(ResponseInputItemParam, item)


def test_gemini_content_thoughts_left_out_of_text() -> None:
    """Gemini: a Content object goes back whole; thought text is not the answer."""
    from google.genai import types

    content = types.Content(role="model", parts=[
        types.Part(text="thinking...", thought=True, thought_signature=b"sig"),
        types.Part(text="Answer."),
    ])  # fmt: skip
    turn = read_turn(content)
    assert turn.items == ({"role": "model", "parts": [
        {"text": "thinking...", "thought": True, "thoughtSignature": "c2ln"},
        {"text": "Answer."}]},)  # fmt: skip
    assert turn.text == "Answer."
    assert types.Content.model_validate(turn.items[0]).parts[0].thought_signature == b"sig"


def test_gemini_response_without_candidates_is_an_empty_turn() -> None:
    """A blocked prompt (no candidates) is a done turn with no text."""
    turn = read_turn({"candidates": [], "promptFeedback": {"blockReason": "SAFETY"}})
    assert (turn.items, turn.text, turn.answer([]).done) == (
        ({"role": "model", "parts": []},),
        "",
        True,
    )


def test_bedrock_message_echoed_with_reasoning() -> None:
    """Bedrock: output.message goes back as it is, reasoning signature included."""
    message = {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "Hm.", "signature": "s1"}}},
        {"text": "Checking."},
        {"toolUse": {"toolUseId": "tooluse_1", "name": "f", "input": {"a": 1}}},
    ]}  # fmt: skip
    turn = read_turn({"output": {"message": message}, "stopReason": "tool_use"})
    assert (turn.provider, turn.items, turn.text) == ("bedrock", (message,), "Checking.")
    assert turn.items[0] is not message  # a copy: the caller's response is never shared
    [reply] = turn.answer([ToolResult.ok(3).for_call("tooluse_1", "f")]).replies
    assert reply["content"][0]["toolResult"]["toolUseId"] == "tooluse_1"


def test_json_text_is_read() -> None:
    """A response given as JSON text is decoded first."""
    text = json.dumps({"role": "assistant", "content": "Hi"})
    assert read_turn(text, "openai").text == "Hi"


@pytest.mark.parametrize(
    ("response", "provider", "error", "match"),
    [
        ("{not json", None, ToolCallFormatError, "not JSON"),
        ({"unrelated": 1}, None, ToolCallFormatError, "cannot tell which provider"),
        ({"name": "f", "arguments": {}}, "mcp", UnsupportedProviderError, "mcp"),
        ({"output": {"message": {"role": "assistant"}}}, "bedrock", ToolCallFormatError,
         "output.message.content"),
        ({"content": "text"}, "anthropic", ToolCallFormatError, "not a list"),
        ({"content": [1]}, "anthropic", ToolCallFormatError, "not an object"),
    ],
)  # fmt: skip
def test_bad_input_says_what_is_wrong(
    response: Any, provider: str | None, error: type[Exception], match: str
) -> None:
    """Input that is no provider's response raises an error naming the problem."""
    with pytest.raises(error, match=match):
        read_turn(response, provider)


def check_converse(messages: list[Any]) -> None:
    """``messages`` make a valid Converse request, by botocore's own validator."""
    import botocore.session
    from botocore.validate import ParamValidator

    service = botocore.session.get_session().get_service_model("bedrock-runtime")
    spec = {"name": "f", "inputSchema": {"json": {}}}
    request = {"modelId": "anthropic.claude-sonnet-4",
               "messages": [{"role": "user", "content": [{"text": "go"}]}, *messages],
               "toolConfig": {"tools": [{"toolSpec": spec}]}}  # fmt: skip
    report = ParamValidator().validate(request, service.operation_model("Converse").input_shape)
    assert not report.has_errors(), report.generate_report()


def test_bedrock_turn_is_a_valid_converse_request() -> None:
    """The echoed message and the tool results pass botocore's validation."""
    message = {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "Hm.", "signature": "s1"}}},
        {"toolUse": {"toolUseId": "tooluse_1", "name": "f", "input": {"a": 1}}},
    ]}  # fmt: skip
    turn = read_turn({"output": {"message": message}}).answer(
        [ToolResult.ok(3).for_call("tooluse_1", "f")]
    )
    check_converse(turn.messages)
