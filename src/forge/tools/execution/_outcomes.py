"""What a handler's run comes to: output checks and failures (internal).

Each rule is written once here: how a handler's exception becomes a result
(`handler_failed`), whether the current task is being cancelled
(`being_cancelled`) and which deadline a call has (`seconds_for`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from forge.core.errors import ToolValidationError
from forge.tools.execution import failures
from forge.tools.values.results import ToolResult

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool
    from forge.tools.schema import Compiled
    from forge.tools.values.context import ExecutionContext


_SCALARS = frozenset({str, int, float, bool, type(None)})
_OTHER_SCALARS = frozenset({float, bool, type(None)})  # JSON scalars `plain` always passes
JSON_SCALARS = _SCALARS
_HUGE_DIGITS = 4300  # Python's default int-str limit: a longer integer cannot be written as JSON
_HUGE = 10**_HUGE_DIGITS
_MINUS_HUGE = -_HUGE


def _python_json(text: bytes) -> None:
    import json

    json.loads(text)


def plain(out: Any) -> bool:
    """Whether a JSON scalar needs no further check (any but long ints, non-ASCII text)."""
    cls = out.__class__
    if cls is str:
        return out.isascii()  # type: ignore[no-any-return]
    return cls is not int or _MINUS_HUGE < out < _HUGE


def _unsendable(out: Any) -> str | None:
    """Why a JSON scalar cannot be sent to a model, or ``None`` when it can."""
    if isinstance(out, str):
        try:
            out.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"str: text with a lone surrogate at index {exc.start}, which UTF-8 cannot carry"
    elif isinstance(out, int) and not _MINUS_HUGE < out < _HUGE:
        return "int: an integer of more than 4,300 digits, which JSON encoders refuse"
    return None


_to_jsonable: Any = None
_as_content: Any = None


def _checked(result: ToolResult) -> ToolResult:
    """Keep results a model can receive: JSON-able output, messages within the size limit."""
    if not result.success:
        error = result.error
        if error is not None and len(error) > failures.MAX_MESSAGE_CHARS:
            return result.replace(error=failures.limit(error))
        return result
    out = result.output
    if type(out) in JSON_SCALARS:
        why = None if plain(out) else _unsendable(out)
        return result if why is None else failures.bad_output(result.tool_name or "?", why)
    if isinstance(out, Iterator | AsyncIterator):
        return failures.bad_output(
            result.tool_name or "?",
            f"{type(out).__name__}: an iterator can be read only once; return a list instead",
        )
    content = _content(out, result.tool_name)
    if content is not None:
        return content if isinstance(content, ToolResult) else result.replace(output=content)
    global _to_jsonable  # noqa: PLW0603 - pydantic-core is imported on first use
    if _to_jsonable is None:
        from pydantic_core import to_json

        _to_jsonable = to_json
    try:
        text = _to_jsonable(out)  # JSON text: lone surrogates and cycles fail here
        if len(text) > _HUGE_DIGITS:  # integers too long for Python's own JSON fail here
            _python_json(text)
    except Exception as exc:
        detail = f"{type(out).__name__}: {failures.message_of(exc).splitlines()[0]}"
        return failures.bad_output(result.tool_name or "?", failures.limit(detail, 200))
    return result


def _content(out: Any, tool_name: str | None) -> Any:
    """``out`` as content parts (`forge.tools.values.content`), a failure, or ``None``."""
    global _as_content  # noqa: PLW0603 - imported on first use, like pydantic-core
    if _as_content is None:
        from forge.tools.values.content import as_content

        _as_content = as_content
    try:
        return _as_content(out)
    except (OSError, ValueError, TypeError) as exc:
        return failures.bad_content(tool_name or "?", type(out).__name__, exc)


def invalid(tool_name: str, exc: ToolValidationError, tool: Tool | None = None) -> ToolResult:
    """Turn a validation error into a failed result naming every bad field and its schema."""
    parameters = None
    if tool is not None and tool._compiled is not None:
        parameters = tool._compiled.parameters
    return failures.invalid_arguments(tool_name, exc, parameters)


# -- calls with arguments that are already validated (used by the executor) -----------------


def finish(out: Any, name: str) -> ToolResult:
    """Wrap a handler's return value in a result tagged with the tool's name."""
    if isinstance(out, ToolResult):
        return out if out.tool_name else out.for_call(out.call_id, name)
    return ToolResult.succeeded(out, name)


def call_sync(tool: Tool, compiled: Compiled, kwargs: dict[str, Any], context: Any) -> ToolResult:
    """Call a sync handler with validated ``kwargs``; a handler exception becomes a failure."""
    fn = compiled.fn
    try:
        out = fn(**kwargs) if fn is not None else compiled.invoke(kwargs, context)
    except BaseException as exc:
        return handler_failed(tool, exc)
    return finish(out, tool.name)


def handler_failed(tool: Tool, exc: BaseException) -> ToolResult:
    """The result of a handler that raised ``exc`` (the one place that decides it).

    Any ``Exception`` is the handler's fault: a failed result (no traceback unless the
    tool opts in). `asyncio.CancelledError` it raised by itself gives a ``cancelled``
    result; ``SystemExit``, ``GeneratorExit`` and other ``BaseException`` subclasses are
    the handler's fault too. A ``KeyboardInterrupt``, and a cancellation of the
    caller's task, propagate.
    """
    if isinstance(exc, Exception):
        return failures.tool_error(tool, exc)
    if isinstance(exc, KeyboardInterrupt):
        raise exc
    import asyncio

    if isinstance(exc, asyncio.CancelledError):
        if being_cancelled():
            raise exc
        return failures.cancelled(tool.name)
    return failures.tool_error(tool, exc)


def being_cancelled() -> bool:
    """Whether the current task has been asked to cancel (not just met a stray CancelledError)."""
    import asyncio

    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop in this thread
        return False
    return task is not None and task.cancelling() > 0


def seconds_for(
    tool: Tool | None, ctx: ExecutionContext | None, timeout: float | None
) -> float | None:
    """A call's deadline in seconds: its own, else the tool's, else the context's."""
    if timeout:
        return timeout
    if tool is not None and tool.timeout:
        return tool.timeout
    return ctx.timeout if ctx is not None else None


def start_async(compiled: Compiled, kwargs: dict[str, Any], context: Any) -> Any:
    """Start an async handler with validated ``kwargs``; return its awaitable (not awaited)."""
    fn = compiled.fn
    return fn(**kwargs) if fn is not None else compiled.invoke(kwargs, context)
