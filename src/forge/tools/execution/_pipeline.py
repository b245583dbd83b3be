"""The engine behind every way of running a tool: one pipeline, two drivers (internal).

`ToolExecutor`'s methods, the registry's run methods, `BaseTool.execute`, the
MCP server and the LangChain bridge all run calls through `Engine`. Its
pipeline is written once: lookup, JSON decoding, validation (strict-mode
arguments are mapped back there, see `Tool.compiled`), the permission check,
the before-hooks, dry run, concurrency limits, the timeout, run placement,
result shaping, the after-hooks (metrics are one) and logging.

The pipeline is a set of coroutines that take an `IO`, which does the few
things that differ between sync and async callers:

* `ASYNC` awaits. An async handler is awaited under the call's deadline; a
  sync handler runs on a worker thread that is abandoned at the deadline,
  unless the tool is placed ``inline``.
* `BLOCKING` blocks instead of suspending. Its methods are coroutines that
  never suspend, so a pipeline coroutine driven with it finishes on its first
  step and `forge.tools.execution._drive.complete` hands the result to sync code. A sync
  handler runs on a worker thread when the call has a deadline (so the
  deadline holds, exactly as from async code), inline when it has none or the
  tool is placed ``inline``; an async handler, or one placed in a ``process``,
  runs through `ASYNC` on a private event loop.

A call's deadline is its own ``timeout``, else the tool's, else its context's.
A call made without any context (the registry's run methods, `BaseTool`
wrappers) has only the first two.

Each driver has one fast path, for a plain call (`Tool._plain` says which: no
hooks, policy, limit, dry run, output limit, backend or process), which runs
only lookup, validation and the handler: `Engine.run` (the async entry) and
`Engine.run_sync` (the sync entry) choose it, no caller does. The table in
``tests/unit/tools/test_engine_rules.py`` checks that every entry point gives
the results of the general path (the executor with a hook installed).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from forge.tools.execution import failures
from forge.tools.execution._deadline import Expired, guard, plain
from forge.tools.execution._drive import Waiter, _AsyncWait, _BlockingWait, complete, run_coroutine
from forge.tools.execution._handlers import HandlerRuns
from forge.tools.execution._outcomes import (
    _HUGE,
    _MINUS_HUGE,
    _OTHER_SCALARS,
    _checked,
    call_sync,
    finish,
    handler_failed,
    seconds_for,
)
from forge.tools.execution._steps import (
    TRACE,
    _coerce_call,
    _hook_failed,
    _hook_result,
    _known_answers,
    _log_outcome,
    _log_start,
    _redacted,
    _rejected,
    _request,
    _traced,
    _validate,
    logger,
)
from forge.tools.execution.hooks import ToolInvocation
from forge.tools.execution.permissions import decide
from forge.tools.values.calls import ToolCall
from forge.tools.values.context import ExecutionContext
from forge.tools.values.results import ToolResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from forge.core.redaction import Redactor
    from forge.tools.execution.backend import Backend
    from forge.tools.execution.permissions import Approver, PermissionPolicy
    from forge.tools.model.source import ToolSource
    from forge.tools.model.tool import Tool
    from forge.tools.schema import Compiled
    from forge.tools.values.output_limit import OutputLimit


class Engine(HandlerRuns):
    """Runs calls of a registry's tools; the state and the steps of the pipeline.

    Args:
        registry: Where tools are looked up (on every call).
        context: The context of calls made without one; ``None`` for no context
            (then only per-call and per-tool timeouts apply).
        hooks: Execution hooks, run in order.
        permissions: A permission policy checked for every call (with the context's).
        approve: Answers the policies' ``ask`` (unless the context has an approver).
        max_concurrency: The most calls running at once.
        max_threads: Worker threads for sync handlers.
        dry_run: Run every step but the handler, for every call (a context's
            ``dry_run`` turns it on for its calls).
        output_limit: How much of an output goes to the model, for tools that set none
            (stamped on each result; `forge.tools.values.output_limit`).
        redact: Takes secrets out of the message of every failed result (and so of
            the log), or ``None`` (`forge.core.redaction`).
        backend: Runs the handlers of the tools it accepts elsewhere (`Backend`).
    """

    def __init__(
        self,
        registry: ToolSource,
        context: ExecutionContext | None,
        *,
        hooks: tuple[Any, ...] = (),
        permissions: PermissionPolicy | None = None,
        approve: Approver | None = None,
        max_concurrency: int | None = None,
        max_threads: int = 32,
        dry_run: bool = False,
        output_limit: OutputLimit | None = None,
        redact: Redactor | None = None,
        backend: Backend | None = None,
    ) -> None:
        self._registry = registry
        self._redact = redact
        self._output_limit = output_limit
        self._dry_run = dry_run
        self._get: Callable[[str], Tool | None] = registry.get
        self._context = context
        self._policy = permissions
        self._approve = approve
        self._on_failure: Callable[[str, ToolResult], ToolResult] | None = None
        """Sees each failed result last, and may raise instead (the registry's raising runs)."""
        self._init_handler_runs(max_concurrency, max_threads, backend)
        self._set_hooks(hooks)

    def _set_hooks(self, hooks: tuple[Any, ...]) -> None:
        from forge.tools.execution.hooks import bound_methods

        for hook in hooks:
            if not (hasattr(hook, "before_call") or hasattr(hook, "after_call")):
                raise TypeError(f"a hook needs before_call or after_call, got {hook!r}")
        self._hooks = hooks
        self._before = bound_methods(hooks, "before_call")
        self._after = bound_methods(hooks, "after_call")[::-1]
        self._plain = not (
            self._before or self._after or self._limiter is not None or self._policy is not None
            or self._dry_run or self._output_limit is not None or self._backend is not None
        )  # fmt: skip

    # -- entry points shared by every driver ---------------------------------------------

    async def _entry(  # noqa: PLR0917 - internal, positional on purpose
        self, io: IO, name: str, arguments: Any, ctx: ExecutionContext | None,
        call_id: str | None, timeout: float | None,
    ) -> ToolResult:  # fmt: skip
        """One call by name; ``arguments`` is a mapping, its JSON text or ``None``."""
        if type(arguments) is str:  # decoded (and repaired) as a model's tool call is
            call = ToolCall.from_raw(call_id, name, arguments)  # type: ignore[arg-type]
            return await self._entry_call(io, call, ctx, timeout)
        return await io.call(self, name, arguments, ctx, call_id, timeout)

    async def _entry_call(
        self, io: IO, item: Any, ctx: ExecutionContext | None, timeout: float | None
    ) -> ToolResult:
        """One `ToolCall` (or a mapping that describes one)."""
        call = item if isinstance(item, ToolCall | ToolResult) else _coerce_call(item)
        if isinstance(call, ToolResult):  # a malformed call, already a failure
            return call
        tool = self._get(call.name)
        if call.argument_error is not None and tool is not None:
            failed = failures.invalid_json_result(call, tool)
            return await self._finish_early(io, call.name, call.raw_arguments, ctx, call.id, failed)
        return await self._entry(io, call.name, call.arguments, ctx, call.id, timeout)

    async def _finish_early(  # noqa: PLR0917 - internal, positional on purpose
        self, io: IO, name: str, args: Any, ctx: ExecutionContext | None, call_id: str | None,
        result: ToolResult,
    ) -> ToolResult:  # fmt: skip
        """A call that failed before lookup (bad JSON): the after-hooks still see it."""
        call = self._invocation(name, self._get(name), args, ctx, call_id, None)
        if self._after:
            result = await self._after_hooks(io, call, result.for_call(call_id, name))
        return self._outcome(call, result)

    # -- the pipeline ----------------------------------------------------------------------

    async def _pipeline(  # noqa: PLR0917 - internal, positional on purpose
        self, io: IO, name: str, tool: Tool | None, args: Any, ctx: ExecutionContext | None,
        call_id: str | None, timeout: float | None,
    ) -> ToolResult:  # fmt: skip
        """Every step, for every call the fast paths do not take."""
        call, compiled, result = self._prepare(name, tool, args, ctx, call_id, timeout)
        if result is None:
            try:
                result = await self._proceed(io, call, compiled)
            except asyncio.CancelledError:
                await self._after_hooks(io, call, failures.cancelled(name).for_call(call_id, name))
                raise
        result = await self._after_hooks(io, call, result)
        return self._outcome(call, result)

    async def _proceed(self, io: IO, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        if self._before or self._policy is not None or call.context.permissions is not None:
            stopped = await self._before_hooks(io, call)
            if stopped is not None:
                return stopped
        if self._dry_run or call.context.dry_run:
            return failures.dry_run(call.name)
        return await io.run(self, call, compiled)

    async def _before_hooks(self, io: IO, call: ToolInvocation) -> ToolResult | None:
        policies = self._policies(call.context)
        if policies:
            approver = call.context.approve or self._approve
            decision = await decide(io, _request(call), policies, approver)
            if decision.action != "allow":
                return failures.denied(call.name, decision.reason)
        for hook in self._before:
            try:
                answer = hook(call)
                if inspect.isawaitable(answer):
                    answer = await io.resolve(answer)
            except Exception:
                return _hook_failed(hook, call)
            if answer is not None:
                return _hook_result(hook, call, answer)
        return None

    async def _after_hooks(self, io: IO, call: ToolInvocation, result: ToolResult) -> ToolResult:
        """Run the after-call hooks on the result as the model will see it (secrets out)."""
        if not result.success:
            result = _redacted(result, self._redact)
        for hook in self._after:
            try:
                answer = hook(call, result)
                if inspect.isawaitable(answer):
                    answer = await io.resolve(answer)
            except Exception:
                logger.exception("after_call hook %r failed for tool %r", hook, call.name)
                continue
            if isinstance(answer, ToolResult):
                result = answer
        return result

    # -- shared steps -------------------------------------------------------------------

    def _invocation(  # noqa: PLR0917 - internal, positional on purpose
        self, name: str, tool: Tool | None, args: Any, ctx: ExecutionContext | None,
        call_id: str | None, timeout: float | None,
    ) -> ToolInvocation:  # fmt: skip
        return ToolInvocation(
            name=name, tool=tool, arguments=args, kwargs=None,
            context=ctx if ctx is not None else ExecutionContext(), call_id=call_id,
            timeout=plain(seconds_for(tool, ctx, timeout)), started=time.perf_counter(),
        )  # fmt: skip

    def _prepare(  # noqa: PLR0917 - internal, positional on purpose
        self, name: str, tool: Tool | None, args: Any, ctx: ExecutionContext | None,
        call_id: str | None, timeout: float | None,
    ) -> tuple[ToolInvocation, Any, ToolResult | None]:  # fmt: skip
        """Lookup and validation; returns the invocation, the compiled tool or a failure."""
        call = self._invocation(name, tool, args, ctx, call_id, timeout)
        if logger.isEnabledFor(TRACE):
            _log_start(name, call_id, args)
        if tool is None:
            return call, None, failures.unknown_tool(name, self._registry.names())
        try:
            compiled = tool._compiled or tool.compiled()
            call.kwargs = _validate(compiled, args)
        except Exception as exc:
            return call, None, _rejected(tool, exc)
        return call, compiled, None

    def _outcome(self, call: ToolInvocation, result: ToolResult) -> ToolResult:
        if result.call_id != call.call_id or result.tool_name is None:
            result = result.for_call(call.call_id, result.tool_name or call.name)
        tool = call.tool
        limit = (tool.output_limit if tool is not None else None) or self._output_limit
        if limit is not None and result.output_limit is None:
            result = result.replace(output_limit=limit)
        if not result.success:
            result = _redacted(result, self._redact)
            _log_outcome(call.name, result, call.started)
            if self._on_failure is not None:
                return self._on_failure(call.name, result)
        elif logger.isEnabledFor(TRACE):
            _log_outcome(call.name, result, call.started)
        return result

    def _policies(self, ctx: ExecutionContext) -> tuple[PermissionPolicy, ...]:
        own, theirs = self._policy, ctx.permissions
        if own is None:
            return () if theirs is None else (theirs,)
        return (own,) if theirs is None or theirs is own else (own, theirs)

    def _settled(
        self, result: ToolResult, name: str, call_id: str | None, started: float | None
    ) -> ToolResult:
        """A fast path's last step: tag the result with its call and log it (failures always)."""
        if call_id is not None:
            result = result.for_call(call_id, name)
        if not result.success:
            result = _redacted(result, self._redact)
            _log_outcome(name, result, started)
            if self._on_failure is not None:
                return self._on_failure(name, result)
        elif started is not None:
            _log_outcome(name, result, started)
        return result

    # -- the entries of the two drivers, each with its one fast path ------------------------

    async def run(
        self, name: str, arguments: Any = None, context: ExecutionContext | None = None,
        call_id: str | None = None, timeout: float | None = None,
    ) -> ToolResult:  # fmt: skip
        """Run ``name`` with ``arguments`` (a JSON object, or its JSON text).

        Args:
            name: The tool to run.
            arguments: A mapping, JSON text of one, or ``None`` for no arguments.
            context: The execution context (default: the executor's).
            call_id: Tag the result with this call id.
            timeout: Seconds this call may take (overrides the tool and the context).

        Pass ``call_id`` and ``timeout`` by keyword. They are not keyword-only because
        Python 3.11 calls a function with keyword-only defaults through a slower path,
        which costs every call a few percent.
        """
        ctx = context or self._context
        get = self._get  # an attribute, not a method: called through a local, it specialises
        tool = get(name)
        kind = tool._plain if tool is not None and self._plain and type(arguments) is not str else 0
        if (
            not kind or tool is None
            or (ctx is not None and (ctx.dry_run or ctx.permissions is not None))
        ):  # fmt: skip
            if type(arguments) is str:
                return await self._entry(ASYNC, name, arguments, ctx, call_id, timeout)
            return await self._pipeline(ASYNC, name, tool, arguments, ctx, call_id, timeout)
        # The async driver's one fast path: lookup, validation and the handler.
        started = None if _known_answers(TRACE) is False else _traced(name, call_id, arguments)
        try:
            compiled = tool._compiled or tool.compiled()
            admits = compiled.admits
            if type(arguments) is dict and admits is not None and admits(arguments):
                kwargs = arguments  # already what validation returns
            else:
                validate_python = compiled.validate_python  # pydantic-core's, called directly
                try:
                    kwargs = (
                        validate_python(arguments)[1]
                        if validate_python is not None and type(arguments) is dict
                        else compiled.validate(arguments)
                    )
                except Exception:
                    kwargs = compiled.validate(arguments)  # raises, naming every bad field
        except Exception as exc:
            result = _rejected(tool, exc)
        else:
            if kind in {1, 5}:  # an async handler, awaited under the call's deadline
                # (none when the call has no context, no timeout and its tool none: kind 1)
                no_deadline = kind == 1 and ctx is None and not timeout
                seconds = None if no_deadline else seconds_for(tool, ctx, timeout)
                fn = compiled.fn
                try:
                    running = fn(**kwargs) if fn is not None else compiled.invoke(kwargs, ctx)
                    out = await (running if seconds is None else guard(running, seconds))
                except Expired:
                    result = failures.timeout(name, plain(seconds))  # type: ignore[arg-type]
                except BaseException as exc:
                    result = _checked(handler_failed(tool, exc))
                else:  # `plain`'s common case inlined; `_settled` does the rest
                    cls = type(out)
                    if started is None and (
                        (cls is int and _MINUS_HUGE < out < _HUGE) or (cls is str and out.isascii())
                        or cls in _OTHER_SCALARS
                    ):  # fmt: skip
                        return _succeeded(out, name, call_id)
                    result = _checked(finish(out, name))
            elif kind == 3:
                result = _checked(call_sync(tool, compiled, kwargs, ctx))
            else:  # on a worker thread, which may outlive the call: its own arguments
                seconds = seconds_for(tool, ctx, timeout)
                own = arguments.copy() if kwargs is arguments else kwargs
                result = await self._await_thread(tool, compiled, own, ctx, seconds)
        return self._settled(result, name, call_id, started)

    def run_sync(
        self, name: str, arguments: Any = None, context: ExecutionContext | None = None,
        call_id: str | None = None, timeout: float | None = None,
    ) -> ToolResult:  # fmt: skip
        """`run` for sync code, with the same options (where handlers run: see
        `forge.tools.execution.executor`)."""
        ctx = context or self._context
        get = self._get  # an attribute, not a method: called through a local, it specialises
        tool = get(name)
        # The blocking driver's one fast path: a sync handler run on this thread.
        kind = tool._plain if tool is not None and self._plain and type(arguments) is not str else 0
        if ctx is None:
            fast = kind == 3 or (kind == 2 and not timeout)
        else:
            fast = (
                (kind == 3 or (kind == 2 and not timeout and ctx.timeout is None))
                and not ctx.dry_run
                and ctx.permissions is None
            )
        if not fast or tool is None:
            if type(arguments) is str:
                return complete(self._entry(BLOCKING, name, arguments, ctx, call_id, timeout))
            return complete(self._pipeline(BLOCKING, name, tool, arguments, ctx, call_id, timeout))
        started = None if _known_answers(TRACE) is False else _traced(name, call_id, arguments)
        try:
            compiled = tool._compiled or tool.compiled()
            admits = compiled.admits
            validate_python = compiled.validate_python
            if type(arguments) is dict and admits is not None and admits(arguments):
                kwargs = arguments  # already what validation returns
            elif validate_python is None or type(arguments) is not dict:
                kwargs = compiled.validate(arguments)
            else:  # `_validate`, inlined
                try:
                    kwargs = validate_python(arguments)[1]
                except Exception:
                    kwargs = compiled.validate(arguments)  # raises naming every field
        except Exception as exc:
            result = _rejected(tool, exc)
        else:
            fn = compiled.fn
            try:
                out = fn(**kwargs) if fn is not None else compiled.invoke(kwargs, ctx)
            except BaseException as exc:
                result = _checked(handler_failed(tool, exc))
            else:  # `plain`'s common case inlined; `_settled` does the rest
                cls = type(out)
                if started is None and (
                    (cls is int and _MINUS_HUGE < out < _HUGE) or (cls is str and out.isascii())
                    or cls in _OTHER_SCALARS
                ):  # fmt: skip
                    return _succeeded(out, name, call_id)
                result = _checked(finish(out, name))
        return self._settled(result, name, call_id, started)


# -- the two drivers ------------------------------------------------------------------------


class IO(Waiter):
    """What differs between sync and async callers; the pipeline awaits these."""

    @abstractmethod
    async def call(  # noqa: PLR0917 - internal, positional on purpose
        self, engine: Engine, name: str, args: Any, ctx: ExecutionContext | None,
        call_id: str | None, timeout: float | None,
    ) -> ToolResult:  # fmt: skip
        """Run one decoded call, on a fast path when it can take one."""

    @abstractmethod
    async def run(self, engine: Engine, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        """Run the handler of a validated, allowed call where its deadline holds."""


class _Async(IO, _AsyncWait):
    async def call(  # noqa: PLR0917 - internal, positional on purpose
        self, engine: Engine, name: str, args: Any, ctx: ExecutionContext | None,
        call_id: str | None, timeout: float | None,
    ) -> ToolResult:  # fmt: skip
        return await engine.run(name, args, ctx, call_id=call_id, timeout=timeout)

    async def run(self, engine: Engine, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        return await engine._run_async(call, compiled)


class _Blocking(IO, _BlockingWait):
    """Never suspends: each method blocks the calling thread until it has the answer."""

    async def call(  # noqa: PLR0917 - internal, positional on purpose
        self, engine: Engine, name: str, args: Any, ctx: ExecutionContext | None,
        call_id: str | None, timeout: float | None,
    ) -> ToolResult:  # fmt: skip
        return engine.run_sync(name, args, ctx, call_id=call_id, timeout=timeout)

    async def run(self, engine: Engine, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        tool: Tool = call.tool  # type: ignore[assignment]
        if tool.source.is_async or tool.placement == "process" or engine._remote(tool):
            result: ToolResult = run_coroutine(engine._run_async(call, compiled))  # private loop
            return result
        return engine._run_blocking(call, compiled)


_succeeded = ToolResult.succeeded

ASYNC: IO = _Async()
BLOCKING: IO = _Blocking()
