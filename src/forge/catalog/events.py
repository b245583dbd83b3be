"""Live updates for the catalog: registry changes and metrics as server-sent events.

A `ChangeFeed` listens to the registry (its listeners run on whichever thread made the
change), hops onto the event loop and coalesces a burst of changes into one ``tools``
event naming what was added and removed since the last one. Each open stream has its
own bounded queue: a client that stops reading loses its oldest events, never the
server's memory. `event_stream` is one client's stream: its events, a ``metrics``
event every few seconds while metrics are on, and a comment heartbeat; it ends when
the feed closes (server shutdown) and unsubscribes however it ends, so a browser
that goes away leaves nothing behind. A `StreamBudget` caps the streams open per
client address and in all.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from forge.core.logging import get_logger
from forge.tools.registry import EVENTS

if TYPE_CHECKING:
    from forge.tools import RegistryEvent, ToolRegistry, ToolView

__all__ = ["ChangeFeed", "StreamBudget", "event_stream", "sse"]

logger = get_logger("tools.catalog")

COALESCE_SECONDS = 0.05
"""How long a burst of registry changes is gathered before one event goes out."""
QUEUE_SIZE = 64
"""Events kept per stream for a client that reads slowly (the oldest go first)."""
HEARTBEAT_SECONDS = 15.0
METRICS_SECONDS = 2.0
RETRY_MS = 3000
MAX_STREAMS_PER_CLIENT = 8
"""Event streams one client address may hold open (a browser tab holds one)."""
MAX_STREAMS = 64
"""Event streams open in all."""
_CLOSED: Any = object()


def sse(event: str, data: Any) -> str:
    """One server-sent event with JSON ``data``."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class ChangeFeed:
    """Registry changes, coalesced, fanned out to one bounded queue per subscriber.

    Args:
        registry: The tools whose changes are announced.
        coalesce: Seconds a burst of changes is gathered into one event.
        queue_size: Events kept per subscriber.
    """

    def __init__(
        self,
        registry: ToolRegistry | ToolView,
        *,
        coalesce: float = COALESCE_SECONDS,
        queue_size: int = QUEUE_SIZE,
    ) -> None:
        self.registry = registry
        self._coalesce = coalesce
        self._queue_size = queue_size
        self._queues: set[asyncio.Queue[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._names: list[str] = []
        self.closed = False

    @property
    def subscribers(self) -> int:
        """How many streams are open."""
        return len(self._queues)

    def start(self) -> None:
        """Listen to the registry from now on; call it on the loop that serves the streams."""
        self._loop = asyncio.get_running_loop()
        self._names = self.registry.names()
        for event in EVENTS:
            self.registry.on(event, self._changed)

    def close(self) -> None:
        """Stop listening and end every open stream (server shutdown); idempotent."""
        if self.closed:
            return
        for event in EVENTS:
            self.registry.off(event, self._changed)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.closed = True
        for queue in self._queues:
            self._put(queue, _CLOSED)
        self._loop = None

    def subscribe(self) -> asyncio.Queue[Any]:
        """A new stream's queue (`unsubscribe` it when the stream ends).

        Called on the serving loop; the feed starts listening then if `start` was not called.
        """
        if self._loop is None and not self.closed:
            self.start()
        queue: asyncio.Queue[Any] = asyncio.Queue(self._queue_size)
        self._queues.add(queue)
        if self.closed:
            self._put(queue, _CLOSED)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[Any]) -> None:
        """Forget a stream's queue (no error if it is already gone)."""
        self._queues.discard(queue)

    def _changed(self, event: RegistryEvent) -> None:
        """Any thread: a registry change; the loop gathers it with the rest of its burst."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._schedule)
        except RuntimeError:  # the loop closed between the check and the call
            return

    def _schedule(self) -> None:
        if self._timer is None and self._loop is not None:
            self._timer = self._loop.call_later(self._coalesce, self.flush)

    def flush(self) -> None:
        """Send one ``tools`` event for the changes since the last one (on the loop)."""
        self._timer = None
        names = self.registry.names()
        before, after = set(self._names), set(names)
        self._names = names
        change = {
            "version": self.registry.version,
            "added": [n for n in names if n not in before],
            "removed": sorted(before - after),
        }
        for queue in self._queues:
            self._put(queue, change)

    @staticmethod
    def _put(queue: asyncio.Queue[Any], item: Any) -> None:
        if queue.full():
            queue.get_nowait()  # a client that does not read loses its oldest event
        queue.put_nowait(item)


async def event_stream(
    feed: ChangeFeed,
    metrics: Callable[[], dict[str, Any]],
    *,
    heartbeat: float = HEARTBEAT_SECONDS,
    metrics_every: float = METRICS_SECONDS,
) -> AsyncIterator[str]:
    """One client's server-sent events until the feed closes or the client goes away.

    ``metrics()`` gives `forge.catalog.stats.metrics_table`; while it says enabled, a
    ``metrics`` event with its ``tools`` goes out every ``metrics_every`` seconds.
    """
    queue = feed.subscribe()
    try:
        yield f"retry: {RETRY_MS}\n: forge-tools catalog events\n\n"
        now = time.monotonic()
        next_beat, next_metrics = now + heartbeat, now + metrics_every
        while True:
            wake = min(next_beat, next_metrics)
            try:
                item = await asyncio.wait_for(queue.get(), max(0.0, wake - time.monotonic()))
            except TimeoutError:
                item = None
            if item is _CLOSED:
                return
            if item is not None:
                yield sse("tools", item)
            now = time.monotonic()
            if now >= next_metrics:
                next_metrics = now + metrics_every
                table = metrics()
                if table["enabled"]:
                    yield sse("metrics", {"tools": table["tools"]})
            if now >= next_beat:
                next_beat = now + heartbeat
                yield ": heartbeat\n\n"
    finally:
        feed.unsubscribe(queue)


class StreamBudget:
    """Open event streams, per client address and in all, each count under its cap.

    A stream holds a connection for as long as the page is open, so the caps keep streams
    well below the server's connection caps: however many a client opens, it has
    connections left for ``/mcp`` and the API, and so does everyone else.

    Args:
        per_client: The most streams one client address may have open.
        overall: The most streams open in all.
    """

    def __init__(
        self, *, per_client: int = MAX_STREAMS_PER_CLIENT, overall: int = MAX_STREAMS
    ) -> None:
        self.per_client = per_client
        self.overall = overall
        self._open: dict[str, int] = {}
        self._total = 0

    @property
    def total(self) -> int:
        """How many streams are open."""
        return self._total

    def take(self, client: str) -> str | None:
        """Count a new stream of ``client``; over a cap, the reason it cannot open (no count)."""
        mine = self._open.get(client, 0)
        if mine >= self.per_client:
            return (
                f"this client already has {mine} live-update streams open, the most it may: "
                "close another catalog tab, or try again later"
            )
        if self._total >= self.overall:
            return (
                f"the server already has {self._total} live-update streams open, the most it "
                "serves: try again later"
            )
        self._open[client] = mine + 1
        self._total += 1
        return None

    def give_back(self, client: str) -> None:
        """Forget one stream of ``client`` (it ended)."""
        mine = self._open.get(client, 0)
        if mine <= 0:
            return
        self._total -= 1
        if mine == 1:
            del self._open[client]
        else:
            self._open[client] = mine - 1
