"""Content parts in tool results: every kind through every provider, judged by its own SDK."""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

import pytest
from pydantic import TypeAdapter

from forge.tools import ToolResult, format_results
from forge.tools.parsing import PROVIDERS
from forge.tools.values.content import Content, Image, Text
from tests.unit.tools.content_samples import PARTS, PDF, PNG, WAV
from tests.unit.tools.replies.sdk_checks import check_bedrock, check_mcp

MIX: list[Any] = ["Chart and data:", PARTS["png"], PARTS["json"], PARTS["link"]]


def _results() -> list[ToolResult]:
    """One result per part kind, one mix, a plain one and a failure."""
    out = [ToolResult.ok(part).for_call(f"c_{key}", "t") for key, part in PARTS.items()]
    out.append(ToolResult.ok(MIX).for_call("c_mix", "t"))
    out.append(ToolResult.ok({"plain": True}).for_call("c_plain", "t"))
    out.append(ToolResult.fail("boom").for_call("c_fail", "t"))
    return out


def _same(kind: Any, value: Any) -> None:
    """TypedDict validation drops unknown keys: equality catches a misspelt one."""
    adapter: TypeAdapter[Any] = TypeAdapter(kind)
    assert _plain(adapter.validate_python(value)) == value


def _plain(value: Any) -> Any:
    """A validated value with its lazily validated iterables read into lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return value
    return [_plain(v) for v in value]


def _check_openai(messages: list[Any]) -> None:
    from openai.types.chat import (
        ChatCompletionMessageParam,
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )

    *tools, user = messages
    for message in tools:
        _same(ChatCompletionToolMessageParam, message)
        assert isinstance(message["content"], str)
    _same(ChatCompletionUserMessageParam, user)
    for message in messages:
        _same(ChatCompletionMessageParam, message)


def _check_mistral(messages: list[Any]) -> None:
    from mistralai.client.models import ToolMessage, UserMessage

    *tools, user = messages
    for message in tools:
        assert ToolMessage.model_validate(message).content == message["content"]
    model = UserMessage.model_validate(user)
    assert len(model.content) == len(user["content"])  # type: ignore[arg-type]
    assert "UNKNOWN" not in {chunk.type for chunk in model.content}  # type: ignore[union-attr]


def _check_responses(items: list[Any]) -> None:
    from openai.types.responses import ResponseInputItemParam
    from openai.types.responses.response_input_param import FunctionCallOutput

    for item in items:
        _same(FunctionCallOutput, item)
        _same(ResponseInputItemParam, item)


def _check_anthropic(messages: list[Any]) -> None:
    from anthropic.types import MessageParam, ToolResultBlockParam

    (message,) = messages
    _same(MessageParam, message)
    for block in message["content"]:
        _same(ToolResultBlockParam, block)


def _check_gemini(contents: list[Any]) -> None:
    from google.genai import types

    for content in contents:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model = types.Content.model_validate(content)  # extra="forbid"
        assert model.model_dump(mode="json", by_alias=True, exclude_none=True) == content


def _check_ollama(messages: list[Any]) -> None:
    from ollama._client import _copy_messages  # how Client.chat reads message dicts

    for message, model in zip(messages, _copy_messages(messages), strict=True):
        assert model.model_dump(exclude_none=True) == message


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


def test_every_provider_is_checked() -> None:
    """The SDK checks cover every provider format_results knows."""
    assert set(CHECKS) == set(PROVIDERS)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_kind_is_accepted_by_the_sdk(provider: str) -> None:
    """Each part kind, a mix, plain output and a failure validate against the SDK's types."""
    CHECKS[provider](format_results(_results(), provider))


@pytest.mark.parametrize("provider", sorted(set(PROVIDERS) - {"bedrock"}))
def test_messages_with_content_are_plain_json(provider: str) -> None:
    """Content travels as base64 text: the messages survive a JSON round trip."""
    messages = format_results(_results(), provider)
    assert json.loads(json.dumps(messages)) == messages


def _data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_anthropic_images_and_documents() -> None:
    """Images are image blocks, PDFs and text files document blocks, audio a note."""
    parts = [PARTS["text"], PARTS["png"], PARTS["pdf"], PARTS["notes"], PARTS["wav"]]
    (message,) = format_results(ToolResult.ok(parts).for_call("toolu_1", "t"), "anthropic")
    blocks = message["content"][0]["content"]
    assert blocks[0] == {"type": "text", "text": "Here is what I found:"}
    assert blocks[1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": _b64(PNG)},
    }
    assert blocks[2] == {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": _b64(PDF)},
        "title": "report.pdf",
    }
    assert blocks[3]["source"] == {"type": "text", "media_type": "text/plain",
                                   "data": "line one\nline two"}  # fmt: skip
    assert blocks[4]["type"] == "text"
    assert "audio" in blocks[4]["text"]
    assert "left out" in blocks[4]["text"]


