"""`ToolExecutor`: run tool calls safely, fast and observably (SPEC §5, seed 004).

The executor never raises for anything a model can cause. An unknown tool,
arguments that are not JSON or do not match the schema, a denied call, a
timeout, a cancelled call and a handler exception all come back as a failed
`ToolResult` with an ``error_kind`` and a message written for the model
(`forge.tools.failures`). It logs the start and the outcome of each call
(at DEBUG; failures at INFO).
Exceptions that are not ``Exception`` subclasses (``KeyboardInterrupt``,
``SystemExit``) are never swallowed.

Where handlers run:

* Async entry points (``execute``, ``run``, ``execute_call``, ``execute_all``):
  an async handler is awaited in the caller's task; a sync handler runs on the
  executor's worker threads, unless the tool is ``cheap``, in which case it
  runs inline on the event loop.
* Sync entry points (the ``*_sync`` methods): a sync handler runs inline on the
  caller's thread; an async handler runs on a private event loop.

Timeouts (EX-4). Each call's limit is the per-call ``timeout``, else the tool's
``timeout``, else the context's. It bounds the caller's wall time, including
time spent waiting for a concurrency slot:

* An async handler is cancelled at the deadline.
* A sync handler on a worker thread cannot be stopped: Python has no way to
  kill a thread. The caller gets the timeout result at the deadline and the
  thread is *abandoned*: it runs to the end in the background, its result is
  discarded, and it occupies one worker until then (``abandoned_threads``
  counts them; calls still queued for a worker never start).
* A sync handler running inline (a ``cheap`` tool, or a sync entry point with
  no per-call or per-tool timeout) cannot be interrupted at all: nothing can
  pre-empt code running on your own thread. The context's default timeout is
  therefore not enforced there. When a per-call or per-tool timeout is set, a
  sync entry point runs the handler on a worker thread so the timeout holds.
* A tool marked ``isolated=True`` runs each call in a separate process that is
  killed at the deadline (`forge.tools._isolation`): use it for handlers that
  must really stop.

Cancellation (EX-5). Cancelling the task that awaits a call or a batch cancels
the running async handlers (a batch waits until every one has stopped) and
kills isolated processes; `asyncio.CancelledError` then propagates, and hooks
and metrics record the call as ``cancelled``, never as a tool error. A handler
that raises `asyncio.CancelledError` by itself gets a ``cancelled`` result. A
sync handler on a worker thread is abandoned, as on timeout.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeGuard, overload

from forge.tools import failures
from forge.tools._deadline import Expired, guard
from forge.tools._limits import Limiter
from forge.tools._pipeline import Pipeline
from forge.tools._run import _run_coroutine, call_sync, failure, finish, start_async
from forge.tools._steps import (
    JSON_SCALARS,
    TRACE,
    _cancelling,
    _check_limit,
    _checked,
    _coerce_call,
    _log_outcome,
    _log_start,
    _parse_json,
    _rejected,
    _validate,
    logger,
)
from forge.tools._workers import Workers
from forge.tools.calls import ToolCall
from forge.tools.context import ExecutionContext
from forge.tools.hooks import ToolInvocation, bound_methods
from forge.tools.results import ToolResult, _ok_for

if TYPE_CHECKING:
    from forge.tools._sources import Compiled
    from forge.tools.metrics import ExecutionMetrics
    from forge.tools.permissions import Approver, PermissionPolicy
    from forge.tools.registry import ToolRegistry
    from forge.tools.tool import Tool

__all__ = ["ToolExecutor"]


class ToolExecutor(Pipeline):
    """Runs tool calls from a registry (seed 004's executor, and SPEC §5).

    Args:
        registry: Where tools are looked up (on every call, so changes apply at once).
        context: The context of calls made without one (default: a fresh `ExecutionContext`).
        hooks: Execution hooks (`forge.tools.hooks`), run in order.
        permissions: A permission policy (`forge.tools.permissions`) checked for every call.
        approve: Answers the policies' ``ask`` (sync or async).
        metrics: ``True`` to collect `ExecutionMetrics` (read ``executor.metrics``), or an
            `ExecutionMetrics` to use.
        max_concurrency: The most calls running at once across this executor.
        max_threads: Worker threads for sync handlers called from async code (daemon
            threads: a handler abandoned after its timeout never blocks interpreter exit).
        strict: The calls answer definitions exported with ``to_provider(..., strict=True)``:
            a ``null`` for a parameter that was optional means "use the default", and
            free-form values sent as JSON text are decoded (PV-3a), before validation.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        context: ExecutionContext | None = None,
        hooks: Iterable[Any] = (),
        permissions: PermissionPolicy | None = None,
        approve: Approver | None = None,
        metrics: bool | ExecutionMetrics = False,
        max_concurrency: int | None = None,
        max_threads: int = 32,
        strict: bool = False,
    ) -> None:
        self._registry = registry
        self._strict = strict
        self._get = registry.get
        self._context = context if context is not None else ExecutionContext()
        self._policy = permissions
        self._approve = approve
        self._metrics: ExecutionMetrics | None = None
        if metrics is True:
            from forge.tools.metrics import ExecutionMetrics

            self._metrics = ExecutionMetrics()
        elif metrics is not False:
            self._metrics = metrics
        _check_limit("max_concurrency", max_concurrency)
        _check_limit("max_threads", max_threads)
        self._limiter = Limiter(max_concurrency) if max_concurrency is not None else None
        self._max_threads = max_threads
        self._lock = threading.Lock()
        self._tool_limiters: dict[str, Limiter] = {}
        self._pool: Workers | None = None
        self._abandoned: set[Future[Any]] = set()
        installed = list(hooks)
        if self._metrics is not None and self._metrics not in installed:
            installed.append(self._metrics)
        self._set_hooks(tuple(installed))

    # -- configuration ---------------------------------------------------------------

    @property
    def registry(self) -> ToolRegistry:
        """The registry tools are looked up in."""
        return self._registry

    @property
    def metrics(self) -> ExecutionMetrics | None:
        """The metrics collector, when metrics are on (``snapshot()`` reads them)."""
        return self._metrics

    @property
    def hooks(self) -> tuple[Any, ...]:
        """The installed hooks, in order."""
        return self._hooks

    @property
    def abandoned_threads(self) -> int:
        """Sync handlers still running on a worker after their call timed out or was cancelled."""
        return len(self._abandoned)

    def add_hook(self, hook: Any) -> None:
        """Install a hook after the others."""
        self._set_hooks((*self._hooks, hook))

    def remove_hook(self, hook: Any) -> None:
        """Uninstall a hook (no error if it is not installed)."""
        self._set_hooks(tuple(h for h in self._hooks if h is not hook))

    def _set_hooks(self, hooks: tuple[Any, ...]) -> None:
        for hook in hooks:
            if not (hasattr(hook, "before_call") or hasattr(hook, "after_call")):
                raise TypeError(f"a hook needs before_call or after_call, got {hook!r}")
        self._hooks = hooks
        self._before = bound_methods(hooks, "before_call")
        self._after = bound_methods(hooks, "after_call")[::-1]
        self._plain = not (
            self._before or self._after or self._limiter is not None or self._policy is not None
            or self._strict
        )  # fmt: skip

    def get_all_schemas(self, format: str = "openai") -> list[dict[str, Any]]:
        """Return every tool's definition in a provider's format (``registry.to_provider``)."""
        return self._registry.to_provider(format)

    # -- async entry points ----------------------------------------------------------

    @overload
    async def execute(
        self, tool_name: str, context: ExecutionContext | None = None, /, **kwargs: Any
    ) -> ToolResult: ...
    @overload
    async def execute(
        self, /, *, tool_name: str, context: ExecutionContext | None = None, **kwargs: Any
    ) -> ToolResult: ...
    async def execute(self, /, *args: Any, **kwargs: Any) -> ToolResult:
        """Run ``tool_name`` with keyword arguments (seed 004); never raises for model errors.

        Call it as ``execute("echo", ctx, text="hi")``, ``execute("echo", context=ctx,
        text="hi")`` or ``execute(tool_name="echo", context=ctx, text="hi")``. A tool
        argument called ``tool_name`` or ``context`` is passed as a keyword after the name
        and context given positionally (``execute("echo", None, context="x")``); a keyword
        ``context`` that is not an `ExecutionContext` (or ``None``) is a tool argument too.
        """
        name, context, arguments = _execute_arguments("execute", args, kwargs)
        return await self._run(name, arguments, context or self._context, None, None)

    async def run(
        self,
        name: str,
        arguments: Any = None,
        context: ExecutionContext | None = None,
        *,
        call_id: str | None = None,
        timeout: float | None = None,
    ) -> ToolResult:
        """Run ``name`` with ``arguments`` (a JSON object, or its JSON text).

        Args:
            name: The tool to run.
            arguments: A mapping, JSON text of one, or ``None`` for no arguments.
            context: The execution context (default: the executor's).
            call_id: Tag the result with this call id.
            timeout: Seconds this call may take (overrides the tool and the context).
        """
        ctx = context or self._context
        if type(arguments) is str:
            parsed = _parse_json(name, arguments)
            if isinstance(parsed, ToolResult):
                return await self._finish_early(name, arguments, ctx, call_id, parsed)
            arguments = parsed
        return await self._run(name, arguments, ctx, call_id, timeout)

    async def execute_call(
        self,
        call: ToolCall | Mapping[str, Any],
        context: ExecutionContext | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolResult:
        """Run one `ToolCall` (or mapping); the result carries its ``call_id``."""
        parsed = _coerce_call(call)
        if isinstance(parsed, ToolResult):
            return parsed
        if parsed.argument_error is not None and self._get(parsed.name) is not None:
            return await self._invalid_json(parsed, context or self._context)
        return await self.run(
            parsed.name, parsed.arguments, context, call_id=parsed.id, timeout=timeout
        )

    async def _invalid_json(self, call: ToolCall, ctx: ExecutionContext) -> ToolResult:
        """A call whose arguments could not be decoded: never runs, after-hooks still see it."""
        from forge.tools._repair import invalid_json_result

        failed = invalid_json_result(call, self._get(call.name))
        return await self._finish_early(call.name, call.raw_arguments, ctx, call.id, failed)

    def _invalid_json_sync(self, call: ToolCall, ctx: ExecutionContext) -> ToolResult:
        from forge.tools._repair import invalid_json_result

        failed = invalid_json_result(call, self._get(call.name))
        return self._finish_early_sync(call.name, call.raw_arguments, ctx, call.id, failed)

    async def execute_all(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        context: ExecutionContext | None = None,
        *,
        parallel: bool = True,
        max_concurrency: int | None = None,
        timeout: float | None = None,
    ) -> list[ToolResult]:
        """Run calls and return their results in call order (EX-6).

        One call's failure does not affect the others. With ``parallel`` the
        calls run concurrently, at most ``max_concurrency`` at a time when set.
        Cancelling the awaiting task cancels every running call and returns
        only once they have all stopped.
        """
        _check_limit("max_concurrency", max_concurrency)
        ctx = context or self._context
        items = [_coerce_call(c) for c in calls]
        if not parallel or len(items) <= 1 or max_concurrency == 1:
            return [await self._one(item, ctx, timeout) for item in items]
        return await self._gather(items, ctx, timeout, max_concurrency)

    async def _gather(
        self,
        items: list[ToolCall | ToolResult],
        ctx: ExecutionContext,
        timeout: float | None,
        limit: int | None,
    ) -> list[ToolResult]:
        """Run calls as tasks; a KeyboardInterrupt or SystemExit stops the batch and re-raises.

        Each task keeps such an exception to itself and cancels the others, so it
        reaches the caller from this task (asyncio would otherwise raise it out of
        the event loop and leave tasks holding unretrieved exceptions).
        """
        loop = asyncio.get_running_loop()
        results: list[Any] = [None] * len(items)
        fatal: list[BaseException] = []
        tasks: list[asyncio.Task[None]] = []
        one, run = self._one, self._run

        async def call(index: int, item: ToolCall | ToolResult) -> None:
            try:
                arguments: Any = getattr(item, "arguments", None)
                if type(arguments) is dict and getattr(item, "argument_error", None) is None:
                    results[index] = await run(item.name, arguments, ctx, item.id, timeout)  # type: ignore[union-attr]
                else:
                    results[index] = await one(item, ctx, timeout)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:
                fatal.append(exc)
                for task in tasks:
                    task.cancel()

        if limit is None or limit >= len(items):
            for index, item in enumerate(items):
                if self._inline(item, ctx):  # cheap sync tools run inline, no task needed
                    results[index] = self._run_sync(
                        item.name, self._get(item.name), item.arguments, ctx, item.id, timeout
                    )
                else:
                    tasks.append(loop.create_task(call(index, item)))
        else:
            order = iter(enumerate(items))

            async def worker() -> None:
                for index, item in order:
                    await call(index, item)

            tasks.extend(loop.create_task(worker()) for _ in range(limit))
        await _wait_all(tasks)
        if fatal:
            raise fatal[0]
        return results

    def _inline(self, item: ToolCall | ToolResult, ctx: ExecutionContext) -> TypeGuard[ToolCall]:
        """Whether a batch item is a plain call of a cheap sync tool (run without a task)."""
        if isinstance(item, ToolResult) or not self._plain:
            return False
        tool = self._get(item.name)
        arguments: Any = item.arguments
        return (
            tool is not None and tool.cheap and not tool.source.is_async and not ctx.dry_run
            and ctx.permissions is None and tool.max_concurrency is None
            and type(arguments) is not str and item.argument_error is None
        )  # fmt: skip

    async def _one(
        self, item: ToolCall | ToolResult, ctx: ExecutionContext, timeout: float | None
    ) -> ToolResult:
        if isinstance(item, ToolResult):
            return item
        if item.argument_error is not None and self._get(item.name) is not None:
            return await self._invalid_json(item, ctx)
        arguments: Any = item.arguments  # a ToolCall may carry the raw JSON text
        if type(arguments) is str:
            return await self.run(item.name, arguments, ctx, call_id=item.id, timeout=timeout)
        return await self._run(item.name, arguments, ctx, item.id, timeout)

    # -- sync entry points -----------------------------------------------------------

    @overload
    def execute_sync(
        self, tool_name: str, context: ExecutionContext | None = None, /, **kwargs: Any
    ) -> ToolResult: ...
    @overload
    def execute_sync(
        self, /, *, tool_name: str, context: ExecutionContext | None = None, **kwargs: Any
    ) -> ToolResult: ...
    def execute_sync(self, /, *args: Any, **kwargs: Any) -> ToolResult:
        """`execute` for sync code (called the same ways)."""
        name, context, arguments = _execute_arguments("execute_sync", args, kwargs)
        return self.run_sync(name, arguments, context)

    def run_sync(
        self,
        name: str,
        arguments: Any = None,
        context: ExecutionContext | None = None,
        *,
        call_id: str | None = None,
        timeout: float | None = None,
    ) -> ToolResult:
        """`run` for sync code: a sync handler runs inline, an async one on a private loop."""
        ctx = context or self._context
        if type(arguments) is str:
            parsed = _parse_json(name, arguments)
            if isinstance(parsed, ToolResult):
                return self._finish_early_sync(name, arguments, ctx, call_id, parsed)
            arguments = parsed
        tool = self._get(name)
        if tool is not None and tool.source.is_async:
            return _run_coroutine(self._run(name, arguments, ctx, call_id, timeout))  # type: ignore[no-any-return]
        return self._run_sync(name, tool, arguments, ctx, call_id, timeout)

    def execute_call_sync(
        self,
        call: ToolCall | Mapping[str, Any],
        context: ExecutionContext | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolResult:
        """`execute_call` for sync code."""
        parsed = _coerce_call(call)
        if isinstance(parsed, ToolResult):
            return parsed
        if parsed.argument_error is not None and self._get(parsed.name) is not None:
            return self._invalid_json_sync(parsed, context or self._context)
        return self.run_sync(
            parsed.name, parsed.arguments, context, call_id=parsed.id, timeout=timeout
        )

    def execute_all_sync(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        context: ExecutionContext | None = None,
        *,
        parallel: bool = True,
        max_concurrency: int | None = None,
        timeout: float | None = None,
    ) -> list[ToolResult]:
        """`execute_all` for sync code.

        With ``parallel`` the batch runs on a private event loop (sync handlers
        on worker threads); without it, calls run one after another and sync
        handlers run inline.
        """
        if parallel:
            batch = self.execute_all(
                calls, context, parallel=True, max_concurrency=max_concurrency, timeout=timeout
            )
            return _run_coroutine(batch)  # type: ignore[no-any-return]
        ctx = context or self._context
        results = []
        for item in calls:
            call = _coerce_call(item)
            if isinstance(call, ToolResult):
                results.append(call)
            elif call.argument_error is not None and self._get(call.name) is not None:
                results.append(self._invalid_json_sync(call, ctx))
            else:
                results.append(
                    self.run_sync(call.name, call.arguments, ctx, call_id=call.id, timeout=timeout)
                )
        return results

    # -- lifecycle --------------------------------------------------------------------

    def close(self) -> None:
        """Stop the worker threads (abandoned handlers finish on their own; queued calls drop)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown()

    def __enter__(self) -> ToolExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> ToolExecutor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<ToolExecutor registry={self._registry!r} hooks={len(self._hooks)}>"

    # -- the async pipeline ------------------------------------------------------------

    async def _run(
        self,
        name: str,
        args: Any,
        ctx: ExecutionContext,
        call_id: str | None,
        timeout: float | None,
    ) -> ToolResult:
        tool = self._get(name)
        if (
            tool is None or not self._plain or ctx.dry_run or ctx.permissions is not None
            or tool.max_concurrency is not None or tool.isolated
        ):  # fmt: skip
            return await self._run_full(name, tool, args, ctx, call_id, timeout)
        logged = logger.isEnabledFor(TRACE)
        started = None
        if logged:
            _log_start(name, call_id, args)
            started = time.perf_counter()
        try:
            compiled = tool._compiled or tool.compile_()
            kwargs = _validate(tool, compiled, args)
        except Exception as exc:
            result = _rejected(tool, exc)
        else:
            seconds = timeout or tool.timeout or ctx.timeout
            if tool.source.is_async:
                fn = compiled.fn
                try:
                    out = await guard(
                        fn(**kwargs) if fn is not None else compiled.invoke(kwargs, ctx), seconds
                    )
                except Expired:
                    result = failures.timeout(name, seconds)
                except asyncio.CancelledError:
                    if _cancelling():
                        raise
                    result = failures.cancelled(name)
                except Exception as exc:
                    result = failure(tool, exc)
                else:
                    if type(out) in JSON_SCALARS:
                        result = _ok_for(out, name, call_id)
                        if logged:
                            _log_outcome(name, result, started)
                        return result
                    result = _checked(finish(out, name))
            elif tool.cheap:
                result = _checked(call_sync(tool, compiled, kwargs, ctx))
            else:
                result = await self._await_thread(tool, compiled, kwargs, ctx, seconds)
        if call_id is not None:
            result = result.for_call(call_id, name)
        if logged or not result.success:
            _log_outcome(name, result, started)
        return result

    async def _await_thread(
        self,
        tool: Tool,
        compiled: Compiled,
        kwargs: dict[str, Any],
        ctx: ExecutionContext,
        seconds: float,
    ) -> ToolResult:
        running = self._submit(tool, compiled, kwargs, ctx)
        try:
            result: ToolResult = await guard(asyncio.wrap_future(running), seconds)
        except Expired:
            self._abandon(running)
            return failures.timeout(tool.name, seconds)
        except asyncio.CancelledError:
            self._abandon(running)
            if _cancelling():
                raise
            return failures.cancelled(tool.name)
        return _checked(result)

    async def _run_full(  # noqa: PLR0917 - internal, positional like _run
        self,
        name: str,
        tool: Tool | None,
        args: Any,
        ctx: ExecutionContext,
        call_id: str | None,
        timeout: float | None,
    ) -> ToolResult:
        """The pipeline with everything: hooks, permissions, limits, dry run, isolation."""
        call, compiled, result = self._prepare(name, tool, args, ctx, call_id, timeout)
        if result is None:
            try:
                result = await self._proceed(call, compiled)
            except asyncio.CancelledError:
                await self._after_hooks(call, failures.cancelled(name).for_call(call_id, name))
                raise
        result = await self._after_hooks(call, result)
        return self._outcome(call, result)

    async def _proceed(self, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        if self._before or self._policy is not None or call.context.permissions is not None:
            stopped = await self._before_hooks(call)
            if stopped is not None:
                return stopped
        if call.context.dry_run:
            return failures.dry_run(call.name)
        limiters = self._limiters(call.tool)  # type: ignore[arg-type]
        running = (
            self._limited(call, compiled, limiters) if limiters else self._invoke(call, compiled)
        )
        try:
            result: ToolResult = await guard(running, call.timeout)
        except Expired:
            return failures.timeout(call.name, call.timeout)
        except asyncio.CancelledError:
            if _cancelling():
                raise
            return failures.cancelled(call.name)
        return result

    async def _limited(
        self, call: ToolInvocation, compiled: Compiled, limiters: list[Limiter]
    ) -> ToolResult:
        held: list[Limiter] = []
        try:
            for limiter in limiters:
                await limiter.acquire()
                held.append(limiter)
            return await self._invoke(call, compiled)
        finally:
            for limiter in reversed(held):
                limiter.release()

    async def _invoke(self, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        tool: Tool = call.tool  # type: ignore[assignment]
        kwargs: dict[str, Any] = call.kwargs  # type: ignore[assignment]
        if tool.isolated:
            return await self._isolated(call)
        if tool.source.is_async:
            try:
                out = await start_async(compiled, kwargs, call.context)
            except Exception as exc:
                return failure(tool, exc)
            return _checked(finish(out, tool.name))
        if tool.cheap:
            return _checked(call_sync(tool, compiled, kwargs, call.context))
        running = self._submit(tool, compiled, kwargs, call.context)
        try:
            return _checked(await asyncio.wrap_future(running))
        except BaseException:
            self._abandon(running)
            raise


def _execute_arguments(
    method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[str, ExecutionContext | None, dict[str, Any]]:
    """Split seed 004's ``execute(tool_name, context, **kwargs)``, however it was called.

    Positional name and context leave every keyword to the tool. Otherwise ``tool_name=``
    is the name, and ``context=`` the context when it is one (or ``None``).
    """
    if len(args) == 2:
        return args[0], args[1], kwargs
    if len(args) > 2:
        raise TypeError(
            f"{method}() takes the tool name and the context positionally, then the tool's "
            f"arguments as keywords; got {len(args)} positional arguments"
        )
    if args:
        name = args[0]
    elif "tool_name" in kwargs:
        name = kwargs.pop("tool_name")
    else:
        raise TypeError(f"{method}() missing the tool name: {method}('echo', context, **arguments)")
    given = kwargs.get("context", ())
    if given is None or isinstance(given, ExecutionContext):
        del kwargs["context"]
        return name, given, kwargs
    return name, None, kwargs


async def _wait_all(tasks: list[asyncio.Task[None]]) -> None:
    """Wait for every task; if the waiter is cancelled, cancel them and wait for them too."""
    if not tasks:
        return
    try:
        await asyncio.wait(tasks)
    except asyncio.CancelledError:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
        raise
