"""A local HTTP stub for the round-trip tests: the official SDK clients talk to it.

The stub listens on 127.0.0.1 on a free port, records every request (path, headers, JSON
body) and answers from a queue of canned responses, or from a handler function (the MCP
server). It serves only loopback, each test's server is shut down after the test, and every
client in the tests has a short timeout and no retries, so nothing can hang or leave.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

from forge.tools import ToolRegistry, tool

Reply = tuple[int, dict[str, str], bytes]


@dataclass
class Captured:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Stub:
    url: str
    requests: list[Captured] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    handler: Callable[[Captured], Reply] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply_json(self, body: Any, status: int = 200) -> None:
        """Queue a JSON response."""
        self.replies.append(
            (status, {"Content-Type": "application/json"}, json.dumps(body).encode())
        )

    def answer(self, captured: Captured) -> Reply:
        with self.lock:
            self.requests.append(captured)
            if self.handler is not None:
                return self.handler(captured)
            if not self.replies:
                return 500, {"Content-Type": "application/json"}, b'{"error": "no reply queued"}'
            return self.replies.pop(0)


def _handler_class(stub: Stub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            captured = Captured(self.command, self.path, dict(self.headers.items()), body)
            status, headers, payload = stub.answer(captured)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:  # silence the test output
            pass

    return Handler


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stub]:
    """A running stub server on 127.0.0.1 (a free port); no proxy can take the traffic."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    stub = Stub(url="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(stub))
    server.daemon_threads = True
    server.timeout = 5
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def registry() -> ToolRegistry:
    """Two tools the stubbed models call: one with an enum and a default, one with ints."""

    @tool
    def get_weather(
        city: str, unit: Literal["celsius", "fahrenheit"] = "celsius"
    ) -> dict[str, Any]:
        """Current weather for a city.

        Args:
            city: The city name.
            unit: Temperature unit.
        """
        return {"city": city, "temperature": 21 if unit == "celsius" else 70, "unit": unit}

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return ToolRegistry([get_weather, add])


#: The two calls every stubbed model makes: (id, name, arguments).
CALLS = [
    ("get_weather", {"city": "Paris", "unit": "celsius"}),
    ("add", {"a": 2, "b": 40}),
]


@pytest.fixture
def calls() -> list[tuple[str, dict[str, Any]]]:
    return CALLS
