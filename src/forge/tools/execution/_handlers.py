"""Where a validated call's handler runs, and within what deadline (internal).

The engine (`forge.tools.execution._pipeline`) decides *whether* a call runs; this mixin
runs it: it takes the concurrency slots (the executor's and the tool's), then
runs the handler where the tool's placement (`forge.tools.model.tool.Placement`) and
the caller allow its deadline to hold:

* from async code (`HandlerRuns._run_async`): an async handler is awaited under
  the deadline; a sync one runs on a worker thread, abandoned at the deadline,
  or inline for ``placement="inline"``; ``placement="process"`` runs a child
  process that is killed at the deadline;
* from sync code (`HandlerRuns._run_blocking`, sync handlers only): on a worker
  thread when the call has a deadline, inline when it has none or the tool is
  placed inline.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import threading
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from forge.core.errors import ToolDefinitionError
from forge.tools.execution import failures
from forge.tools.execution._deadline import Expired, guard, plain
from forge.tools.execution._limits import Limiter
from forge.tools.execution._outcomes import (
    _checked,
    being_cancelled,
    call_sync,
    finish,
    handler_failed,
    start_async,
)
from forge.tools.execution._steps import _from_outcome
from forge.tools.execution._workers import Workers

if TYPE_CHECKING:
    from forge.tools.execution.backend import Backend
    from forge.tools.execution.hooks import ToolInvocation
    from forge.tools.model.tool import Tool
    from forge.tools.schema import Compiled
    from forge.tools.values.context import ExecutionContext
    from forge.tools.values.results import ToolResult

_NO_DEADLINE = math.inf


class HandlerRuns:
    """The concurrency limits and worker threads of an engine, and the handler runs."""

    def _init_handler_runs(
        self, max_concurrency: int | None, max_threads: int, backend: Backend | None = None
    ) -> None:
        self._backend = backend
        self._limiter = Limiter(max_concurrency) if max_concurrency is not None else None
        self._max_threads = max_threads
        self._lock = threading.Lock()
        self._tool_limiters: dict[str, Limiter] = {}
        self._pool: Workers | None = None
        self._abandoned: set[Future[Any]] = set()

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

    def _remote(self, tool: Tool) -> bool:
        """Whether the executor's backend runs this tool's calls."""
        return self._backend is not None and self._backend.accepts(tool)

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

    def _abandon(self, running: Future[Any], held: list[Limiter] | None = None) -> None:
        """Forget a thread's call; one still running is counted until it ends.

        The concurrency slots in ``held`` stay taken until the thread really ends
        (``held`` is emptied: its holder must not release them).
        """
        if held:
            kept = held[:]
            held.clear()
            running.add_done_callback(lambda _: _release(kept))
        if running.cancel() or running.done():
            return
        self._abandoned.add(running)
        running.add_done_callback(self._abandoned.discard)

    async def _run_async(self, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        """Take the concurrency slots and run the handler within the deadline (from async)."""
        limiters = self._limiters(call.tool)  # type: ignore[arg-type]
        waiting: list[Limiter] = []
        running = (
            self._limited(call, compiled, limiters, waiting)
            if limiters
            else self._invoke(call, compiled, [])
        )
        try:
            result: ToolResult = await guard(running, call.timeout or _NO_DEADLINE)
        except Expired:
            if waiting:
                return failures.no_slot(call.name, call.timeout, waiting[0].limit)  # type: ignore[arg-type]
            return failures.timeout(call.name, call.timeout)  # type: ignore[arg-type]
        except asyncio.CancelledError:
            if being_cancelled():
                raise
            return failures.cancelled(call.name)
        return result

    async def _limited(
        self, call: ToolInvocation, compiled: Compiled, limiters: list[Limiter],
        waiting: list[Limiter],
    ) -> ToolResult:  # fmt: skip
        held: list[Limiter] = []
        try:
            for limiter in limiters:
                waiting.append(limiter)
                await limiter.acquire()
                waiting.pop()
                held.append(limiter)
            return await self._invoke(call, compiled, held)
        finally:
            _release(held)

    async def _invoke(
        self, call: ToolInvocation, compiled: Compiled, held: list[Limiter]
    ) -> ToolResult:
        """Run the handler; ``held`` are the slots it took (kept by a thread left running)."""
        tool: Tool = call.tool  # type: ignore[assignment]
        kwargs: dict[str, Any] = call.kwargs  # type: ignore[assignment]
        if self._remote(tool):
            return await self._backend.run(call, compiled)  # type: ignore[union-attr]
        if tool.placement == "process":
            return await self._isolated(call)
        if tool.source.is_async:
            try:
                out = await start_async(compiled, kwargs, call.context)
            except BaseException as exc:
                return _checked(handler_failed(tool, exc))
            return _checked(finish(out, tool.name))
        if tool.placement == "inline":
            return _checked(call_sync(tool, compiled, kwargs, call.context))
        running = self._submit(tool, compiled, kwargs, call.context)
        try:
            return _checked(await asyncio.wrap_future(running))
        except BaseException:
            self._abandon(running, held)
            raise

    async def _isolated(self, call: ToolInvocation) -> ToolResult:
        from forge.tools.execution._isolation import IsolatedCall, target_of

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

    def _run_blocking(self, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        """Take the slots and run a sync handler from sync code, within the deadline."""
        tool: Tool = call.tool  # type: ignore[assignment]
        seconds = call.timeout
        deadline = None if seconds is None else time.monotonic() + seconds
        held: list[Limiter] = []
        try:
            for limiter in self._limiters(tool):
                if not limiter.acquire_sync(_left(deadline)):
                    return failures.no_slot(call.name, seconds, limiter.limit)  # type: ignore[arg-type]
                held.append(limiter)
            kwargs: dict[str, Any] = call.kwargs  # type: ignore[assignment]
            if tool.placement == "inline" or deadline is None:
                return _checked(call_sync(tool, compiled, kwargs, call.context))
            running = self._submit(tool, compiled, kwargs, call.context)
            try:
                return _checked(running.result(timeout=_left(deadline)))
            except TimeoutError:
                self._abandon(running, held)
                return failures.timeout(call.name, seconds)  # type: ignore[arg-type]
            except BaseException:
                self._abandon(running, held)
                raise
        finally:
            _release(held)

    async def _await_thread(
        self, tool: Tool, compiled: Compiled, kwargs: dict[str, Any],
        ctx: ExecutionContext | None, seconds: float | None,
    ) -> ToolResult:  # fmt: skip
        running = self._submit(tool, compiled, kwargs, ctx)  # type: ignore[arg-type]
        try:
            result: ToolResult = await guard(asyncio.wrap_future(running), seconds or _NO_DEADLINE)
        except Expired:
            self._abandon(running)
            return failures.timeout(tool.name, plain(seconds))  # type: ignore[arg-type]
        except asyncio.CancelledError:
            self._abandon(running)
            if being_cancelled():
                raise
            return failures.cancelled(tool.name)
        return _checked(result)


def _release(held: list[Limiter]) -> None:
    for limiter in reversed(held):
        limiter.release()


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - time.monotonic(), 0)
