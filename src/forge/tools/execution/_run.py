"""Running one validated call: the shared core of every entry point (EX-1..EX-3)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from forge.core.errors import ToolValidationError
from forge.tools.execution import failures
from forge.tools.values.results import ToolResult, _new, _ok, _set_dict

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool
    from forge.tools.schema._sources import Compiled
    from forge.tools.values.context import ExecutionContext


def attach_runners(tool: Tool, compiled: Compiled) -> Compiled:
    """Build the runner of the engine's sync fast path (a sync handler called inline).

    The runner validates (raising `ToolValidationError`), calls the handler and
    wraps its value in a `ToolResult`; an exception from the handler becomes a
    failed result. Async handlers have no runner: the engine awaits them.
    """
    if tool.source.is_async:
        return compiled
    fn = compiled.fn
    if fn is not None and compiled.validate_python is not None:
        compiled.run_sync = _inline_runner(tool, fn, compiled.validate_python, compiled.validate)
        return compiled
    validate = compiled.validate

    def run_sync(args: Any, context: ExecutionContext | None) -> ToolResult:
        return call_sync(tool, compiled, validate(args), context)

    compiled.run_sync = run_sync
    return compiled


def sync_runner(tool: Tool, compiled: Compiled) -> Callable[[Any, Any], ToolResult]:
    """The runner of a sync tool's fast path (`attach_runners`), built on first use."""
    run = compiled.run_sync
    if run is None:
        run = attach_runners(tool, compiled).run_sync
        if run is None:
            raise RuntimeError(f"tool {tool.name!r} is async: it has no sync runner")
    return run


def _inline_runner(
    tool: Tool,
    fn: Callable[..., Any],
    validate_python: Callable[[Any], Any],
    validate: Callable[[Any], dict[str, Any]],
) -> Callable[[Any, ExecutionContext | None], ToolResult]:
    """The hottest path: a sync function validated by pydantic-core, all inlined."""
    from pydantic_core import ValidationError

    name, scalars = tool.name, _SCALARS

    def run_sync(args: Any, context: ExecutionContext | None) -> ToolResult:
        try:
            kwargs = validate_python(args)[1] if type(args) is dict else validate(args)
        except ValidationError:
            kwargs = validate(args)  # raises ToolValidationError naming every field
        try:
            out = fn(**kwargs)
        except Exception as exc:
            return failure(tool, exc)
        except BaseException as exc:
            return _cancelled(tool, exc)
        result = _new(ToolResult)
        if out.__class__ in scalars:  # the common case, checked first: nothing else to do
            _set_dict(result, {"success": True, "output": out, "metadata": {}, "tool_name": name})
            return result
        if isinstance(out, ToolResult):
            return out if out.tool_name else out.for_call(out.call_id, name)
        _set_dict(result, {"success": True, "output": out, "metadata": {}, "tool_name": name})
        return _checked(result)  # an output a model cannot receive becomes a failure

    return run_sync


_SCALARS = frozenset({str, int, float, bool, type(None)})
JSON_SCALARS = _SCALARS
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
        return result
    content = _content(out, result.tool_name)
    if content is not None:
        return content if isinstance(content, ToolResult) else result.replace(output=content)
    global _to_jsonable  # noqa: PLW0603 - pydantic-core is imported on first use
    if _to_jsonable is None:
        from pydantic_core import to_jsonable_python

        _to_jsonable = to_jsonable_python
    try:
        _to_jsonable(out)
    except Exception as exc:
        detail = f"{type(out).__name__}: {str(exc).splitlines()[0] if str(exc) else exc!r}"
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


def failure(tool: Tool, exc: Exception) -> ToolResult:
    """Turn a handler exception into a failed result (TC-3a: no traceback unless opted in)."""
    return failures.tool_error(tool, exc)


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
    return _ok(out, name)


def call_sync(tool: Tool, compiled: Compiled, kwargs: dict[str, Any], context: Any) -> ToolResult:
    """Call a sync handler with validated ``kwargs``; a handler exception becomes a failure."""
    fn = compiled.fn
    try:
        out = fn(**kwargs) if fn is not None else compiled.invoke(kwargs, context)
    except Exception as exc:
        return failure(tool, exc)
    except BaseException as exc:
        return _cancelled(tool, exc)
    return finish(out, tool.name)


def _cancelled(tool: Tool, exc: BaseException) -> ToolResult:
    """A handler that raised `asyncio.CancelledError` by itself: a ``cancelled`` result.

    Any other ``BaseException``, and a cancellation of the caller's task, propagates.
    """
    import asyncio

    if not isinstance(exc, asyncio.CancelledError) or _being_cancelled():
        raise exc
    return failures.cancelled(tool.name)


def _being_cancelled() -> bool:
    import asyncio

    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop in this thread
        return False
    return task is not None and task.cancelling() > 0


def start_async(compiled: Compiled, kwargs: dict[str, Any], context: Any) -> Any:
    """Start an async handler with validated ``kwargs``; return its awaitable (not awaited)."""
    fn = compiled.fn
    return fn(**kwargs) if fn is not None else compiled.invoke(kwargs, context)


def _run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    import asyncio
    import concurrent.futures
    import contextvars

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    run = contextvars.copy_context().run  # the caller's context (a current span) goes along
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="forge-sync") as pool:
        return pool.submit(run, asyncio.run, coro).result()
