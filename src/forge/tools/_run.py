"""Running one validated call: the shared core of every entry point (EX-1..EX-3)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.tools.results import ToolResult, _new, _ok, _set_dict

if TYPE_CHECKING:
    from forge.tools._sources import Compiled
    from forge.tools.context import ExecutionContext
    from forge.tools.tool import Tool


def attach_runners(tool: Tool, compiled: Compiled) -> Compiled:
    """Build the per-tool sync and async runners, specialised for the handler kind.

    Runners validate (raising `ToolValidationError`), call the handler and wrap
    its value in a `ToolResult`; an exception from the handler becomes a failed
    result. Sync handlers run inline from sync code; from async code they run
    on a worker thread unless the tool is ``cheap``. Coroutine handlers run on
    a private event loop from sync code.
    """
    validate, invoke, fn, name = compiled.validate, compiled.invoke, compiled.fn, tool.name
    is_async, cheap = tool.source.is_async, tool.cheap

    def finish(out: Any) -> ToolResult:
        if isinstance(out, ToolResult):
            return out if out.tool_name else out.for_call(out.call_id, name)
        return _ok(out, name)

    if fn is not None and not is_async and compiled.validate_python is not None:
        run_sync = _inline_runner(tool, fn, compiled.validate_python, validate)
    elif fn is not None and not is_async:

        def run_sync(args: Any, context: ExecutionContext | None) -> ToolResult:
            kwargs = validate(args)
            try:
                out = fn(**kwargs)
            except Exception as exc:
                return failure(tool, exc)
            if isinstance(out, ToolResult):
                return finish(out)
            return _ok(out, name)

    else:

        def run_sync(args: Any, context: ExecutionContext | None) -> ToolResult:
            kwargs = validate(args)
            try:
                out = invoke(kwargs, context)
                if is_async:
                    out = _run_coroutine(out)
            except Exception as exc:
                return failure(tool, exc)
            return finish(out)

    if is_async:

        async def run_async(args: Any, context: ExecutionContext | None) -> ToolResult:
            kwargs = validate(args)
            try:
                out = await (fn(**kwargs) if fn is not None else invoke(kwargs, context))
            except Exception as exc:
                return failure(tool, exc)
            return finish(out)

    elif cheap:

        async def run_async(args: Any, context: ExecutionContext | None) -> ToolResult:
            return run_sync(args, context)

    else:

        async def run_async(args: Any, context: ExecutionContext | None) -> ToolResult:
            import asyncio

            kwargs = validate(args)
            try:
                out = await asyncio.to_thread(invoke, kwargs, context)
            except Exception as exc:
                return failure(tool, exc)
            return finish(out)

    compiled.run_sync = run_sync
    compiled.run_async = run_async
    return compiled


def _inline_runner(
    tool: Tool,
    fn: Callable[..., Any],
    validate_python: Callable[[Any], Any],
    validate: Callable[[Any], dict[str, Any]],
) -> Callable[[Any, ExecutionContext | None], ToolResult]:
    """The hottest path: a sync function validated by pydantic-core, all inlined."""
    from pydantic_core import ValidationError

    name = tool.name

    def run_sync(args: Any, context: ExecutionContext | None) -> ToolResult:
        try:
            kwargs = validate_python(args)[1] if type(args) is dict else validate(args)
        except ValidationError:
            kwargs = validate(args)  # raises ToolValidationError naming every field
        try:
            out = fn(**kwargs)
        except Exception as exc:
            return failure(tool, exc)
        if isinstance(out, ToolResult):
            return out if out.tool_name else out.for_call(out.call_id, name)
        result = _new(ToolResult)
        _set_dict(result, {"success": True, "output": out, "metadata": {}, "tool_name": name})
        return result

    return run_sync


def run_sync(tool: Tool, args: Any, context: ExecutionContext | None) -> ToolResult:
    """Validate and run ``tool`` from sync code (see `attach_runners`)."""
    result: ToolResult = (tool._compiled or tool.compile_()).run_sync(args, context)
    return result


async def run_async(tool: Tool, args: Any, context: ExecutionContext | None) -> ToolResult:
    """Validate and run ``tool`` from async code (see `attach_runners`)."""
    result: ToolResult = await (tool._compiled or tool.compile_()).run_async(args, context)
    return result


def failure(tool: Tool, exc: Exception) -> ToolResult:
    """Turn a handler exception into a failed result (TC-3a: no traceback unless opted in)."""
    from forge.tools import failures

    return failures.tool_error(tool, exc)


def invalid(tool_name: str, exc: ToolValidationError, tool: Tool | None = None) -> ToolResult:
    """Turn a validation error into a failed result naming every bad field and its schema."""
    from forge.tools import failures

    parameters = None
    if tool is not None and tool._compiled is not None:
        parameters = tool._compiled.parameters
    return failures.invalid_arguments(tool_name, exc, parameters)


def misconfigured(tool_name: str, exc: ToolDefinitionError) -> ToolResult:
    """A tool whose definition cannot be compiled: the model cannot fix this by retrying."""
    from forge.tools import failures

    return failures.misconfigured(tool_name, exc)


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
    return finish(out, tool.name)


def start_async(compiled: Compiled, kwargs: dict[str, Any], context: Any) -> Any:
    """Start an async handler with validated ``kwargs``; return its awaitable (not awaited)."""
    fn = compiled.fn
    return fn(**kwargs) if fn is not None else compiled.invoke(kwargs, context)


def _run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="forge-sync") as pool:
        return pool.submit(asyncio.run, coro).result()