def test_responses_output_items() -> None:
    """function_call_output carries input_text, input_image and input_file items."""
    parts = [PARTS["text"], PARTS["png"], PARTS["pdf"]]
    (item,) = format_results(ToolResult.ok(parts).for_call("call_1", "t"), "openai-responses")
    assert item["output"] == [
        {"type": "input_text", "text": "Here is what I found:"},
        {"type": "input_image", "image_url": _data_url("image/png", PNG)},
        {"type": "input_file", "file_data": _data_url("application/pdf", PDF),
         "filename": "report.pdf"},
    ]  # fmt: skip


def test_gemini_inline_parts_referenced_from_the_output() -> None:
    """Images and PDFs go in functionResponse.parts; output refers to them in order."""
    from google.genai import types

    parts = [PARTS["text"], PARTS["png"], PARTS["pdf"], PARTS["wav"]]
    (content,) = format_results(ToolResult.ok(parts).for_call("g1", "t"), "gemini")
    response = types.Content.model_validate(content).parts[0].function_response  # type: ignore[index]
    assert response is not None
    assert response.parts is not None
    assert [p.inline_data.data for p in response.parts] == [PNG, PDF]  # type: ignore[union-attr]
    names = [p.inline_data.display_name for p in response.parts]  # type: ignore[union-attr]
    output = response.response["output"]  # type: ignore[index]
    assert output[0] == "Here is what I found:"
    assert output[1:3] == [{"$ref": names[0]}, {"$ref": names[1]}]
    assert "audio" in output[3]
    assert len(set(names)) == 2


def test_bedrock_image_and_document_blocks_hold_bytes() -> None:
    """Bedrock gets raw bytes (boto3 encodes them) and document names it allows."""
    parts = [PARTS["png"], PARTS["pdf"], PARTS["notes"], PARTS["csv_bytes"], PARTS["zip"]]
    (message,) = format_results(ToolResult.ok(parts).for_call("tu1", "t"), "bedrock")
    content = message["content"][0]["toolResult"]["content"]
    assert content[0] == {"image": {"format": "png", "source": {"bytes": PNG}}}
    assert content[1] == {"document": {"format": "pdf", "name": "report pdf",
                                       "source": {"bytes": PDF}}}  # fmt: skip
    assert content[2]["document"]["source"] == {"text": "line one\nline two"}
    assert content[3]["document"] == {"format": "csv", "name": "table csv",
                                      "source": {"text": "a,b\n1,2\n"}}  # fmt: skip
    assert "left out" in content[4]["text"]


def test_chat_completions_attachments_follow_the_tool_messages() -> None:
    """Tool messages stay text; images, audio and PDFs come in one user message after them."""
    results = [
        ToolResult.ok([PARTS["text"], PARTS["png"]]).for_call("call_a", "chart"),
        ToolResult.ok("plain").for_call("call_b", "echo"),
        ToolResult.ok([PARTS["wav"], PARTS["pdf"], PARTS["ogg"]]).for_call("call_c", "media"),
    ]
    first, second, third, user = format_results(results, "openai")
    assert [first["role"], second["role"], third["role"], user["role"]] == ["tool"] * 3 + ["user"]
    assert first["content"].startswith("Here is what I found:\n[image (image/png)")
    assert second["content"] == "plain"
    assert "audio/ogg" in third["content"]
    assert "left out" in third["content"]
    assert user["content"] == [
        {"type": "text", "text": "Attachments from tool call call_a (chart):"},
        {"type": "image_url", "image_url": {"url": _data_url("image/png", PNG)}},
        {"type": "text", "text": "Attachments from tool call call_c (media):"},
        {"type": "input_audio", "input_audio": {"data": _b64(WAV), "format": "wav"}},
        {"type": "file", "file": {"file_data": _data_url("application/pdf", PDF),
                                  "filename": "report.pdf"}},
    ]  # fmt: skip


def test_text_only_results_add_no_user_message() -> None:
    """Without attachments Chat Completions gets tool messages only, as before."""
    parts = [PARTS["text"], PARTS["notes"], PARTS["link"]]
    messages = format_results(ToolResult.ok(parts).for_call("call_a", "t"), "openai")
    assert [m["role"] for m in messages] == ["tool"]
    assert "line one\nline two" in messages[0]["content"]
    assert "file:///logs/today.log" in messages[0]["content"]


def test_mistral_attachments() -> None:
    """Mistral gets the same layout with its own chunk types."""
    parts = [PARTS["png"], PARTS["pdf"], PARTS["wav"]]
    _, user = format_results(ToolResult.ok(parts).for_call("abcDEF123", "t"), "mistral")
    assert user["content"][1:] == [
        {"type": "image_url", "image_url": _data_url("image/png", PNG)},
        {"type": "document_url", "document_url": _data_url("application/pdf", PDF),
         "document_name": "report.pdf"},
        {"type": "input_audio", "input_audio": _b64(WAV)},
    ]  # fmt: skip


