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
import contextvars
import inspect
import logging
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeGuard

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.core.logging import get_logger
from forge.tools import failures
from forge.tools._deadline import Expired, guard
from forge.tools._limits import Limiter
from forge.tools._run import _run_coroutine, call_sync, failure, finish, invalid, start_async
from forge.tools._workers import Workers
from forge.tools.calls import ToolCall
from forge.tools.context import ExecutionContext
from forge.tools.hooks import ToolInvocation, bound_methods
from forge.tools.results import ErrorKind, ToolResult, _ok_for

if TYPE_CHECKING:
    from forge.tools._sources import Compiled
    from forge.tools.metrics import ExecutionMetrics
    from forge.tools.permissions import Approver, PermissionPolicy
    from forge.tools.registry import ToolRegistry
    from forge.tools.tool import Tool

__all__ = ["ToolExecutor"]

logger = get_logger("tools.executor")
_TRACE, _FAILED = logging.DEBUG, logging.INFO  # per-call lines; failures one level up
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})
_to_jsonable: Any = None


class ToolExecutor:
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
    ) -> None:
        self._registry = registry
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
        )

    def get_all_schemas(self, format: str = "openai") -> list[dict[str, Any]]:
        """Return every tool's definition in a provider's format (``registry.to_provider``)."""
        return self._registry.to_provider(format)

    # -- async entry points ----------------------------------------------------------

    async def execute(
        self, tool_name: str, context: ExecutionContext | None = None, /, **kwargs: Any
    ) -> ToolResult:
        """Run ``tool_name`` with keyword arguments (seed 004); never raises for model errors."""
        return await self._run(tool_name, kwargs, context or self._context, None, None)

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
        return await self.run(
            parsed.name, parsed.arguments, context, call_id=parsed.id, timeout=timeout
        )

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
        run = self._run

        async def call(index: int, item: ToolCall | ToolResult) -> None:
            try:
                if isinstance(item, ToolResult):
                    results[index] = item
                    return
                arguments: Any = item.arguments  # a ToolCall may carry the raw JSON text
                if type(arguments) is str:
                    results[index] = await self.run(
                        item.name, arguments, ctx, call_id=item.id, timeout=timeout
                    )
                else:
                    results[index] = await run(item.name, arguments, ctx, item.id, timeout)
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
        if not tasks:
            return results
        try:
            await asyncio.wait(tasks)
        except asyncio.CancelledError:
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)
            raise
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
            and type(arguments) is not str
        )  # fmt: skip

    async def _one(
        self, item: ToolCall | ToolResult, ctx: ExecutionContext, timeout: float | None
    ) -> ToolResult:
        if isinstance(item, ToolResult):
            return item
        return await self.run(item.name, item.arguments, ctx, call_id=item.id, timeout=timeout)

    # -- sync entry points -----------------------------------------------------------

    def execute_sync(
        self, tool_name: str, context: ExecutionContext | None = None, /, **kwargs: Any
    ) -> ToolResult:
        """`execute` for sync code."""
        return self.run_sync(tool_name, kwargs, context)

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
        logged = logger.isEnabledFor(_TRACE)
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
                    if type(out) in _JSON_SCALARS:
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

    async def _isolated(self, call: ToolInvocation) -> ToolResult:
        from forge.tools._isolation import IsolatedCall, target_of

        tool: Tool = call.tool  # type: ignore[assignment]
        try:
            target = target_of(tool)
        except ToolDefinitionError as exc:
            return failures.misconfigured(tool.name, exc)
        process = IsolatedCall(target, call.kwargs or {}, call.context)
        process.start()
        try:
            outcome = await asyncio.wrap_future(self._threads().submit(process.wait, None))
        except BaseException:  # the deadline passed or the call was cancelled: kill it
            process.kill()
            raise
        return _from_outcome(tool, outcome)

    async def _before_hooks(self, call: ToolInvocation) -> ToolResult | None:
        policies = self._policies(call.context)
        if policies:
            from forge.tools.permissions import authorize

            decision = await authorize(
                _request(call), policies, call.context.approve or self._approve
            )
            if decision.action != "allow":
                return failures.denied(call.name, decision.reason)
        for hook in self._before:
            try:
                answer = hook(call)
                if inspect.isawaitable(answer):
                    answer = await answer
            except Exception:
                return _hook_failed(hook, call)
            if answer is not None:
                return _hook_result(hook, call, answer)
        return None

    async def _after_hooks(self, call: ToolInvocation, result: ToolResult) -> ToolResult:
        for hook in self._after:
            try:
                answer = hook(call, result)
                if inspect.isawaitable(answer):
                    answer = await answer
            except Exception:
                logger.exception("after_call hook %r failed for tool %r", hook, call.name)
                continue
            if isinstance(answer, ToolResult):
                result = answer
        return result

    async def _finish_early(
        self, name: str, args: Any, ctx: ExecutionContext, call_id: str | None, result: ToolResult
    ) -> ToolResult:
        """A call that failed before lookup (bad JSON): the after-hooks still see it."""
        call = self._invocation(name, self._get(name), args, ctx, call_id, None)
        if self._after:
            result = await self._after_hooks(call, result.for_call(call_id, name))
        return self._outcome(call, result)

    # -- the sync pipeline ---------------------------------------------------------------

    def _run_sync(  # noqa: PLR0917 - internal, positional like _run
        self,
        name: str,
        tool: Tool | None,
        args: Any,
        ctx: ExecutionContext,
        call_id: str | None,
        timeout: float | None,
    ) -> ToolResult:
        if (
            tool is None or not self._plain or ctx.dry_run or ctx.permissions is not None
            or tool.max_concurrency is not None or tool.isolated
            or (not tool.cheap and (timeout is not None or tool.timeout is not None))
        ):  # fmt: skip
            return self._run_sync_full(name, tool, args, ctx, call_id, timeout)
        logged = logger.isEnabledFor(_TRACE)
        started = None
        if logged:
            _log_start(name, call_id, args)
            started = time.perf_counter()
        try:
            compiled = tool._compiled or tool.compile_()
            if compiled.validate_python is None:
                _check_depth(tool.name, args)
            result = _checked(compiled.run_sync(args, ctx))
        except Exception as exc:  # the runner validates first: its errors are the model's
            result = _rejected(tool, exc)
        if call_id is not None:
            result = result.for_call(call_id, name)
        if logged or not result.success:
            _log_outcome(name, result, started)
        return result

    def _run_sync_full(  # noqa: PLR0917 - internal, positional like _run
        self,
        name: str,
        tool: Tool | None,
        args: Any,
        ctx: ExecutionContext,
        call_id: str | None,
        timeout: float | None,
    ) -> ToolResult:
        call, compiled, result = self._prepare(name, tool, args, ctx, call_id, timeout)
        if result is None:
            result = self._before_hooks_sync(call)
            if result is None:
                if ctx.dry_run:
                    result = failures.dry_run(name)
                else:
                    enforce = timeout is not None or call.tool.timeout is not None  # type: ignore[union-attr]
                    result = self._execute_sync(call, compiled, enforce)
        result = self._after_hooks_sync(call, result)
        return self._outcome(call, result)

    def _execute_sync(self, call: ToolInvocation, compiled: Compiled, enforce: bool) -> ToolResult:
        tool: Tool = call.tool  # type: ignore[assignment]
        deadline = time.monotonic() + call.timeout
        held: list[Limiter] = []
        try:
            for limiter in self._limiters(tool):
                if not limiter.acquire_sync(deadline - time.monotonic()):
                    return failures.timeout(call.name, call.timeout)
                held.append(limiter)
            if tool.isolated:
                return self._isolated_sync(call, deadline)
            kwargs: dict[str, Any] = call.kwargs  # type: ignore[assignment]
            if tool.cheap or not enforce:
                return _checked(call_sync(tool, compiled, kwargs, call.context))
            running = self._submit(tool, compiled, kwargs, call.context)
            try:
                return _checked(running.result(timeout=max(deadline - time.monotonic(), 0)))
            except TimeoutError:
                self._abandon(running)
                return failures.timeout(call.name, call.timeout)
            except BaseException:
                self._abandon(running)
                raise
        finally:
            for limiter in reversed(held):
                limiter.release()

    def _isolated_sync(self, call: ToolInvocation, deadline: float) -> ToolResult:
        from forge.tools._isolation import IsolatedCall, target_of

        tool: Tool = call.tool  # type: ignore[assignment]
        try:
            target = target_of(tool)
        except ToolDefinitionError as exc:
            return failures.misconfigured(tool.name, exc)
        process = IsolatedCall(target, call.kwargs or {}, call.context)
        process.start()
        try:
            outcome = process.wait(max(deadline - time.monotonic(), 0))
        except BaseException:
            process.kill()
            raise
        if outcome is None:
            return failures.timeout(call.name, call.timeout)
        return _from_outcome(tool, outcome)

    def _before_hooks_sync(self, call: ToolInvocation) -> ToolResult | None:
        policies = self._policies(call.context)
        if policies:
            from forge.tools.permissions import authorize_sync

            decision = authorize_sync(
                _request(call), policies, call.context.approve or self._approve
            )
            if decision.action != "allow":
                return failures.denied(call.name, decision.reason)
        for hook in self._before:
            try:
                answer = _resolve(hook(call))
            except Exception:
                return _hook_failed(hook, call)
            if answer is not None:
                return _hook_result(hook, call, answer)
        return None

    def _after_hooks_sync(self, call: ToolInvocation, result: ToolResult) -> ToolResult:
        for hook in self._after:
            try:
                answer = _resolve(hook(call, result))
            except Exception:
                logger.exception("after_call hook %r failed for tool %r", hook, call.name)
                continue
            if isinstance(answer, ToolResult):
                result = answer
        return result

    def _finish_early_sync(
        self, name: str, args: Any, ctx: ExecutionContext, call_id: str | None, result: ToolResult
    ) -> ToolResult:
        call = self._invocation(name, self._get(name), args, ctx, call_id, None)
        if self._after:
            result = self._after_hooks_sync(call, result.for_call(call_id, name))
        return self._outcome(call, result)

    # -- shared steps -------------------------------------------------------------------

    def _invocation(  # noqa: PLR0917 - internal, positional like _run
        self,
        name: str,
        tool: Tool | None,
        args: Any,
        ctx: ExecutionContext,
        call_id: str | None,
        timeout: float | None,
    ) -> ToolInvocation:
        seconds = timeout or (tool.timeout if tool is not None else None) or ctx.timeout
        return ToolInvocation(
            name=name, tool=tool, arguments=args, kwargs=None, context=ctx, call_id=call_id,
            timeout=seconds, started=time.perf_counter(),
        )  # fmt: skip

    def _prepare(  # noqa: PLR0917 - internal, positional like _run
        self,
        name: str,
        tool: Tool | None,
        args: Any,
        ctx: ExecutionContext,
        call_id: str | None,
        timeout: float | None,
    ) -> tuple[ToolInvocation, Any, ToolResult | None]:
        """Lookup and validation; returns the invocation, the compiled tool or a failure."""
        call = self._invocation(name, tool, args, ctx, call_id, timeout)
        if logger.isEnabledFor(_TRACE):
            _log_start(name, call_id, args)
        if tool is None:
            return call, None, failures.unknown_tool(name, self._registry.names())
        try:
            compiled = tool._compiled or tool.compile_()
            call.kwargs = _validate(tool, compiled, args)
        except Exception as exc:
            return call, None, _rejected(tool, exc)
        return call, compiled, None

    def _outcome(self, call: ToolInvocation, result: ToolResult) -> ToolResult:
        if result.call_id != call.call_id or result.tool_name is None:
            result = result.for_call(call.call_id, result.tool_name or call.name)
        if not result.success or logger.isEnabledFor(_TRACE):
            _log_outcome(call.name, result, call.started)
        return result

    def _policies(self, ctx: ExecutionContext) -> tuple[PermissionPolicy, ...]:
        own, theirs = self._policy, ctx.permissions
        if own is None:
            return () if theirs is None else (theirs,)
        return (own,) if theirs is None or theirs is own else (own, theirs)

    def _limiters(self, tool: Tool) -> list[Limiter]:
        out = [] if self._limiter is None else [self._limiter]
        limit = tool.max_concurrency
        if limit is not None:
            limiter = self._tool_limiters.get(tool.name)
            if limiter is None or limiter.limit != limit:
                with self._lock:
                    limiter = self._tool_limiters.get(tool.name)
                    if limiter is None or limiter.limit != limit:
                        limiter = self._tool_limiters[tool.name] = Limiter(limit)
            out.append(limiter)
        return out

    def _threads(self) -> Workers:
        pool = self._pool
        if pool is None:
            with self._lock:
                pool = self._pool
                if pool is None:
                    pool = self._pool = Workers(self._max_threads)
        return pool

    def _submit(
        self, tool: Tool, compiled: Compiled, kwargs: dict[str, Any], ctx: ExecutionContext
    ) -> Future[ToolResult]:
        run = contextvars.copy_context().run
        return self._threads().submit(run, call_sync, tool, compiled, kwargs, ctx)

    def _abandon(self, running: Future[Any]) -> None:
        """Forget a thread's call; one still running is counted until it ends."""
        if running.cancel() or running.done():
            return
        self._abandoned.add(running)
        running.add_done_callback(self._abandoned.discard)


