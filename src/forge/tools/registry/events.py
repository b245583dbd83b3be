"""What a registry tells its listeners after each change (`RegistryEvent`), and how (`Events`).

Every listener gets the events in version order, whichever threads made the changes;
a change returns once its events are delivered, except a change made by a listener,
whose events follow the one being delivered.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from forge.core.logging import get_logger

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["EVENTS", "EventType", "Events", "Listener", "RegistryEvent"]

logger = get_logger("tools.registry")

EventType = Literal["registered", "updated", "removed", "cleared"]
EVENTS: tuple[EventType, ...] = ("registered", "updated", "removed", "cleared")
Listener = Callable[["RegistryEvent"], Any]


@dataclass(frozen=True, slots=True)
class RegistryEvent:
    """What changed in a registry; delivered to listeners after the change is visible.

    Every listener gets the events in version order, whichever threads made the
    changes; a change returns once its events are delivered, except a change made
    by a listener, whose events follow the one being delivered.
    """

    type: EventType
    """``registered``, ``updated``, ``removed`` or ``cleared``."""
    name: str | None
    """The tool's name (``None`` for ``cleared``)."""
    tool: Tool | None
    """The tool now registered (``None`` for ``removed`` and ``cleared``)."""
    previous: Tool | None
    """The tool that was replaced or removed, if any."""
    version: int
    """The registry version after the change."""


class Events:
    """A registry's listeners and the queue of events not yet delivered to them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: deque[RegistryEvent] = deque()
        self._delivering = threading.Lock()
        self._deliverer: int | None = None
        self._listeners: dict[str, tuple[Listener, ...]] = dict.fromkeys(EVENTS, ())

    def on(self, event: EventType, listener: Listener) -> None:
        """Call ``listener(event)`` after each change of this type."""
        _check_event(event)
        with self._lock:
            self._listeners[event] = (*self._listeners[event], listener)

    def off(self, event: EventType, listener: Listener) -> None:
        """Stop calling ``listener`` for this event type (no error if it was not subscribed)."""
        _check_event(event)
        with self._lock:
            current = self._listeners[event]
            if listener in current:
                index = current.index(listener)
                self._listeners[event] = current[:index] + current[index + 1 :]

    def queue(self, event: RegistryEvent) -> None:
        """Queue an event (under the writer's lock, so the queue is in version order)."""
        self._pending.append(event)

    def deliver(self) -> None:
        """Deliver queued events in version order, one deliverer at a time.

        A writer returns only once its events are delivered (by itself or by the
        thread delivering when it wrote). A change made by a listener is queued
        and delivered after the event being delivered, never in the middle of it.
        """
        me = threading.get_ident()
        if self._deliverer == me:
            return
        with self._delivering:
            self._deliverer = me
            try:
                pending = self._pending
                while pending:
                    self._emit(pending.popleft())
            finally:
                self._deliverer = None

    def _emit(self, event: RegistryEvent) -> None:
        for listener in self._listeners[event.type]:
            try:
                listener(event)
            except Exception:
                logger.exception("registry listener %r failed on %s event", listener, event.type)


def _check_event(event: str) -> None:
    if event not in EVENTS:
        raise ValueError(f"unknown registry event {event!r}; use one of: {', '.join(EVENTS)}")