def test_ollama_images_ride_on_the_tool_message() -> None:
    """Ollama's tool message takes images itself; other kinds are named in the text."""
    (message,) = format_results(
        ToolResult.ok([PARTS["png"], PARTS["wav"]]).for_call("x", "t"), "ollama"
    )
    assert message["images"] == [_b64(PNG)]
    assert "attached to this message" in message["content"]
    assert "audio" in message["content"]


def test_mcp_content_blocks() -> None:
    """MCP gets its own blocks: image, audio, resource (text or blob) and resource_link."""
    parts = [PARTS["png"], PARTS["wav"], PARTS["json"], PARTS["pdf"], PARTS["link"]]
    (result,) = format_results(ToolResult.ok(parts).for_call("m", "t"), "mcp")
    assert "structuredContent" not in result
    assert result["content"] == [
        {"type": "image", "data": _b64(PNG), "mimeType": "image/png"},
        {"type": "audio", "data": _b64(WAV), "mimeType": "audio/wav"},
        {"type": "resource", "resource": {"uri": "test://data", "mimeType": "application/json",
                                          "text": '{"test":"data"}'}},
        {"type": "resource", "resource": {"uri": "file:///report.pdf",
                                          "mimeType": "application/pdf", "blob": _b64(PDF)}},
        {"type": "resource_link", "uri": "file:///logs/today.log", "name": "today.log",
         "title": "Today's log", "description": "The server log", "mimeType": "text/plain",
         "size": 2048},
    ]  # fmt: skip


def test_mcp_blocks_import_back_to_the_same_parts() -> None:
    """format_mcp then the client's import gives back equal parts (no base64 left in text)."""
    import mcp_types as types

    from forge.mcp._convert import from_call_result

    parts = list(PARTS.values())
    (wire,) = format_results(ToolResult.ok(parts).for_call("m", "t"), "mcp")
    back = from_call_result("t", types.CallToolResult.model_validate(wire)).output
    expected = [p if p is not PARTS["pdf"] else _with_uri(p, "file:///report.pdf") for p in parts]
    expected = [_with_uri(p, "file:///notes.txt") if p is PARTS["notes"] else p for p in expected]
    expected = [
        _with_uri(p, "file:///table.csv") if p is PARTS["csv_bytes"] else p for p in expected
    ]
    expected = [_with_uri(p, "file:///bundle.zip") if p is PARTS["zip"] else p for p in expected]
    assert back == [_without_name(p) for p in expected]


def _with_uri(part: Any, uri: str) -> Any:
    import dataclasses

    return dataclasses.replace(part, uri=uri)


def _without_name(part: Content) -> Content:
    import dataclasses

    from forge.tools.values.content import File

    return dataclasses.replace(part, name=None) if isinstance(part, File) else part


def test_a_single_part_is_a_result_of_its_own() -> None:
    """A result holding one part formats as a list of that one part."""
    (item,) = format_results(ToolResult.ok(PARTS["png"]).for_call("c", "t"), "openai-responses")
    assert item["output"] == [{"type": "input_image", "image_url": _data_url("image/png", PNG)}]


def test_plain_results_are_unchanged() -> None:
    """Strings and JSON still go as they always did."""
    plain = [ToolResult.ok("hi").for_call("c1", "t"), ToolResult.ok({"a": 1}).for_call("c2", "t")]
    assert format_results(plain, "anthropic")[0]["content"][0]["content"] == "hi"
    assert format_results(plain, "openai")[1]["content"] == '{"a":1}'
    assert format_results(plain, "mcp")[1]["structuredContent"] == {"a": 1}


def test_strings_in_a_mix_are_text_parts() -> None:
    """In a list holding a part, strings are Text and other values their JSON."""
    mix = ToolResult.ok(["a", Image(PNG), {"k": 1}]).for_call("c", "t")
    (result,) = format_results(mix, "mcp")
    assert result["content"][0] == {"type": "text", "text": "a"}
    assert result["content"][2] == {"type": "text", "text": '{"k":1}'}
    assert Text("a") == Text("a")


def test_unreadable_content_becomes_a_note_not_a_crash(tmp_path: Any) -> None:
    """A result holding a path that is gone, or an MCP block with broken base64, says so."""
    import mcp_types as types

    from forge.mcp._convert import from_call_result

    gone = ToolResult.ok(tmp_path / "gone.png").for_call("c", "t")
    (message,) = format_results(gone, "anthropic")
    (note,) = message["content"][0]["content"]
    assert note["type"] == "text"
    assert "could not be read" in note["text"]
    broken = types.CallToolResult(
        content=[
            types.ImageContent(data="not base64!", mime_type="image/png"),
            types.TextContent(text="x"),
        ]
    )
    first, _ = from_call_result("t", broken).output
    assert isinstance(first, Text)
    assert "image block that could not be read" in first.text
