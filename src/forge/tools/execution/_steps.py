"""The executor's small steps: validation, output checks, call parsing, hook and log helpers."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.core.logging import get_logger
from forge.tools.execution import failures
from forge.tools.execution._outcomes import _checked, finish, invalid
from forge.tools.schema import TOO_DEEP
from forge.tools.values.calls import ToolCall
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    from forge.core.redaction import Redactor
    from forge.tools.execution.hooks import ToolInvocation
    from forge.tools.model.tool import Tool
    from forge.tools.schema import Compiled

logger = get_logger("tools.executor")
TRACE, FAILED = logging.DEBUG, logging.INFO  # per-call lines; failures one level up
# The logger's cached answers to `Logger.isEnabledFor`, read by the fast paths without
# that Python call: the logging module empties this dict in place whenever a level
# changes, and an answer of False there is final. A missing answer (or True) is settled
# by `_traced`, which asks `isEnabledFor` itself.
_known_answers: Callable[[int], bool | None] = getattr(logger, "_cache", {}).get


def _check_limit(what: str, value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{what} must be a positive integer or None, got {value!r}")


def _rejected(tool: Tool, exc: Exception) -> ToolResult:
    """Validation (or compilation) failed: the model's arguments, or the tool's definition."""
    if isinstance(exc, ToolValidationError):
        return invalid(tool.name, exc, tool)
    if isinstance(exc, ToolDefinitionError):
        return failures.misconfigured(tool.name, exc)
    # A validator that gives up (RecursionError on absurdly deep input, ...) still rejects.
    why = TOO_DEEP if isinstance(exc, RecursionError) else f"rejected ({type(exc).__name__})"
    return invalid(tool.name, _validation_error(tool.name, why), tool)


def _validation_error(name: str, message: str) -> ToolValidationError:
    from forge.core.errors import FieldError

    return ToolValidationError(name, [FieldError(path="", kind="type", message=message)])


def _validate(compiled: Compiled, args: Any) -> dict[str, Any]:
    """The tool's compiled validation, calling pydantic-core directly when it can."""
    validate_python = compiled.validate_python
    if validate_python is None or type(args) is not dict:
        return compiled.validate(args)
    admits, complete = compiled.admits, compiled.complete
    if admits is not None and complete is not None and admits(args):
        return complete(args)  # what the validator returns, without running it
    try:
        kwargs: dict[str, Any] = validate_python(args)[1]
    except Exception:
        return compiled.validate(args)  # raises ToolValidationError naming every field
    return kwargs


def _from_outcome(tool: Tool, outcome: tuple[Any, ...]) -> ToolResult:
    """The result of a handler run elsewhere, from its picklable outcome: ``("ok", value)``,
    ``("error", type name, message, traceback)`` or ``("crash", detail)``."""
    if outcome[0] == "ok":
        return _checked(finish(outcome[1], tool.name))
    if outcome[0] == "error":
        _, type_name, message, trace = outcome
        return failures.exception_failure(tool.name, type_name, message, trace, tool.error_details)
    return failures.crashed(tool.name, outcome[1])


def _coerce_call(item: Any) -> ToolCall | ToolResult:
    try:
        return ToolCall.coerce(item)
    except (TypeError, ValueError, RecursionError) as exc:
        name = item.get("name") if isinstance(item, Mapping) else None
        name = name if isinstance(name, str) else None
        call_id = item.get("id") if isinstance(item, Mapping) else None
        if not isinstance(call_id, str) or not call_id:  # every result answers a string id
            call_id = ToolCall.create(name or "").id
        return ToolResult.fail(
            failures.limit(f"This tool call is malformed: {exc}. Send a call with a tool name "
                           "and a JSON object of arguments."),
            error_kind=ErrorKind.INVALID_JSON, retryable=True,
        ).for_call(call_id, name)  # fmt: skip


def _request(call: ToolInvocation) -> Any:
    from forge.tools.execution.permissions import PermissionRequest

    return PermissionRequest(
        tool=call.tool,  # type: ignore[arg-type]
        arguments=call.kwargs or {},
        context=call.context,
        call_id=call.call_id,
    )


def _hook_failed(hook: Any, call: ToolInvocation) -> ToolResult:
    logger.exception("before_call hook %r failed for tool %r", hook, call.name)
    return _internal_failure(call)


def _hook_result(hook: Any, call: ToolInvocation, answer: Any) -> ToolResult:
    if isinstance(answer, ToolResult):
        return answer
    logger.error("before_call hook %r returned %r instead of a ToolResult or None", hook, answer)
    return _internal_failure(call)


def _internal_failure(call: ToolInvocation) -> ToolResult:
    return ToolResult.fail(
        f"Tool {call.name!r} could not run: an internal check failed. Do not retry it.",
        error_kind=ErrorKind.TOOL_ERROR,
        retryable=False,
    )


def _log_start(name: str, call_id: str | None, args: Any) -> None:
    logger.debug(
        "Executing tool: %.100s%s with %.300r",
        name,
        f" (call {call_id:.100})" if call_id else "",
        args,
    )


def _traced(name: str, call_id: str | None, args: Any) -> float | None:
    """Log a call's start when TRACE is on and return its start time (``None`` when off)."""
    if not logger.isEnabledFor(TRACE):
        return None
    _log_start(name, call_id, args)
    return time.perf_counter()


def _redacted(result: ToolResult, redact: Redactor | None) -> ToolResult:
    """A failed result with the secrets taken out of its message (`forge.core.redaction`)."""
    error = result.error
    if redact is None or not error:
        return result
    clean = redact(error)
    return result if clean == error else result.replace(error=clean)


def _log_outcome(name: str, result: ToolResult, started: float | None) -> None:
    took = f" in {(time.perf_counter() - started) * 1e3:.1f} ms" if started is not None else ""
    if result.success:
        logger.debug("Tool %.100s succeeded%s", name, took)
    elif logger.isEnabledFor(FAILED):
        logger.info(
            "Tool %.100s failed (%s)%s: %.500s", name, result.error_kind, took, result.error
        )
