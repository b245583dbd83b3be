"""Which provider a response, message, chunk or event comes from.

SDK objects are recognised by the package that defines their type. Plain dicts are
recognised by their shape (the keys each provider's wire format uses; see
``provider-formats.md``). Shapes that several providers share are told apart where the
difference matters: a chat message whose calls have no ``id`` and object arguments is
Ollama's, one with an ``id`` and object arguments Mistral's, otherwise OpenAI's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forge.tools.parsing._common import ToolCallFormatError

__all__ = ["detect_provider"]

# Longest prefix first: the Responses types live inside the openai package (the events
# of its ``client.responses.stream()`` helper too).
_MODULES = (
    ("openai.types.responses", "openai-responses"),
    ("openai.lib.streaming.responses", "openai-responses"),
    ("openai.", "openai"),
    ("anthropic.", "anthropic"),
    ("google.genai.", "gemini"),
    ("ollama.", "ollama"),
    ("mistralai.", "mistral"),
    ("mcp_types.", "mcp"),
    ("mcp.", "mcp"),
)

_BEDROCK_STREAM = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
     "messageStop", "metadata"}
)  # fmt: skip
_ANTHROPIC_EVENTS = frozenset(
    {"message_start", "message_delta", "message_stop", "content_block_start",
     "content_block_delta", "content_block_stop", "ping"}
)  # fmt: skip
_ANTHROPIC_BLOCKS = frozenset(
    {"tool_use", "text", "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use",
     "tool_result", "image", "document", "web_search_tool_result", "tool_search_tool_result"}
)  # fmt: skip


def detect_provider(obj: Any) -> str:
    """Return the provider name for a response, message, list, chunk or event.

    Raises:
        ToolCallFormatError: The shape matches no provider.
    """
    if isinstance(obj, list | tuple):
        for item in obj:
            found = _detect_item(item)
            if found is not None:
                return found
        if not obj:
            raise ToolCallFormatError("cannot detect the provider of an empty list; pass provider=")
    else:
        found = _detect_one(obj)
        if found is not None:
            return found
    raise ToolCallFormatError(
        f"cannot tell which provider {type(obj).__name__} {_preview(obj)} comes from; "
        "pass provider= (openai, openai-responses, anthropic, gemini, ollama, bedrock, "
        "mistral, mcp)"
    )


def _detect_one(obj: Any) -> str | None:
    by_module = _by_module(obj)
    if by_module is not None:
        return by_module
    if not isinstance(obj, Mapping):
        return None
    return _by_shape(obj)


def _detect_item(item: Any) -> str | None:
    """An element of a list: a tool call, content block, part, output item or request."""
    by_module = _by_module(item)
    if by_module is not None:
        return by_module
    if not isinstance(item, Mapping):
        return None
    if "function" in item:
        return _chat_flavour([item])
    return _by_shape(item)


def _by_module(obj: Any) -> str | None:
    module = type(obj).__module__ + "."
    for prefix, provider in _MODULES:
        if module.startswith(prefix):
            return provider
    return None


def _by_shape(obj: Mapping[str, Any]) -> str | None:
    kind = obj.get("type")
    if not isinstance(kind, str):
        kind = None  # a model's "type" that is a list or object names no provider
    legacy = obj.get("function_call")
    if isinstance(legacy, Mapping) and "args" in legacy:
        return "gemini"  # a snake_case Gemini part; OpenAI's legacy function_call has arguments
    if "choices" in obj or "tool_calls" in obj or legacy is not None:
        return _chat(obj)
    if "candidates" in obj or "parts" in obj or "functionCall" in obj:
        return "gemini"
    if "message" in obj and isinstance(obj["message"], Mapping):
        return "ollama" if "model" in obj or "done" in obj or "tool_calls" in obj["message"] \
            else _by_shape(obj["message"])  # fmt: skip
    output = obj.get("output")
    if isinstance(output, Mapping) and "message" in output:
        return "bedrock"
    if isinstance(output, list) or (kind is not None and kind.startswith("response.")):
        return "openai-responses"
    if kind in ("function_call", "function_call_output", "tool_search_call",
                "tool_search_output"):  # fmt: skip
        return "openai-responses"
    if kind == "message":
        return _message_kind(obj)
    if kind in _ANTHROPIC_EVENTS or kind in _ANTHROPIC_BLOCKS:
        return "anthropic"
    if "toolUse" in obj or "toolUseId" in obj or not _BEDROCK_STREAM.isdisjoint(obj):
        return "bedrock"
    if obj.get("method") == "tools/call" or ("name" in obj and "arguments" in obj):
        return "mcp"
    content = obj.get("content")
    if isinstance(content, list):
        return _by_blocks(content)
    if "data" in obj and isinstance(obj["data"], Mapping) and "choices" in obj["data"]:
        return "mistral"
    return None


def _message_kind(obj: Mapping[str, Any]) -> str | None:
    """Anthropic's ``Message`` and a Responses ``message`` item both say ``type: message``."""
    if "stop_reason" in obj or "model" in obj:
        return "anthropic"
    if "status" in obj:
        return "openai-responses"
    content = obj.get("content")
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, Mapping) else None
        if not isinstance(kind, str):
            continue
        if kind in ("output_text", "refusal", "input_text"):
            return "openai-responses"
        if kind in _ANTHROPIC_BLOCKS:
            return "anthropic"
    return None


def _chat(obj: Mapping[str, Any]) -> str:
    message: Any = obj
    choices = obj.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        message = choices[0].get("message") or choices[0].get("delta") or {}
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    return _chat_flavour(calls) if isinstance(calls, list) else "openai"


def _chat_flavour(calls: list[Any]) -> str:
    """OpenAI sends arguments as text; Mistral as text or object with an id; Ollama no id."""
    for call in calls:
        if not isinstance(call, Mapping):
            continue
        function = call.get("function")
        arguments = function.get("arguments") if isinstance(function, Mapping) else None
        if isinstance(arguments, Mapping):
            return "mistral" if call.get("id") else "ollama"
        if arguments is not None:
            return "openai"
    return "openai"


def _by_blocks(blocks: list[Any]) -> str | None:
    for block in blocks:
        if isinstance(block, Mapping):
            if "type" in block:
                return "anthropic"
            if "toolUse" in block or "text" in block or "toolResult" in block:
                return "bedrock"
    return None


def _preview(obj: Any) -> str:
    if isinstance(obj, Mapping):
        return f"with keys {sorted(map(str, obj))[:12]}"
    return ""
