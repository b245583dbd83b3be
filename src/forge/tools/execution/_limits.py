"""A concurrency limit shared by threads and event loops (EX-6).

`asyncio.Semaphore` belongs to one event loop and `threading.Semaphore`
blocks the loop, but one executor serves sync callers on many threads and
async callers on any loop. `Limiter` counts under a lock and hands a freed
slot straight to the oldest waiter, whichever kind it is, so waiters are
served in order and a slot is never lost to a cancelled waiter.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from typing import Any

__all__ = ["Limiter"]


class Limiter:
    """At most ``limit`` holders at once; FIFO across threads and event loops."""

    __slots__ = ("_active", "_lock", "_waiters", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._active = 0
        self._lock = threading.Lock()
        # Each waiter is (loop, future) for async code or (None, lock) for a thread.
        self._waiters: deque[tuple[Any, Any]] = deque()

    @property
    def active(self) -> int:
        """How many holders there are now."""
        return self._active

    async def acquire(self) -> None:
        """Wait for a slot (cancellable: a cancelled waiter never keeps a slot)."""
        with self._lock:
            if self._active < self.limit and not self._waiters:
                self._active += 1
                return
            loop = asyncio.get_running_loop()
            waiter = (loop, loop.create_future())
            self._waiters.append(waiter)
        future = waiter[1]
        try:
            await future
        except BaseException:
            self._abandon(waiter, granted=future.done() and not future.cancelled())
            raise

    def acquire_sync(self, timeout: float | None) -> bool:
        """Block until a slot is free or ``timeout`` seconds pass; return whether acquired."""
        with self._lock:
            if self._active < self.limit and not self._waiters:
                self._active += 1
                return True
            gate = threading.Lock()
            gate.acquire()
            waiter = (None, gate)
            self._waiters.append(waiter)
        if gate.acquire(timeout=-1 if timeout is None else max(timeout, 0)):
            return True
        self._abandon(waiter, granted=True)
        return False

    def _abandon(self, waiter: tuple[Any, Any], *, granted: bool) -> None:
        with self._lock:
            try:
                self._waiters.remove(waiter)
            except ValueError:
                pass  # already handed a slot (or a grant is on its way)
            else:
                return
        if granted:
            self.release()
        # else: the grant callback finds the future cancelled and releases the slot itself

    def release(self) -> None:
        """Give the slot to the oldest waiter, or free it."""
        with self._lock:
            if not self._waiters:
                self._active -= 1
                return
            loop, target = self._waiters.popleft()
        if loop is None:
            target.release()
        elif asyncio._get_running_loop() is loop:
            self._grant(target)
        else:
            loop.call_soon_threadsafe(self._grant, target)

    def _grant(self, future: asyncio.Future[None]) -> None:
        if future.done():  # cancelled while the slot was on its way
            self.release()
        else:
            future.set_result(None)
