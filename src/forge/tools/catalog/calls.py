"""Trying a tool from the catalog: validate arguments only, or run them through the executor.

Validation reports every bad field with its path as segments and as a field name
(`forge.tools.catalog.paths`), plus the message the executor would send the model. A run
goes through the server's `CallRunner` (its executor: permissions, timeouts, hooks and
metrics apply) and is reported whatever happens: a failed call is a result, never an error.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from forge.core.errors import FieldError, ToolDefinitionError, ToolValidationError
from forge.core.logging import get_logger
from forge.tools.catalog.paths import format_field, split_path
from forge.tools.execution import failures
from forge.tools.values.jsonable import to_jsonable
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["Runner", "field_entry", "model_message", "run_outcome", "validation_outcome"]

logger = get_logger("tools.catalog")

Runner = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]
"""``await runner(name, arguments)`` runs one call through the server's executor."""


def validation_outcome(tool: Tool, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``{"ok": true}``, or ``{"ok": false, "errors": [...], "model_message"}``."""
    try:
        tool.validate(dict(arguments))
    except ToolValidationError as exc:
        result = failures.invalid_arguments(tool.name, exc, tool.parameters)
        errors = [field_entry(e, arguments) for e in exc.errors]
    except ToolDefinitionError as exc:
        result = failures.misconfigured(tool.name, exc)
        errors = [{"path": [], "field": "", "message": exc.message}]
    else:
        return {"ok": True}
    return {"ok": False, "errors": errors, "model_message": model_message(result)}


def field_entry(error: FieldError, arguments: Any) -> dict[str, Any]:
    """One bad field: ``{"path": [...], "field": "a[0].b", "message", "kind"}``."""
    path = split_path(error.path, arguments)
    return {"path": path, "field": format_field(path), "message": error.message,
            "kind": error.kind}  # fmt: skip


async def run_outcome(runner: Runner, tool: Tool, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Run one call through ``runner``; report its output, error kind and model message."""
    started = time.perf_counter()
    try:
        result = await runner(tool.name, dict(arguments))
    except Exception as exc:  # a runner must not raise; if one does, it is still a result
        logger.exception("the catalog's run of tool %r raised", tool.name)
        result = ToolResult.fail(
            f"Tool {tool.name!r} could not be run: {type(exc).__name__}: {exc}",
            error_kind=ErrorKind.TOOL_ERROR,
        )
    duration_ms = (time.perf_counter() - started) * 1000
    return {
        "ok": result.success,
        "result": _output(tool, result),
        "error_kind": str(result.error_kind) if result.error_kind is not None else None,
        "model_message": model_message(result.for_call(result.call_id, tool.name)),
        "duration_ms": duration_ms,
    }


def _output(tool: Tool, result: ToolResult) -> Any:
    if not result.success or result.output is None:
        return None
    try:
        return tool.dump_output(result.output)
    except Exception:  # an output its own schema's serializer rejects is still shown
        return to_jsonable(result.output)


def model_message(result: ToolResult) -> str:
    """The text the model gets for ``result`` (an OpenAI Chat tool message's content)."""
    from forge.tools.replies import format_results

    tagged = result if result.call_id else result.for_call("catalog", result.tool_name)
    content = format_results([tagged], "openai")[0]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(
        part.get("text", "") if isinstance(part, Mapping) else str(part) for part in content
    )
