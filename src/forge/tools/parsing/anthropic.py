"""Anthropic Messages tool calls (``tool_use`` content blocks).

Accepted: a ``Message``, a list of content blocks, or one block; as dicts or SDK objects.
``input`` is an object. Blocks of other types (text, thinking, and the server-run
``server_tool_use`` / ``mcp_tool_use``, which the API executes itself) are skipped.

`revealed` reads the other side of the API's own tool search: the names in the
``tool_reference`` blocks of each ``tool_search_tool_result``, the deferred tools the
search loaded for the model; and, for a search the client runs (a custom tool search),
those of each ``tool_result`` whose content holds ``tool_reference`` blocks.
"""

from __future__ import annotations

from typing import Any

from forge.core.text import shown
from forge.tools.parsing._common import ToolCallFormatError, field, generated_id, given_id, items
from forge.tools.values.calls import ToolCall

__all__ = ["parse", "revealed"]


def _blocks(obj: Any) -> list[Any]:
    if isinstance(obj, list | tuple):
        return list(obj)
    content = field(obj, "content")
    return items(content) if isinstance(content, list | tuple) else [obj]


def parse(obj: Any) -> list[ToolCall]:
    """Return the tool calls in a message or a list of content blocks."""
    calls = []
    for index, block in enumerate(_blocks(obj)):
        if field(block, "type") != "tool_use":
            continue
        name = field(block, "name")
        if not isinstance(name, str) or not name:
            raise ToolCallFormatError(f"tool_use block has no name: {shown(block, 200)}")
        arguments = field(block, "input")
        call_id = given_id(field(block, "id"), "tool_use block") or generated_id(
            index, name, arguments
        )
        calls.append(ToolCall.from_raw(call_id, name, arguments))
    return calls


def revealed(obj: Any) -> list[str]:
    """The tool names the API's tool search revealed in a message or content blocks, in order.

    A search that failed (its result is a ``tool_search_tool_result_error``) reveals none.
    """
    names: list[str] = []
    for block in _blocks(obj):
        if field(block, "type") == "tool_result":
            _referenced(field(block, "content"), names)
            continue
        if field(block, "type") != "tool_search_tool_result":
            continue
        result = field(block, "content")
        if field(result, "type") != "tool_search_tool_search_result":
            continue
        references = field(result, "tool_references")
        if not isinstance(references, list | tuple):
            raise ToolCallFormatError(
                f"a tool_search_tool_result's tool_references is not a list: {shown(block, 200)}"
            )
        _referenced(references, names)
    return names


def _referenced(content: Any, names: list[str]) -> None:
    """Add the names of the ``tool_reference`` blocks of a ``tool_result``'s content."""
    if not isinstance(content, list | tuple):
        return  # text content: a result that loads nothing
    for reference in content:
        name = field(reference, "tool_name")
        if field(reference, "type") == "tool_reference" and isinstance(name, str) and name:
            names.append(name)
