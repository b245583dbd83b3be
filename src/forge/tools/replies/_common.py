"""What every result formatter needs: the text of a result and the ids it answers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from forge.core.text import article
from forge.tools.parsing import ToolCallFormatError
from forge.tools.values.results import ToolResult

__all__ = ["call_id", "error_text", "output_json", "results_list", "tool_name"]


def results_list(results: ToolResult | Iterable[ToolResult]) -> list[ToolResult]:
    """Accept one result or many; reject anything that is not a `ToolResult`."""
    if isinstance(results, ToolResult):
        return [results]
    out = list(results)
    for index, result in enumerate(out):
        if not isinstance(result, ToolResult):
            raise ToolCallFormatError(
                f"result {index} is {article(type(result).__name__)}, not a ToolResult"
            )
    return out


def output_json(result: ToolResult) -> Any:
    """A successful result's output as JSON data (see `forge.tools.values.jsonable`)."""
    from forge.tools.values.jsonable import to_jsonable

    return to_jsonable(result.output)


def error_text(result: ToolResult, *, prefix: bool) -> str:
    """A failed result's message; ``prefix`` adds ``Error: `` for formats without a flag."""
    message = result.error or f"The tool failed ({result.error_kind or 'tool_error'})."
    return f"Error: {message}" if prefix else message


def call_id(result: ToolResult, provider: str) -> str:
    """The id of the call a result answers, which ``provider`` requires."""
    if not result.call_id:
        raise ToolCallFormatError(
            f"a result sent to {provider} needs the id of the call it answers "
            f"(tool {result.tool_name!r} has call_id=None): run calls with "
            "registry.execute_all(), or tag a result with result.for_call(call.id, call.name)"
        )
    return result.call_id


def tool_name(result: ToolResult, provider: str) -> str:
    """The name of the tool a result comes from, which ``provider`` requires."""
    if not result.tool_name:
        raise ToolCallFormatError(
            f"a result sent to {provider} needs the tool's name (call {result.call_id!r} has "
            "tool_name=None): run calls with registry.execute_all(), or tag a result with "
            "result.for_call(call.id, call.name)"
        )
    return result.tool_name
