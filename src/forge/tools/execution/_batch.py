"""A batch of calls run concurrently, in call order: `ToolExecutor.execute_all` (internal).

Each call runs through the engine's async entry (`Engine.run`, which takes the
fast path for a plain call), so a call in a batch gives the result it gives
alone: in a task of its own, or, for a tool placed ``inline`` (it runs on the
caller's thread and never waits), in the batch's task, which saves a task per call.

The batch waits on one future that the last call to finish resolves, rather
than on `asyncio.wait` (which adds a done callback, and a turn of the event
loop, per task). Cancelling the batch cancels every call and waits until they
have all stopped; a KeyboardInterrupt or SystemExit in one call cancels the
others, waits for them, then reaches the caller from the batch's task (asyncio
would otherwise raise it out of the event loop and leave tasks holding
unretrieved exceptions).

The calls of a batch start together, so they share their deadlines: the calls
that may take the same number of seconds get one `Shared` deadline, with one
timer from the start of the batch instead of one per call
(`forge.tools.execution._deadline`).
A call that swallows its cancellation at the deadline gets its timeout result
at once and runs on in the background; the batch does not wait for it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from forge.tools.execution import failures
from forge.tools.execution._deadline import Shared
from forge.tools.execution._outcomes import seconds_for
from forge.tools.execution._pipeline import ASYNC
from forge.tools.execution._steps import logger
from forge.tools.values.calls import ToolCall
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    from forge.tools.execution._pipeline import Engine
    from forge.tools.values.context import ExecutionContext


class Batch:
    """The state of one `ToolExecutor.execute_all` batch run with ``parallel=True``."""

    __slots__ = (
        "_behind", "_ctx", "_done", "_engine", "_fatal", "_items", "_left", "_results",
        "_shared", "_slots", "_tasks", "_timeout",
    )  # fmt: skip

    def __init__(
        self, engine: Engine, size: int, ctx: ExecutionContext | None, timeout: float | None
    ) -> None:
        self._engine = engine
        self._ctx = ctx
        self._timeout = timeout
        self._results: list[Any] = [None] * size
        self._fatal: list[BaseException] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._slots: list[int] = []  # the index of each task's call
        self._items: list[ToolCall | ToolResult] = []
        self._shared: dict[float, Shared] = {}  # one deadline per length, shared by the calls
        self._behind: set[int] = set()  # calls left running past their deadline
        self._done: asyncio.Future[None] | None = None
        self._left = 0

    async def run(self, items: list[ToolCall | ToolResult]) -> list[ToolResult]:
        """Run every call at once, each in a task of its own, except the calls of tools
        placed ``inline`` with a sync handler: those run here, in order, as they never wait."""
        loop = asyncio.get_running_loop()
        tasks, slots, create_task, call = self._tasks, self._slots, loop.create_task, self._call
        ctx, timeout, shared = self._ctx, self._timeout, self._shared
        get = self._engine._get
        last: Any = None  # the tool of the latest call run in a task, and its deadline
        seconds = timeout
        self._items = items
        try:
            for index, item in enumerate(items):
                if self._fatal:
                    break
                tool = get(item.name) if type(item) is ToolCall else None
                if tool is None:
                    seconds, last = timeout, None
                elif tool is not last:  # the deadline of the calls of this tool
                    if tool.placement == "inline" and not tool.source.is_async:
                        await call(index, item, timeout, counted=False)
                        continue
                    last, seconds = tool, seconds_for(tool, ctx, timeout)
                    if seconds:
                        seconds = shared.get(seconds) or self._share(seconds)
                tasks.append(create_task(call(index, item, seconds)))
                slots.append(index)
            if tasks and not self._fatal:
                self._left = len(tasks)  # none of them has started yet
                self._done = done = loop.create_future()
                await done
        except asyncio.CancelledError:
            running = self._running()
            for task in running:
                task.cancel()
            if running:
                await asyncio.wait(running)
            raise
        finally:
            for deadline in shared.values():
                deadline.close()
            shared.clear()
        return await self._outcome()

    async def run_limited(self, items: list[ToolCall | ToolResult], limit: int) -> list[ToolResult]:
        """Run the calls on ``limit`` tasks, each taking the next call when it is free."""
        loop = asyncio.get_running_loop()
        order = iter(enumerate(items))
        timeout = self._timeout

        async def worker() -> None:
            for index, item in order:
                await self._call(index, item, timeout, counted=False)

        self._tasks.extend(loop.create_task(worker()) for _ in range(limit))
        await wait_all(self._tasks)
        return await self._outcome()

    async def _outcome(self) -> list[ToolResult]:
        if self._fatal:  # the other calls were cancelled: wait until they have stopped
            await wait_all(self._running())
            raise self._fatal[0]
        return self._results

    def _share(self, seconds: float) -> Shared:
        """The deadline of the calls that may take ``seconds``: one timer, not one per call."""
        loop = asyncio.get_running_loop()
        self._shared[seconds] = deadline = Shared(seconds, loop, self._left_running)
        return deadline

    def _running(self) -> list[asyncio.Task[None]]:
        """The tasks the batch waits for (not those left running past their deadline)."""
        behind = self._behind
        if not behind:
            return self._tasks
        return [t for t, i in zip(self._tasks, self._slots, strict=False) if i not in behind]

    async def _call(
        self, index: int, item: ToolCall | ToolResult, timeout: float | None, counted: bool = True
    ) -> None:
        """One call through the engine's async entry."""
        engine, ctx = self._engine, self._ctx
        try:
            if (
                type(item) is ToolCall and item.argument_error is None
                and type(item.arguments) is dict
            ):  # fmt: skip
                # positional: a call with keywords is not specialised (see `Engine.run`)
                result = await engine.run(item.name, item.arguments, ctx, item.id, timeout)
            else:
                result = await engine._entry_call(ASYNC, item, ctx, timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a fault of ours: this call fails, the batch goes on
            result = _broken(item, exc)
        except BaseException as exc:
            self._stop(exc)
            return
        finally:
            behind = self._behind
            if counted and not (behind and index in behind):
                self._finished()
        if not (self._behind and index in self._behind):
            self._results[index] = result

    def _finished(self) -> None:
        """A task's call is over: the last one resolves the batch."""
        self._left -= 1
        done = self._done
        if not self._left and done is not None and not done.done():
            done.set_result(None)

    def _left_running(self, task: asyncio.Task[Any], seconds: float) -> None:
        """A call swallowed its cancellation at its deadline: it times out now, and runs on."""
        index = self._slots[self._tasks.index(task)]
        if index in self._behind:
            return
        self._behind.add(index)
        item = self._items[index]
        assert type(item) is ToolCall  # only calls of known tools share a deadline
        failed = failures.timeout(item.name, seconds)
        self._results[index] = self._engine._settled(failed, item.name, item.id, None)
        self._finished()

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
