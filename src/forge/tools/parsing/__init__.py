"""Parsing tool calls out of every provider's responses.

`parse_tool_calls` takes a whole response, an assistant message, a list of calls, content
blocks, parts or output items, or one call, as a plain dict (wire JSON), JSON text, or the
official SDK object, and returns `ToolCall`s in the order the model made them. The
provider is detected when not given (see `detect_provider`).

Arguments sent as JSON text are decoded; malformed text is repaired where that is safe
(``ToolCall.repaired``) and otherwise left on the call as ``ToolCall.argument_error``, which
execution turns into an ``invalid_json`` result for the model (see `forge.tools.values._repair`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from forge.core.errors import ForgeError, UnsupportedProviderError
from forge.tools.parsing import anthropic, bedrock, gemini, mcp, mistral, ollama, openai, responses
from forge.tools.parsing._common import (
    GENERATED_ID_PREFIX,
    ToolCallFormatError,
    cut_off_call,
    field,
    generated_id,
    given_id,
    is_generated_id,
    items,
    to_plain,
)
from forge.tools.parsing.detect import detect_provider
from forge.tools.values.calls import ToolCall

__all__ = [
    "GENERATED_ID_PREFIX",
    "PARSERS",
    "PROVIDERS",
    "ToolCallFormatError",
    "cut_off_call",
    "detect_provider",
    "field",
    "generated_id",
    "given_id",
    "is_generated_id",
    "items",
    "parse_tool_calls",
    "resolve_provider",
    "revealed_tools",
    "to_plain",
]

PARSERS: dict[str, Callable[[Any], list[ToolCall]]] = {
    "openai": openai.parse,
    "openai-responses": responses.parse,
    "anthropic": anthropic.parse,
    "gemini": gemini.parse,
    "ollama": ollama.parse,
    "bedrock": bedrock.parse,
    "mistral": mistral.parse,
    "mcp": mcp.parse,
}

#: The providers `parse_tool_calls`, `ToolCallAccumulator` and `format_results` support.
PROVIDERS: tuple[str, ...] = tuple(PARSERS)

_ALIASES = {
    "openai-chat": "openai",
    "openai_responses": "openai-responses",
    "responses": "openai-responses",
    "google": "gemini",
    "google-genai": "gemini",
    "claude": "anthropic",
    "bedrock-converse": "bedrock",
    "aws-bedrock": "bedrock",
}


def resolve_provider(provider: str) -> str:
    """Return the canonical name for ``provider`` (a few common aliases are accepted).

    Raises:
        UnsupportedProviderError: Listing the supported providers.
    """
    if provider in PARSERS:
        return provider
    name = _ALIASES.get(str(provider).lower(), str(provider).lower())
    if name not in PARSERS:
        raise UnsupportedProviderError(provider, PROVIDERS)
    return name


def parse_tool_calls(message_or_response: Any, provider: str | None = None) -> list[ToolCall]:
    """Return the tool calls a model made, in order.

    Args:
        message_or_response: A whole response, an assistant message, a list of calls
            (content blocks, parts, output items), or one call: a dict, JSON text or an
            official SDK object.
        provider: ``openai``, ``openai-responses``, ``anthropic``, ``gemini``, ``ollama``,
            ``bedrock``, ``mistral`` or ``mcp``; detected from the shape when ``None``.

    Returns:
        One `ToolCall` per function call, ``[]`` when the model called none.

    Raises:
        UnsupportedProviderError: ``provider`` is not supported.
        ToolCallFormatError: The input is not in a shape the provider uses (a response
            in another provider's shape, holding calls, names that provider).

    >>> calls = parse_tool_calls({"role": "assistant", "tool_calls": [{"id": "call_1",
    ...     "type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}]})
    >>> calls[0]
    ToolCall(id='call_1', name='search', arguments={'q': 'x'}, repaired=False, \
argument_error=None, raw_arguments=None)
    """
    obj = _decoded(message_or_response)
    if obj is None:
        return []
    name = provider
    try:
        name = detect_provider(obj) if provider is None else resolve_provider(provider)
        calls = PARSERS[name](obj)
        if not calls and provider is not None:
            _not_another_providers(obj, name)
        return calls
    except ForgeError:
        raise
    except (TypeError, ValueError, LookupError, AttributeError, RecursionError) as exc:
        # Model output is hostile input: a shape no parser check foresaw is still a format error.
        raise ToolCallFormatError(
            f"the {name or 'model'} response is not in a shape forge-tools reads "
            f"({type(exc).__name__}: {str(exc)[:200]}); pass the response, message or calls "
            "as the provider sends them"
        ) from exc


def _not_another_providers(obj: Any, name: str) -> None:
    """Raise when ``obj``, which holds no call in ``name``'s shape, holds calls in the shape
    of the provider it looks like: the wrong provider was given, and the calls would be lost.
    """
    try:
        other = detect_provider(obj)
        found = len(PARSERS[other](obj)) if other != name else 0
    except (ForgeError, TypeError, ValueError, LookupError, AttributeError, RecursionError):
        return  # no other reading of it: a response without calls
    if found:
        raise ToolCallFormatError(
            f"provider={name!r} was given, but the response is in {other}'s shape: {name} "
            f"reads no tool call in it, {other} reads {found}; pass provider={other!r} "
            "(or leave provider out to detect it)"
        )


#: The providers whose responses can reveal deferred tools (their own tool search).
REVEALERS: dict[str, Callable[[Any], list[str]]] = {
    "anthropic": anthropic.revealed,
    "openai-responses": responses.revealed,
}


def revealed_tools(message_or_response: Any, provider: str | None = None) -> list[str]:
    """Return the deferred tools the provider's own tool search revealed, in order.

    The search's blocks or items (Anthropic's ``server_tool_use`` and
    ``tool_search_tool_result``, OpenAI's ``tool_search_call`` and ``tool_search_output``)
    are not calls for the client: `parse_tool_calls` skips them. This reads the tool
    names they loaded. Providers without a native tool search reveal none (``[]``).

    Raises:
        UnsupportedProviderError: ``provider`` is not supported.
        ToolCallFormatError: The input is not in a shape the provider uses.
    """
    obj = _decoded(message_or_response)
    if obj is None:
        return []
    name = detect_provider(obj) if provider is None else resolve_provider(provider)
    reveal = REVEALERS.get(name)
    if reveal is None:
        return []
    try:
        return reveal(obj)
    except ForgeError:
        raise
    except (TypeError, ValueError, LookupError, AttributeError, RecursionError) as exc:
        raise ToolCallFormatError(
            f"the {name} response is not in a shape forge-tools reads "
            f"({type(exc).__name__}: {str(exc)[:200]}); pass the response as the SDK returns it"
        ) from exc


def _decoded(message_or_response: Any) -> Any:
    """The response itself, or the JSON value of response text."""
    if not isinstance(message_or_response, str | bytes | bytearray):
        return message_or_response
    try:
        return json.loads(message_or_response)
    except (ValueError, RecursionError) as exc:
        raise ToolCallFormatError(f"the response text is not JSON: {exc}") from exc