# -- helpers --------------------------------------------------------------------------------


def _check_limit(what: str, value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{what} must be a positive integer or None, got {value!r}")


def _cancelling() -> bool:
    """Whether the current task has been asked to cancel (not just hit a stray CancelledError)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _rejected(tool: Tool, exc: Exception) -> ToolResult:
    """Validation (or compilation) failed: the model's arguments, or the tool's definition."""
    if isinstance(exc, ToolValidationError):
        return invalid(tool.name, exc, tool)
    if isinstance(exc, ToolDefinitionError):
        return failures.misconfigured(tool.name, exc)
    # A validator that gives up (RecursionError on absurdly deep input, ...) still rejects.
    why = _TOO_DEEP if isinstance(exc, RecursionError) else f"rejected ({type(exc).__name__})"
    return invalid(tool.name, _validation_error(tool.name, why), tool)


MAX_DEPTH = 256
"""The deepest nesting of arguments accepted (deeper input can crash native validators)."""
_TOO_DEEP = f"the arguments are nested more than {MAX_DEPTH} levels deep"


def _validation_error(name: str, message: str) -> ToolValidationError:
    from forge.core.errors import FieldError

    return ToolValidationError(name, [FieldError(path="", kind="type", message=message)])


def _validate(tool: Tool, compiled: Compiled, args: Any) -> dict[str, Any]:
    """The tool's compiled validation, calling pydantic-core directly when it can."""
    validate_python = compiled.validate_python
    if validate_python is None:
        _check_depth(tool.name, args)
        return compiled.validate(args)
    if type(args) is dict:
        try:
            kwargs: dict[str, Any] = validate_python(args)[1]
        except Exception:
            return compiled.validate(args)  # raises ToolValidationError naming every field
        return kwargs
    return compiled.validate(args)


def _check_depth(name: str, args: Any) -> None:
    """Reject absurdly nested arguments before a native validator recurses into them.

    jsonschema-rs overflows the C stack (the process dies) on input nested some
    tens of thousands of levels deep under a recursive schema. JSON text parsed
    with `json` cannot get that deep, but Python callers can pass anything.
    """
    if not isinstance(args, Mapping):
        return
    stack = [(v, 2) for v in args.values() if isinstance(v, Mapping | list | tuple)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _validation_error(name, _TOO_DEEP)
        children = value.values() if isinstance(value, Mapping) else value
        stack.extend((v, depth + 1) for v in children if isinstance(v, Mapping | list | tuple))


def _checked(result: ToolResult) -> ToolResult:
    """Keep results a model can receive: JSON-able output, messages within the size limit."""
    if not result.success:
        error = result.error
        if error is not None and len(error) > failures.MAX_MESSAGE_CHARS:
            return result.replace(error=failures.limit(error))
        return result
    out = result.output
    if type(out) in _JSON_SCALARS:
        return result
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


def _from_outcome(tool: Tool, outcome: tuple[Any, ...]) -> ToolResult:
    if outcome[0] == "ok":
        return _checked(finish(outcome[1], tool.name))
    if outcome[0] == "error":
        _, type_name, message, trace = outcome
        return failures.exception_failure(tool.name, type_name, message, trace, tool.error_details)
    return failures.exception_failure(tool.name, "ProcessError", outcome[1], None, "message")


def _parse_json(name: str, text: str) -> Any:
    import json

    try:
        return json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError) as exc:
        return failures.invalid_json(name, str(exc)[:200])


def _coerce_call(item: Any) -> ToolCall | ToolResult:
    try:
        return ToolCall.coerce(item)
    except (TypeError, ValueError) as exc:
        name = item.get("name") if isinstance(item, Mapping) else None
        return ToolResult.fail(
            failures.limit(f"This tool call is malformed: {exc}. Send a call with a tool name "
                           "and a JSON object of arguments."),
            error_kind=ErrorKind.INVALID_JSON, retryable=True,
        ).for_call(None, name if isinstance(name, str) else None)  # fmt: skip


def _request(call: ToolInvocation) -> Any:
    from forge.tools.permissions import PermissionRequest

    return PermissionRequest(
        tool=call.tool,  # type: ignore[arg-type]
        arguments=call.kwargs or {},
        context=call.context,
        call_id=call.call_id,
    )


def _resolve(value: Any) -> Any:
    if inspect.isawaitable(value):
        return _run_coroutine(_await(value))
    return value


async def _await(awaitable: Any) -> Any:
    return await awaitable


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


def _log_outcome(name: str, result: ToolResult, started: float | None) -> None:
    took = f" in {(time.perf_counter() - started) * 1e3:.1f} ms" if started is not None else ""
    if result.success:
        logger.debug("Tool %.100s succeeded%s", name, took)
    elif logger.isEnabledFor(_FAILED):
        logger.info(
            "Tool %.100s failed (%s)%s: %.500s", name, result.error_kind, took, result.error
        )
