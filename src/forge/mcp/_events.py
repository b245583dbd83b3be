"""The last SSE events of the HTTP server in memory, so a client whose stream dropped can resume.

With an event store, the SDK's streamable HTTP transport starts every SSE
response with a priming event (an event id and empty data, plus the ``retry``
interval) and replays the events a client missed when it reconnects with
``Last-Event-ID`` (SEP-1699). The store is bounded by a count of events, so a
long-running server never grows: a client that comes back after its events
were dropped gets no replay and retries its request.
"""

from __future__ import annotations

import itertools
import uuid
from collections import OrderedDict
from typing import TYPE_CHECKING

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

if TYPE_CHECKING:
    from mcp_types import JSONRPCMessage

__all__ = ["DEFAULT_MAX_EVENTS", "DEFAULT_RETRY_MS", "RecentEvents"]

DEFAULT_MAX_EVENTS = 4096
"""Events kept for replay (all streams together)."""
DEFAULT_RETRY_MS = 1000
"""The ``retry`` interval suggested to clients, in milliseconds."""


class RecentEvents(EventStore):
    """An `EventStore` keeping the last ``max_events`` events of all streams.

    Event ids are unique to this store (a random prefix and a counter), so an id
    from before a server restart is simply unknown.
    """

    def __init__(self, max_events: int = DEFAULT_MAX_EVENTS) -> None:
        if max_events < 1:
            raise ValueError(f"max_events must be at least 1, not {max_events}")
        self.max_events = max_events
        self._events: OrderedDict[str, tuple[str, JSONRPCMessage | None]] = OrderedDict()
        self._prefix = uuid.uuid4().hex[:12]
        self._counter = itertools.count()

    @property
    def size(self) -> int:
        """How many events are kept now (the SDK tests the store's truth, so no ``__len__``)."""
        return len(self._events)

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        """Keep one event (``None``: a priming event) and return its id."""
        event_id = f"{self._prefix}-{next(self._counter)}"
        self._events[event_id] = (stream_id, message)
        if len(self._events) > self.max_events:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(
        self, last_event_id: str, send_callback: EventCallback
    ) -> str | None:
        """Send the stream's events after ``last_event_id``; return the stream id (or ``None``)."""
        found = self._events.get(last_event_id)
        if found is None:
            return None
        stream_id = found[0]
        later = False
        for event_id, (stream, message) in list(self._events.items()):
            if later and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
            later = later or event_id == last_event_id
        return stream_id
