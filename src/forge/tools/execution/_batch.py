"""A batch of calls run concurrently, in call order: `ToolExecutor.execute_all` (internal).

Each call runs in a task of its own. A plain call of an async tool (no hooks,
policy, limit or dry run; arguments already decoded; TRACE logging off when
the batch starts) takes `Batch._fast`, `Engine._run`'s async branch written
into the task's own coroutine; every other call runs `Engine._run` or the
general pipeline. Both give the same results (``tests/unit/tools/
test_engine_rules.py`` runs batches on both executors it compares).

The batch waits on one future that the last call to finish resolves, rather
than on `asyncio.wait` (which adds a done callback, and a turn of the event
loop, per task). Cancelling the batch cancels every call and waits until they
have all stopped; a KeyboardInterrupt or SystemExit in one call cancels the
others, waits for them, then reaches the caller from the batch's task (asyncio
would otherwise raise it out of the event loop and leave tasks holding
unretrieved exceptions).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from forge.tools.execution import failures
from forge.tools.execution._deadline import Expired, guard
from forge.tools.execution._pipeline import ASYNC
from forge.tools.execution._placement import _NO_DEADLINE
from forge.tools.execution._run import JSON_SCALARS, _checked, failure, fault, finish, plain
from forge.tools.execution._steps import (
    TRACE,
    _cancelling,
    _log_outcome,
    _redacted,
    _rejected,
    _validate,
    logger,
)
from forge.tools.values import ok_result_for as _ok_for
from forge.tools.values.calls import ToolCall
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    from forge.tools.execution._pipeline import Engine
    from forge.tools.model.tool import Tool
    from forge.tools.values.context import ExecutionContext


class Batch:
    """The state of one `ToolExecutor.execute_all` batch run with ``parallel=True``."""

    __slots__ = ("_ctx", "_done", "_engine", "_fatal", "_left", "_results", "_tasks", "_timeout")

    def __init__(
        self, engine: Engine, size: int, ctx: ExecutionContext | None, timeout: float | None
    ) -> None:
        self._engine = engine
        self._ctx = ctx
        self._timeout = timeout
        self._results: list[Any] = [None] * size
        self._fatal: list[BaseException] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._done: asyncio.Future[None] | None = None
        self._left = 0

    async def run(self, items: list[ToolCall | ToolResult]) -> list[ToolResult]:
        """Run every call at once (inline sync tools need no task)."""
        engine, ctx = self._engine, self._ctx
        loop = asyncio.get_running_loop()
        tasks, results = self._tasks, self._results
        get, create_task = engine._get, loop.create_task
        fast = (
            engine._plain and (ctx is None or (not ctx.dry_run and ctx.permissions is None))
            and not logger.isEnabledFor(TRACE)
        )  # fmt: skip
        for index, item in enumerate(items):
            if fast and type(item) is ToolCall and item.argument_error is None:
                tool = get(item.name)
                if tool is not None and tool._plain:
                    args: Any = item.arguments
                    if tool.source.is_async:
                        if type(args) is dict:
                            tasks.append(create_task(self._fast(index, item, tool, args)))
                            continue
                    elif tool.cheap and type(args) is not str:  # inline: no task needed
                        results[index] = engine._fast_sync(item.name, tool, args, ctx, item.id)
                        continue
            elif engine._inline(item, ctx):  # inline sync tools need no task
                tool = get(item.name)
                results[index] = engine._fast_sync(item.name, tool, item.arguments, ctx, item.id)  # type: ignore[arg-type]
                continue
            tasks.append(create_task(self._call(index, item)))
        if tasks:
            self._left = len(tasks)  # none of them has started yet
            self._done = done = loop.create_future()
            try:
                await done
            except asyncio.CancelledError:
                for task in tasks:
                    task.cancel()
                await asyncio.wait(tasks)
                raise
        return await self._outcome()

    async def run_limited(self, items: list[ToolCall | ToolResult], limit: int) -> list[ToolResult]:
        """Run the calls on ``limit`` tasks, each taking the next call when it is free."""
        loop = asyncio.get_running_loop()
        order = iter(enumerate(items))

        async def worker() -> None:
            for index, item in order:
                await self._call(index, item, counted=False)

        self._tasks.extend(loop.create_task(worker()) for _ in range(limit))
        await wait_all(self._tasks)
        return await self._outcome()

    async def _outcome(self) -> list[ToolResult]:
        if self._fatal:  # the other calls were cancelled: wait until they have stopped
            await wait_all(self._tasks)
            raise self._fatal[0]
        return self._results

    async def _call(self, index: int, item: ToolCall | ToolResult, counted: bool = True) -> None:
        """One call through `Engine._run` (or the general path)."""
        engine, ctx, timeout = self._engine, self._ctx, self._timeout
        try:
            arguments: Any = getattr(item, "arguments", None)
            if type(arguments) is dict and getattr(item, "argument_error", None) is None:
                call: ToolCall = item  # type: ignore[assignment]
                result = await engine._run(call.name, arguments, ctx, call.id, timeout)
            else:
                result = await engine._entry_call(ASYNC, item, ctx, timeout)
            self._results[index] = result
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a fault of ours: this call fails, the batch goes on
            self._results[index] = _broken(item, exc)
        except BaseException as exc:
            self._stop(exc)
        finally:
            if counted:
                self._finished()

    async def _fast(self, index: int, call: ToolCall, tool: Tool, args: dict[str, Any]) -> None:
        """`Engine._run` for a plain call of an async tool, with TRACE logging off."""
        name, call_id, ctx = call.name, call.id, self._ctx
        try:
            try:
                compiled = tool._compiled or tool.compile_()
                kwargs = _validate(tool, compiled, args)
            except Exception as exc:
                result = _rejected(tool, exc)
            else:
                seconds = (
                    self._timeout or tool.timeout or (ctx.timeout if ctx is not None else None)
                )
                fn = compiled.fn
                try:
                    out = await guard(
                        fn(**kwargs) if fn is not None else compiled.invoke(kwargs, ctx),
                        seconds or _NO_DEADLINE,
                    )
                except Expired:
                    result = failures.timeout(name, seconds)  # type: ignore[arg-type]
                except asyncio.CancelledError:
                    if _cancelling():
                        raise
                    result = failures.cancelled(name)
                except Exception as exc:
                    result = failure(tool, exc)
                except BaseException as exc:
                    result = fault(tool, exc)
                else:
                    if type(out) in JSON_SCALARS and plain(out):
                        self._results[index] = _ok_for(out, name, call_id)
                        return
                    result = _checked(finish(out, name))
            if call_id is not None:
                result = result.for_call(call_id, name)
            if not result.success:
                result = _redacted(result, self._engine._redact)
                _log_outcome(name, result, None)
            self._results[index] = result
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a fault of ours: this call fails, the batch goes on
            self._results[index] = _broken(call, exc)
        except BaseException as exc:
            self._stop(exc)
        finally:
            self._finished()

    def _finished(self) -> None:
        """A task's call is over: the last one resolves the batch."""
        self._left -= 1
        done = self._done
        if not self._left and done is not None and not done.done():
            done.set_result(None)

    def _stop(self, exc: BaseException) -> None:
        """A KeyboardInterrupt (or a SystemExit from a hook): cancel every call, then raise it."""
        self._fatal.append(exc)
        for task in self._tasks:
            task.cancel()
        done = self._done
        if done is not None and not done.done():
            done.set_result(None)


def _broken(item: ToolCall | ToolResult, exc: Exception) -> ToolResult:
    """The failed result of a call that met an error inside forge-tools (logged with its trace)."""
    name = item.tool_name if isinstance(item, ToolResult) else item.name
    call_id = item.call_id if isinstance(item, ToolResult) else item.id
    logger.error("Tool %.100s could not run: internal error", name, exc_info=exc)
    return ToolResult.fail(
        f"Tool {name!r} could not run: an internal error ({type(exc).__name__}). Do not retry it.",
        error_kind=ErrorKind.TOOL_ERROR,
        retryable=False,
    ).for_call(call_id if isinstance(call_id, str) and call_id else "call_unknown", name)


async def wait_all(tasks: list[asyncio.Task[None]]) -> None:
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
