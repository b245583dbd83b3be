"""The live feed: registry changes coalesced per burst, bounded queues, clean ends."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from forge.catalog.events import ChangeFeed, event_stream, sse
from forge.tools import ToolRegistry, tool


def _tool(name: str) -> Any:
    def handler() -> str:
        return name

    handler.__name__ = name
    handler.__doc__ = f"The {name} tool."
    return tool(handler)


def _parse(chunk: str) -> tuple[str, Any]:
    event, data = chunk.strip().split("\n")
    return event.removeprefix("event: "), json.loads(data.removeprefix("data: "))


def test_a_burst_of_changes_from_other_threads_is_one_event() -> None:
    """Twenty tools registered from four threads arrive as one ``tools`` event."""
    registry = ToolRegistry([_tool("kept"), _tool("gone")])

    async def main() -> list[Any]:
        feed = ChangeFeed(registry, coalesce=0.2)
        queue = feed.subscribe()

        def add(start: int) -> None:
            for i in range(start, start + 5):
                registry.register(_tool(f"t{i}"))

        threads = [threading.Thread(target=add, args=(n * 5,)) for n in range(4)]
        for t in threads:
            t.start()
        registry.deregister("gone")
        for t in threads:
            t.join()
        first = await asyncio.wait_for(queue.get(), 5)
        await asyncio.sleep(0.3)
        rest = [queue.get_nowait() for _ in range(queue.qsize())]
        feed.close()
        return [first, *rest]

    events = asyncio.run(main())
    assert len(events) == 1
    assert sorted(events[0]["added"]) == sorted(f"t{i}" for i in range(20))
    assert events[0]["removed"] == ["gone"]
    assert events[0]["version"] == registry.version


def test_a_slow_reader_keeps_only_the_newest_events() -> None:
    """Each queue is bounded: the oldest event goes first."""
    registry = ToolRegistry()

    async def main() -> list[Any]:
        feed = ChangeFeed(registry, queue_size=2)
        queue = feed.subscribe()
        for i in range(5):
            registry.register(_tool(f"t{i}"))
            feed.flush()
        out = [queue.get_nowait() for _ in range(queue.qsize())]
        feed.close()
        return out

    events = asyncio.run(main())
    assert [e["added"] for e in events] == [["t3"], ["t4"]]


def test_a_stream_sends_changes_metrics_and_heartbeats_then_ends_on_close() -> None:
    """The stream's text is server-sent events; closing the feed ends it cleanly."""
    registry = ToolRegistry()
    table = {"enabled": True, "tools": {"x": {"calls": 1, "failures": 0, "p50_ms": 1.0,
                                              "p95_ms": 2.0}}}  # fmt: skip

    async def main() -> tuple[list[str], int]:
        feed = ChangeFeed(registry, coalesce=0.01)
        chunks: list[str] = []

        async def read() -> None:
            async for chunk in event_stream(feed, lambda: table, heartbeat=0.05,
                                            metrics_every=0.05):  # fmt: skip
                chunks.append(chunk)
                if len(chunks) == 1:
                    registry.register(_tool("new_one"))
                if len(chunks) > 6:
                    feed.close()

        await asyncio.wait_for(read(), 10)
        return chunks, feed.subscribers

    chunks, left = asyncio.run(main())
    assert chunks[0].startswith("retry: ")
    events = [_parse(c) for c in chunks if c.startswith("event: ")]
    assert ("tools", {"version": registry.version, "added": ["new_one"], "removed": []}) in events
    assert ("metrics", {"tools": table["tools"]}) in events
    assert ": heartbeat\n\n" in chunks
    assert left == 0


def test_metrics_events_only_while_metrics_are_on() -> None:
    """A disabled table sends nothing but heartbeats."""
    registry = ToolRegistry()

    async def main() -> list[str]:
        feed = ChangeFeed(registry)
        chunks: list[str] = []
        stream = event_stream(feed, lambda: {"enabled": False, "tools": {}}, heartbeat=0.02,
                              metrics_every=0.01)  # fmt: skip
        async for chunk in stream:
            chunks.append(chunk)
            if len(chunks) == 4:
                break
        await stream.aclose()  # type: ignore[attr-defined]
        assert feed.subscribers == 0
        feed.close()
        return chunks

    chunks = asyncio.run(main())
    assert not any(c.startswith("event: metrics") for c in chunks)


def test_a_stream_opened_after_close_ends_at_once() -> None:
    """Shutdown wins over a late client."""

    async def main() -> list[str]:
        feed = ChangeFeed(ToolRegistry())
        feed.close()
        return [c async for c in event_stream(feed, dict)]  # type: ignore[arg-type]

    assert len(asyncio.run(main())) == 1


def test_changes_after_the_loop_closed_are_ignored() -> None:
    """A registry change with no loop to deliver to does not raise."""
    registry = ToolRegistry()

    async def main() -> ChangeFeed:
        feed = ChangeFeed(registry)
        feed.start()
        return feed

    feed = asyncio.run(main())
    registry.register(_tool("late"))
    feed.close()


def test_sse_formats_one_event() -> None:
    """``event:`` and compact JSON ``data:``, then a blank line."""
    assert sse("tools", {"a": [1]}) == 'event: tools\ndata: {"a":[1]}\n\n'
