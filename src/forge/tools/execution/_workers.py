"""Worker threads for sync handlers called from async code.

`concurrent.futures.ThreadPoolExecutor` joins its threads when the
interpreter exits, so one handler that ignored its timeout would keep the
whole program from exiting. These workers are daemon threads: an abandoned
handler never blocks exit (it is stopped with the process, mid-work, like any
daemon thread). Threads start on demand, up to ``max_threads``, and stay idle
for reuse.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

__all__ = ["Workers"]

_STOP = None


class Workers:
    """A pool of daemon threads running submitted calls in order."""

    def __init__(self, max_threads: int, name: str = "forge-tool") -> None:
        self._max = max_threads
        self._name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        """Run ``fn(*args)`` on a worker; return its future."""
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the executor's worker threads are shut down")
            self._queue.put((future, fn, args))
            if self._idle > 0:
                self._idle -= 1
                return future
            if self._threads < self._max:
                self._threads += 1
                threading.Thread(
                    target=self._work, name=f"{self._name}-{self._threads}", daemon=True
                ).start()
        return future

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            future, fn, args = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as exc:  # delivered to whoever awaits the future
                    future.set_exception(exc)
                del future, fn, args, item
            with self._lock:
                self._idle += 1

    def shutdown(self) -> None:
        """Stop idle workers and drop queued calls; running ones finish in the background."""
        with self._lock:
            self._closed = True
            threads = self._threads
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not _STOP:
                item[0].cancel()
        for _ in range(threads):
            self._queue.put(_STOP)
