"""SSE priming events, the ``retry`` field and replay after a dropped stream (SEP-1699)."""

from __future__ import annotations

import asyncio

import httpx
import mcp_types as types
import pytest
from mcp.server.streamable_http import EventMessage
from mcp_harness import HttpServer

from forge.mcp._events import DEFAULT_RETRY_MS, RecentEvents

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
VERSION = "2025-11-25"


def sse_events(text: str) -> list[dict[str, str]]:
    """Parse an SSE body into events (field -> value)."""
    events = []
    for block in text.replace("\r\n", "\n").strip().split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
        events.append(fields)
    return events


def request(ident: int, method: str, params: dict[str, object]) -> dict[str, object]:
    """A JSON-RPC request."""
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


@pytest.mark.slow
def test_every_sse_response_starts_with_a_priming_event_and_can_be_replayed(
    http_server: HttpServer,
) -> None:
    """The first event has an id, empty data and a retry; its id replays the missed answer."""
    init = request(1, "initialize", {"protocolVersion": VERSION, "capabilities": {},
                                     "clientInfo": {"name": "raw", "version": "0"}})  # fmt: skip
    with httpx.Client(timeout=20) as http:
        opened = http.post(http_server.url, json=init, headers=HEADERS)
        session = {"mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": VERSION}  # fmt: skip
        http.post(http_server.url, headers={**HEADERS, **session},
                  json={"jsonrpc": "2.0", "method": "notifications/initialized"})  # fmt: skip
        call = request(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        answered = http.post(http_server.url, json=call, headers={**HEADERS, **session})
        priming, answer = sse_events(answered.text)
        assert priming["id"]
        assert priming["data"] == ""
        assert priming["retry"] == str(DEFAULT_RETRY_MS)
        resume = {**session, "Accept": "text/event-stream", "Last-Event-ID": priming["id"]}
        with http.stream("GET", http_server.url, headers=resume) as replay:
            assert replay.status_code == 200
            first = ""
            for line in replay.iter_lines():
                if line.startswith("data: {"):
                    first = line.removeprefix("data: ")
                    break
    assert first == answer["data"]
    assert types.JSONRPCResponse.model_validate_json(first).result["structuredContent"] == {
        "result": 3
    }


def message(ident: int) -> types.JSONRPCResponse:
    """A JSON-RPC response to store."""
    return types.JSONRPCResponse(jsonrpc="2.0", id=ident, result={})


def test_the_event_store_replays_one_stream_after_an_id_and_stays_bounded() -> None:
    """Replay sends the same stream's later messages only; the oldest events are dropped."""

    async def body() -> None:
        store = RecentEvents(max_events=4)
        prime = await store.store_event("a", None)
        first = await store.store_event("a", message(1))
        await store.store_event("b", message(2))
        second = await store.store_event("a", message(3))
        sent: list[EventMessage] = []

        async def send(event: EventMessage) -> None:
            sent.append(event)

        assert await store.replay_events_after(prime, send) == "a"
        assert [e.event_id for e in sent] == [first, second]
        await store.store_event("a", message(4))
        assert store.size == 4
        assert await store.replay_events_after(prime, send) is None  # dropped: no replay
        assert await store.replay_events_after("unknown", send) is None

    asyncio.run(body())


def test_the_event_store_needs_room_for_one_event() -> None:
    """A store that could keep nothing is refused with the reason."""
    with pytest.raises(ValueError, match="at least 1"):
        RecentEvents(max_events=0)
