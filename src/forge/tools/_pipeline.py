"""What the two entry points of `ToolExecutor` share, and its sync path (internal)."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from forge.core.errors import ToolDefinitionError
from forge.tools import failures
from forge.tools._limits import Limiter
from forge.tools._run import call_sync
from forge.tools._steps import (
    TRACE,
    _checked,
    _from_outcome,
    _hook_failed,
    _hook_result,
    _log_outcome,
    _log_start,
    _rejected,
    _request,
    _resolve,
    _validate,
    logger,
)
from forge.tools._workers import Workers
from forge.tools.hooks import ToolInvocation
from forge.tools.results import ToolResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from forge.tools._sources import Compiled
    from forge.tools.context import ExecutionContext
    from forge.tools.permissions import Approver, PermissionPolicy
    from forge.tools.registry import ToolRegistry
    from forge.tools.tool import Tool


class Pipeline:
    """State and steps `ToolExecutor` builds on (internal)."""

    _registry: ToolRegistry
    _strict: bool
    _get: Callable[[str], Tool | None]
    _context: ExecutionContext
    _policy: PermissionPolicy | None
    _approve: Approver | None
    _limiter: Limiter | None
    _max_threads: int
    _lock: threading.Lock
    _tool_limiters: dict[str, Limiter]
    _pool: Workers | None
    _abandoned: set[Future[Any]]
    _hooks: tuple[Any, ...]
    _before: tuple[Any, ...]
    _after: tuple[Any, ...]
    _plain: bool

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
        logged = logger.isEnabledFor(TRACE)
        started = None
        if logged:
            _log_start(name, call_id, args)
            started = time.perf_counter()
        try:
            compiled = tool._compiled or tool.compile_()
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
        if logger.isEnabledFor(TRACE):
            _log_start(name, call_id, args)
        if tool is None:
            return call, None, failures.unknown_tool(name, self._registry.names())
        try:
            compiled = tool._compiled or tool.compile_()
            if self._strict and isinstance(args, Mapping):
                from forge.tools.formats.strict_args import restore_arguments

                args = restore_arguments(tool.parameters, args)
            call.kwargs = _validate(tool, compiled, args)
        except Exception as exc:
            return call, None, _rejected(tool, exc)
        return call, compiled, None

    def _outcome(self, call: ToolInvocation, result: ToolResult) -> ToolResult:
        if result.call_id != call.call_id or result.tool_name is None:
            result = result.for_call(call.call_id, result.tool_name or call.name)
        if not result.success or logger.isEnabledFor(TRACE):
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

    # -- async steps --------------------------------------------------------------------

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
