"""Native deferral with the search run here: the provider's client tool search, our ranking.

Both providers with native deferred loading let the client answer the search:

- **OpenAI Responses**: ``{"type": "tool_search", "execution": "client", "description",
  "parameters"}``; the model emits a ``tool_search_call`` item (``execution: "client"``,
  ``call_id``, ``arguments``), answered by a ``tool_search_output`` input item whose
  ``tools`` are the definitions it loads.
- **Anthropic**: a regular client tool (``search_tools``) next to the ``defer_loading``
  tools; its ``tool_result`` holds ``tool_reference`` blocks naming the tools it loads.

Here a search is a `ToolCall` of the search tool like any other; these helpers add the
Responses search items as such calls and turn the search results into the provider's form.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from forge.tools.parsing import field
from forge.tools.turns import TurnBuilder, TurnStream
from forge.tools.values.calls import ToolCall

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool
    from forge.tools.turns import AssistantTurn, Delta, RunAll, RunOne, Turn
    from forge.tools.values.results import ToolResult

__all__ = ["CLIENT", "NativeTurnStream", "client_search_definition", "with_client_searches",
           "with_search_replies"]  # fmt: skip

#: The ``tool_search`` variant that runs the search on the client.
CLIENT = "client"


def client_search_definition(search_tool: Tool, provider: str, *, strict: bool = False) -> Any:
    """The client search tool's definition for ``provider`` (Anthropic or OpenAI Responses)."""
    from forge.tools.formats import convert_all

    (definition,) = convert_all([search_tool], provider, strict=strict).definitions
    if provider != "openai-responses":
        return definition
    return {"type": "tool_search", "execution": CLIENT, "description": definition["description"],
            "parameters": definition["parameters"]}  # fmt: skip


def _is_client_search(item: Any) -> bool:
    return bool(field(item, "type") == "tool_search_call" and field(item, "execution") == CLIENT)


def with_client_searches(assistant: AssistantTurn, search_name: str) -> AssistantTurn:
    """``assistant`` with each client ``tool_search_call`` item added as a call of ``search_name``.

    Only Responses has such items (an Anthropic search is already a ``tool_use``). A call
    keeps the item's ``call_id``; arguments that are not an object carry an
    ``argument_error`` (the search answers it with a failed result).
    """
    if assistant.provider != "openai-responses":
        return assistant
    searches = []
    for index, item in enumerate(assistant.items):
        if not _is_client_search(item):
            continue
        call_id = field(item, "call_id") or field(item, "id") or f"tool_search_{index}"
        searches.append(ToolCall.from_raw(str(call_id), search_name, field(item, "arguments")))
    if not searches:
        return assistant
    return dataclasses.replace(assistant, calls=(*searches, *assistant.calls))


def with_search_replies(turn: Turn, search_name: str, definitions: Mapping[str, Any]) -> Turn:
    """``turn`` with the replies to its searches in the provider's client-search form.

    ``definitions`` are the request's deferred definitions by name: what a Responses
    ``tool_search_output`` loads, and the only tools a ``tool_reference`` may name. A
    failed search keeps its error text: as an ``is_error`` ``tool_result`` (Anthropic), or
    an empty ``tool_search_output`` followed by a developer message saying what was wrong
    (Responses).
    """
    searched = {r.call_id: r for r in turn.results if r.tool_name == search_name}
    if not searched:
        return turn
    loaded: list[str] = []
    if turn.provider == "anthropic":
        replies = [_anthropic_reply(reply, searched, definitions, loaded)
                   for reply in turn.replies]  # fmt: skip
    else:
        replies = []
        for reply in turn.replies:
            result = searched.get(reply.get("call_id")) if isinstance(reply, Mapping) else None
            if result is None:
                replies.append(reply)
            else:
                replies += _responses_reply(result, definitions, loaded)
    revealed = tuple(dict.fromkeys([*turn.revealed, *loaded]))
    return dataclasses.replace(turn, replies=tuple(replies), revealed=revealed)


def _found(result: ToolResult) -> list[str] | None:
    """The tool names a successful search found (``None`` for a failed one)."""
    if not result.success or not isinstance(result.output, Mapping):
        return None
    return [str(t["name"]) for t in result.output.get("tools") or () if isinstance(t, Mapping)]


def _anthropic_reply(
    reply: dict[str, Any],
    searched: Mapping[str | None, ToolResult],
    definitions: Mapping[str, Any],
    loaded: list[str],
) -> dict[str, Any]:
    content = reply.get("content")
    if not isinstance(content, list):
        return reply
    blocks = []
    for block in content:
        result = searched.get(block.get("tool_use_id")) if isinstance(block, Mapping) else None
        # a reference must name a deferred tool of the request
        names = [n for n in _found(result) or () if n in definitions] if result else None
        if names:  # a search that found nothing keeps its text: a tool_result needs content
            loaded += names
            blocks.append({**block, "content": [{"type": "tool_reference", "tool_name": n}
                                                for n in names]})  # fmt: skip
        else:
            blocks.append(block)
    return {**reply, "content": blocks}


def _responses_reply(
    result: ToolResult, definitions: Mapping[str, Any], loaded: list[str]
) -> list[dict[str, Any]]:
    names = [n for n in _found(result) or () if n in definitions]
    loaded += names
    output = {"type": "tool_search_output", "call_id": result.call_id, "execution": CLIENT,
              "status": "completed", "tools": [dict(definitions[n]) for n in names]}  # fmt: skip
    if result.success:
        return [output]
    note = f"The tool search failed: {result.error}"
    return [output, {"role": "developer", "content": note}]


class _SearchesBuilder:
    """A `TurnBuilder` whose finished turn has its client searches as calls."""

    def __init__(self, provider: str, search_name: str) -> None:
        self._builder = TurnBuilder(provider)
        self._name = search_name

    def add(self, event: Any) -> Delta:
        return self._builder.add(event)

    def finish(self) -> AssistantTurn:
        return with_client_searches(self._builder.finish(), self._name)


class NativeTurnStream(TurnStream):
    """A `TurnStream` whose turn answers the client tool searches in the provider's form."""

    __slots__ = ("_definitions", "_name")

    def __init__(
        self, stream: Any, provider: str, search_name: str, *, run_all: RunAll, run_one: RunOne,
        definitions: Callable[[], Mapping[str, Any]],
    ) -> None:  # fmt: skip
        super().__init__(stream, _SearchesBuilder(provider, search_name), run_all=run_all,
                         run_one=run_one)  # fmt: skip
        self._name = search_name
        self._definitions = definitions

    @property
    def turn(self) -> Turn:
        """The whole turn, its searches answered (see `TurnStream.turn`)."""
        return with_search_replies(super().turn, self._name, self._definitions())
