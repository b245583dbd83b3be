"""Formatting tool results back into each provider's messages.

`format_results` turns `ToolResult`s (tagged with ``call_id`` and ``tool_name``, as
`ToolRegistry.execute_all` returns them) into the messages a provider expects next, with
its error flag where it has one:

================  =================================================================
provider          what `format_results` returns
================  =================================================================
openai            ``{"role": "tool", "tool_call_id", "content"}`` per result
openai-responses  ``{"type": "function_call_output", "call_id", "output"}`` per result
anthropic         one user message of ``tool_result`` blocks with ``is_error``
gemini            one user content of ``functionResponse`` parts (``output``/``error``)
ollama            ``{"role": "tool", "tool_name", "content"}`` per result
bedrock           one user message of ``toolResult`` blocks with ``status``
mistral           ``{"role": "tool", "tool_call_id", "name", "content"}`` per result
mcp               ``CallToolResult`` per result: ``content``, ``isError``,
                  ``structuredContent``
================  =================================================================

Outputs are sent as text where the provider takes text (a ``str`` as is, anything else as
compact JSON) and as JSON where it takes JSON; values JSON cannot hold (bytes, dataclasses,
pydantic models, sets, datetimes, ...) are converted by one rule, documented in
`forge.tools.values.jsonable`. Providers without an error flag get the message prefixed with
``Error: ``.

A result may also hold content parts (images, audio, files, resource links, text; see
`forge.tools.values.content`): each provider's module says how it sends each kind, and
what it does with a kind its tool results cannot carry. What goes to the model is cut to
the result's `OutputLimit` (its tool's or executor's, else ``limit``, else
`DEFAULT_OUTPUT_LIMIT`), with a note the model can act on; the result keeps it all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from forge.tools.parsing import ToolCallFormatError, resolve_provider
from forge.tools.replies._common import results_list
from forge.tools.replies._content import Reply, data_url, describe, reply
from forge.tools.replies.anthropic import format_anthropic
from forge.tools.replies.bedrock import format_bedrock
from forge.tools.replies.gemini import format_gemini
from forge.tools.replies.mcp import ToolLookup, format_mcp
from forge.tools.replies.openai import format_mistral, format_ollama, format_openai
from forge.tools.replies.responses import format_responses
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ErrorKind, ToolResult

__all__ = [
    "FORMATTERS",
    "Reply",
    "data_url",
    "describe",
    "format_results",
    "reply",
]

Formatter = Callable[[list[ToolResult], OutputLimit | None], list[dict[str, Any]]]

FORMATTERS: dict[str, Formatter] = {
    "openai": format_openai,
    "openai-responses": format_responses,
    "anthropic": format_anthropic,
    "gemini": format_gemini,
    "ollama": format_ollama,
    "bedrock": format_bedrock,
    "mistral": format_mistral,
    "mcp": format_mcp,
}


def format_results(
    results: ToolResult | Iterable[ToolResult],
    provider: str = "openai",
    *,
    limit: OutputLimit | int | None = None,
    tools: ToolLookup | None = None,
) -> list[dict[str, Any]]:
    """Return the provider's tool-result messages for ``results``, in order.

    Args:
        results: The results to send back (one, or several), each tagged with the
            ``call_id`` and ``tool_name`` of the call it answers.
        provider: ``openai`` (the default), ``openai-responses``, ``anthropic``, ``gemini``,
            ``ollama``, ``bedrock``, ``mistral`` or ``mcp``.
        limit: The `OutputLimit` (or ``max_chars``) of results whose tool and executor
            set none (default: `DEFAULT_OUTPUT_LIMIT`).
        tools: The tools the results come from (a registry), for MCP: an output of a tool
            with an output schema then goes as the ``structuredContent`` that schema
            describes, as MCP clients require (see `forge.tools.replies.mcp`).

    Returns:
        Messages (or input items, or ``CallToolResult`` dicts for MCP) to append to the
        conversation, as plain JSON-ready dicts (Bedrock's image and document blocks hold
        raw ``bytes``, as boto3 takes them).

    Raises:
        UnsupportedProviderError: ``provider`` is not supported.
        ToolCallFormatError: A result lacks the call id or tool name the provider needs.

    >>> format_results([ToolResult.fail("no such city").for_call("toolu_1", "weather")],
    ...                "anthropic")
    [{'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', \
'content': 'no such city', 'is_error': True}]}]
    """
    name = resolve_provider(provider)
    chosen = OutputLimit.coerce(limit)
    items = results_list(results)
    formatter: Formatter = FORMATTERS[name]
    if name == "mcp" and tools is not None:
        formatter = functools.partial(_format_mcp, tools)
    try:
        return formatter(items, chosen)
    except ToolCallFormatError:
        raise
    except (ValueError, TypeError, RecursionError) as exc:  # an output JSON cannot carry
        fixed = [_sendable(formatter, result, chosen) for result in items]
        del exc
        return formatter(fixed, chosen)


def _format_mcp(
    tools: ToolLookup, results: list[ToolResult], limit: OutputLimit | None
) -> list[dict[str, Any]]:
    return format_mcp(results, limit, tools)


def _sendable(
    formatter: Formatter,
    result: ToolResult,
    chosen: OutputLimit | None,
) -> ToolResult:
    """``result``, or a failed result in its place when its output cannot be formatted."""
    try:
        formatter([result], chosen)
    except ToolCallFormatError:
        raise
    except (ValueError, TypeError, RecursionError) as own:
        why = f"{type(own).__name__}: {str(own).splitlines()[0][:200] if str(own) else ''}"
        return ToolResult.fail(
            f"Tool {result.tool_name!r} returned a value that cannot be sent as JSON ({why}). "
            "This is a bug in the tool; do not retry it.",
            error_kind=ErrorKind.TOOL_ERROR,
            retryable=False,
        ).for_call(result.call_id, result.tool_name)
    return result
