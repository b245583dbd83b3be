"""A model provider's HTTP API on 127.0.0.1: scripted replies (JSON or server-sent events).

The official SDK clients talk to it over real HTTP. It records every request's path and
JSON body and answers from a queue; an empty queue answers 500, which the tests see.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import TypeAdapter

__all__ = ["StubAPI", "exact", "running", "sse"]


def sse(events: list[Any], *, named: bool = True, done: bool = False) -> tuple[str, bytes]:
    """A server-sent event stream of SDK objects or dicts (``event:`` lines when named)."""
    lines = []
    for event in events:
        data = event if isinstance(event, dict) else event.model_dump(
            mode="json", by_alias=True, exclude_none=True)  # fmt: skip
        head = f"event: {data['type']}\n" if named else ""
        lines.append(f"{head}data: {json.dumps(data)}\n\n")
    if done:
        lines.append("data: [DONE]\n\n")
    return "text/event-stream", "".join(lines).encode()


@dataclass
class StubAPI:
    """The queue of replies and the requests received."""

    url: str = ""
    replies: list[tuple[str, bytes]] = field(default_factory=list)
    received: list[tuple[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def queue(self, *replies: tuple[str, bytes] | Any) -> None:
        """Queue replies: ``(content type, body)`` pairs, or SDK objects sent as JSON."""
        for reply in replies:
            if isinstance(reply, tuple):
                self.replies.append(reply)
            else:
                body = reply.model_dump_json(by_alias=True, exclude_none=True).encode()
                self.replies.append(("application/json", body))

    def bodies(self) -> list[Any]:
        """The JSON bodies received, in order."""
        return [body for _, body in self.received]

    def reset(self) -> None:
        self.replies.clear()
        self.received.clear()

    def take(self, path: str, body: Any) -> tuple[int, str, bytes]:
        with self.lock:
            self.received.append((path, body))
            if not self.replies:
                return 500, "application/json", b'{"error": {"message": "no reply queued"}}'
            content_type, payload = self.replies.pop(0)
            return 200, content_type, payload


def _handler(api: StubAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, content_type, payload = api.take(self.path, json.loads(raw or b"null"))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")  # no idle socket outlives a test's loop
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep the test output clean

    return Handler


def running() -> Iterator[StubAPI]:
    """Serve a `StubAPI` on a free loopback port until the generator is closed."""
    api = StubAPI()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    server.daemon_threads = True
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def exact(kind: Any, value: Any) -> None:
    """``value`` is a valid ``kind`` (an SDK request type) with no key it does not know."""
    adapter: TypeAdapter[Any] = TypeAdapter(kind)
    assert _read(adapter.validate_python(value)) == value


def _read(value: Any) -> Any:
    """A validated value with the iterables pydantic validates lazily read into lists."""
    if isinstance(value, dict):
        return {k: _read(v) for k, v in value.items()}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return [_read(v) for v in value]
