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
itself as the generator; `forge.tools.execution._pipeline` builds the execution engine
on it, and `forge.tools.registry.factories` the instance lifecycle.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["ASYNC_WAIT", "BLOCKING_WAIT", "Waiter", "complete"]

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
        from forge.tools.execution._run import _run_coroutine

        return _run_coroutine(_awaited(value))

    async def future(self, future: Future[Any]) -> Any:
        return future.result()


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


ASYNC_WAIT: Waiter = _AsyncWait()
BLOCKING_WAIT: Waiter = _BlockingWait()
