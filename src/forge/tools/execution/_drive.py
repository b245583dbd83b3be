"""Write a procedure once for sync and async callers (internal).

A procedure that has to wait (for an awaitable a user's hook returned, or for
a future another thread completes) is written as a coroutine that waits only
through a `Waiter` it is given:

* `ASYNC_WAIT` awaits, as any coroutine would;
* `BLOCKING_WAIT` blocks the calling thread instead of suspending (an
  awaitable runs on a private event loop). A coroutine that waits only through
  it never suspends, so `complete` runs it to its end in one step and returns
  its value to sync code.

This is the sans-IO idea (one procedure, two thin drivers) with the coroutine
itself as the generator. `run_coroutine` is the private event loop a sync
caller runs async work on; `forge.tools.execution._pipeline` builds the execution engine
on it, and `forge.tools.registry.factories` the instance lifecycle.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["ASYNC_WAIT", "BLOCKING_WAIT", "Waiter", "complete", "run_coroutine"]

T = TypeVar("T")


def complete(procedure: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that waits only through `BLOCKING_WAIT` (it never suspends)."""
    try:
        procedure.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    procedure.close()
    raise RuntimeError("a blocking procedure suspended; this is a bug in forge-tools")


class Waiter(ABC):
    """How a procedure waits; `ASYNC_WAIT` awaits, `BLOCKING_WAIT` blocks."""

    @abstractmethod
    async def resolve(self, value: Any) -> Any:
        """``value``, or its result when it is awaitable."""

    @abstractmethod
    async def future(self, future: Future[Any]) -> Any:
        """The result of a future completed by another thread."""


class _AsyncWait(Waiter):
    async def resolve(self, value: Any) -> Any:
        return await value if inspect.isawaitable(value) else value

    async def future(self, future: Future[Any]) -> Any:
        import asyncio

        return await asyncio.wrap_future(future)


class _BlockingWait(Waiter):
    async def resolve(self, value: Any) -> Any:
        if not inspect.isawaitable(value):
            return value
        return run_coroutine(_awaited(value))

    async def future(self, future: Future[Any]) -> Any:
        return future.result()


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


ASYNC_WAIT: Waiter = _AsyncWait()
BLOCKING_WAIT: Waiter = _BlockingWait()


def run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` on a private event loop (on a helper thread if this one runs a loop)."""
    import asyncio
    import concurrent.futures
    import contextvars

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_private(coro)
    run = contextvars.copy_context().run  # the caller's context (a current span) goes along
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="forge-sync") as pool:
        return pool.submit(run, _run_private, coro).result()


def _run_private(coro: Coroutine[Any, Any, Any]) -> Any:
    """`asyncio.run`, except that it never waits for handlers left behind at their deadline.

    `asyncio.run` cancels the tasks still running at the end and waits for them;
    a handler that ignores cancellation would hold the sync caller past its
    deadline. Here such tasks keep the loop, on a daemon thread, until they end.
    """
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        _close(loop)


def _close(loop: Any) -> None:
    import asyncio
    import threading

    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in left:
        task.cancel()
    if left:
        loop.run_until_complete(asyncio.wait(left, timeout=0))
        left = [task for task in left if not task.done()]
    if left:
        threading.Thread(target=_drain, args=(loop, left), daemon=True).start()
        return
    _shut(loop)


def _drain(loop: Any, left: list[Any]) -> None:
    import asyncio

    loop.run_until_complete(asyncio.wait(left))
    _shut(loop)


def _shut(loop: Any) -> None:
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()
