"""Call deadlines that cost nothing until a call actually waits (EX-4).

`asyncio.timeout` costs about 4 µs per use here: it schedules and cancels a
timer handle on every call, three times the cost of a validated call. Most
tool calls either finish without ever suspending (pure computation) or wait
for real I/O, so `guard` drives the awaitable itself and arms a deadline only
at its first suspension. Deadlines are kept in one `_Wheel` per event loop
that holds a single timer for the earliest deadline; arming is a set insert.

When a deadline passes, the wheel cancels the task running the call (as
`asyncio.timeout` does) and `guard` turns that cancellation into `Expired`;
if the task was also cancelled from outside, the `CancelledError` wins.

A handler that swallows that cancellation and keeps awaiting would hold the
caller past its deadline (``asyncio.timeout`` waits for it). `guard` does not
wait: it moves the rest of the handler to a task of its own, cancels that task
once more, logs a warning and raises `Expired` at once. The detached task
keeps running on the same event loop until the handler ends (`abandoned_tasks`
counts them); it still holds the concurrency slots of its call until then. A
handler that never awaits again blocks its event loop, and nothing in the
process can pre-empt it: place such tools in a ``process``.

The calls of a batch start together, and share their deadlines instead: a
`Shared` is a call's seconds that `guard` recognises. Its one timer starts with
the batch, so each call's deadline counts from the start of the batch, and a
call under it is awaited directly, not step by step. At the deadline the timer
cancels every call still running; one that swallows the cancellation is left
behind, and the batch, which owns the task, stops waiting for it (the
``on_left_behind`` callback).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import math
import threading
import types
import weakref
from collections.abc import Callable, Generator
from typing import Any

__all__ = ["Expired", "Shared", "abandoned_tasks", "guard", "plain"]

_INF = math.inf
_Coroutine = types.CoroutineType


class Expired(Exception):
    """The deadline of the guarded call passed (internal: the engine returns a timeout result)."""


class _Entry:
    __slots__ = ("cancelling", "expired", "task", "when")

    def __init__(self, when: float, task: asyncio.Task[Any], cancelling: int) -> None:
        self.when = when
        self.task = task
        self.cancelling = cancelling
        self.expired = False


class _Wheel:
    """Every armed deadline of one event loop, behind one timer for the earliest."""

    __slots__ = ("__weakref__", "_entries", "_handle", "_loop", "_wake_at")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = weakref.ref(loop)
        self._entries: set[_Entry] = set()
        self._handle: asyncio.TimerHandle | None = None
        self._wake_at = _INF

    def discard(self, entry: _Entry) -> None:
        entries = self._entries
        entries.discard(entry)
        if not entries and self._handle is not None:
            # The timer holds its loop: kept past the last deadline it would keep the loop
            # (the key of `_wheels`) alive for ever, one leaked loop per private event loop.
            self._handle.cancel()
            self._handle = None
            self._wake_at = _INF

    def _schedule(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._wake_at = when
        self._handle = loop.call_at(when, self._fire)

    def _fire(self) -> None:
        self._handle = None
        self._wake_at = _INF
        loop = self._loop()
        if loop is None:  # pragma: no cover - a timer cannot fire on a collected loop
            return
        now = loop.time()
        earliest = _INF
        for entry in list(self._entries):
            if entry.when <= now:
                self._entries.discard(entry)
                entry.expired = True
                entry.task.cancel()
            elif entry.when < earliest:
                earliest = entry.when
        if earliest < _INF:
            self._schedule(loop, earliest)


class Shared(float):
    """The deadline of the calls of one batch that may take the same number of seconds.

    It is that number (a `float`), so every rule that reads a call's timeout reads
    it unchanged; only `guard` tells it apart. Its one timer starts when it is made,
    at the start of the batch. ``on_left_behind`` is called with the task of a call
    that swallowed its cancellation at the deadline, and the seconds. Call `close`
    when the batch is over.
    """

    __slots__ = ("_expired", "_given", "_holding", "_left_behind", "_loop", "_timer")

    _given: float
    _loop: asyncio.AbstractEventLoop
    _holding: set[asyncio.Task[Any]]  # the calls awaited under it now
    _expired: dict[asyncio.Task[Any], int]  # those it cancelled: task -> its cancelling count
    _timer: asyncio.TimerHandle
    _left_behind: Callable[[asyncio.Task[Any], float], None]

    def __new__(
        cls,
        seconds: float,
        loop: asyncio.AbstractEventLoop,
        on_left_behind: Callable[[asyncio.Task[Any], float], None],
    ) -> Shared:
        self = super().__new__(cls, seconds)
        self._given = seconds
        self._loop = loop
        self._holding = set()
        self._expired = {}
        self._left_behind = on_left_behind
        self._timer = loop.call_later(seconds, self._fire)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self._given), (self._given,))  # a copy is the plain number

    def _fire(self) -> None:
        expired = self._expired
        for task in list(self._holding):
            cancelling = task.cancelling()
            if not cancelling:  # (one cancelled from outside already: that cancellation wins)
                expired[task] = cancelling
                task.cancel()
        if expired:
            self._loop.call_soon(self._check, list(expired))

    def _check(self, tasks: list[asyncio.Task[Any]]) -> None:
        """After the cancelled calls have had their step: those still running swallowed it."""
        for task in tasks:
            if task in self._holding and task in self._expired:
                _left_behind_task(task)
                self._left_behind(task, self._given)

    def close(self) -> None:
        """The batch is over: stop the timer (a call left behind runs on, unbounded)."""
        self._timer.cancel()


def plain(seconds: float | None) -> float | None:
    """The number a deadline was given as (a `Shared` becomes its plain number)."""
    return seconds._given if type(seconds) is Shared else seconds


_running_loop = asyncio.get_running_loop


def _python_current_task() -> Callable[[Any], Any]:
    """The fastest way to ask for the running task (3.11 implements it in Python)."""
    table = getattr(asyncio.tasks, "_current_tasks", None)
    if inspect.isfunction(asyncio.current_task) and isinstance(table, dict):
        return table.get  # what asyncio.current_task(loop) returns, one call less
    return asyncio.current_task


_current_task = _python_current_task()

_wheels: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Wheel] = weakref.WeakKeyDictionary()
_wheels_lock = threading.Lock()
_last: tuple[Any, Any] = (None, None)  # (loop, wheel) of the latest lookup: one atomic read


def _wheel_for(loop: asyncio.AbstractEventLoop) -> _Wheel:
    global _last  # noqa: PLW0603 - a one-entry cache in front of the per-loop table
    last = _last
    if last[0] is loop:
        wheel: _Wheel = last[1]
        return wheel
    with _wheels_lock:
        wheel = _wheels.get(loop) or _wheels.setdefault(loop, _Wheel(loop))
    _last = (loop, wheel)
    return wheel


@types.coroutine
def guard(awaitable: Any, seconds: float) -> Generator[Any, None, Any]:  # noqa: PLR0915
    """Await ``awaitable`` within ``seconds``; raise `Expired` when the deadline passes.

    Use as ``await guard(coro, seconds)``. The deadline is armed at the first
    suspension: an awaitable that completes without suspending costs only the
    call. On expiry the handler receives `asyncio.CancelledError`, exactly as
    under `asyncio.timeout`. A `Shared` deadline is already armed by its batch.
    (One generator for both: a helper would add a frame to every step of every call.)
    """
    it: Any = awaitable if type(awaitable) is _Coroutine else awaitable.__await__()
    if type(seconds) is Shared:
        task = _current_task(seconds._loop)
        if task is not None:  # awaited directly: the batch owns the task, and a call left behind
            holding = seconds._holding
            holding.add(task)
            try:
                value = yield from it
            except asyncio.CancelledError:
                holding.discard(task)
                cancelling = seconds._expired.pop(task, None)
                if cancelling is not None and task.uncancel() <= cancelling:
                    raise Expired from None
                raise
            except BaseException:
                holding.discard(task)
                raise
            holding.discard(task)
            if seconds._expired and seconds._expired.pop(task, None) is not None:
                task.uncancel()  # it swallowed the cancellation, then returned
                raise Expired
            return value
    try:
        pending = it.send(None)
    except StopIteration as stop:
        return stop.value
    loop = _running_loop()
    task = _current_task(loop)
    if task is None:  # driven outside a task: nothing could be cancelled
        yield pending
        return (yield from it)
    entry = _Entry(loop.time() + seconds, task, task.cancelling())
    last = _last
    wheel: _Wheel = last[1] if last[0] is loop else _wheel_for(loop)
    wheel._entries.add(entry)
    if entry.when < wheel._wake_at:
        wheel._schedule(loop, entry.when)
    try:
        while True:  # driven step by step: a handler that swallows its expiry is seen
            try:
                yield pending
            except GeneratorExit:
                it.close()
                raise
            except BaseException as exc:  # delivered by the task (cancellation): pass it on
                pending = it.throw(exc)
                if entry.expired:  # the handler swallowed its deadline: leave it behind
                    _detach(it, pending, loop)
                    task.uncancel()
                    raise Expired from None
                continue
            pending = it.send(None)
    except StopIteration as stop:  # the awaitable finished
        value = stop.value
    except asyncio.CancelledError:
        if entry.expired and task.uncancel() <= entry.cancelling:
            raise Expired from None
        raise
    finally:
        wheel.discard(entry)
    if entry.expired:  # the handler swallowed the cancellation: the deadline still passed
        task.uncancel()
        raise Expired
    return value


_detached: set[asyncio.Task[Any]] = set()


def abandoned_tasks() -> int:
    """How many handlers that ignored their deadline are still running in the background."""
    return len(_detached)


@types.coroutine
def _rest(it: Any, pending: Any) -> Generator[Any, None, Any]:
    """Drive an awaitable from where ``guard`` left it (``pending`` is what it waits on)."""
    try:
        while True:
            try:
                yield pending
            except GeneratorExit:
                it.close()
                raise
            except BaseException as exc:
                pending = it.throw(exc)
                continue
            pending = it.send(None)
    except StopIteration as stop:
        return stop.value


async def _finish(it: Any, pending: Any) -> None:
    with contextlib.suppress(BaseException):
        await _rest(it, pending)


def _detach(it: Any, pending: Any, loop: asyncio.AbstractEventLoop) -> None:
    _left_behind_task(loop.create_task(_finish(it, pending)))


def _left_behind_task(left: asyncio.Task[Any]) -> None:
    """Count a task running a handler past its deadline, tell it once more, and warn."""
    from forge.core.logging import get_logger

    _detached.add(left)
    left.add_done_callback(_detached.discard)
    left.get_loop().call_soon(left.cancel)  # after its next step: the handler is told once more
    get_logger("tools.executor").warning(
        "A tool handler ignored the cancellation at its deadline; it keeps running in the "
        "background until it ends (now %d of them)",
        len(_detached),
    )
