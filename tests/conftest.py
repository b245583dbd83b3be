"""Shared fixtures: a real HTTP server on 127.0.0.1 for the HTTP tool and CLI tests.

Also the place of the test data: ``corpora/`` at the repository root (see its README.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import HealthCheck, settings

# Property tests check results, not speed: on a loaded machine Hypothesis's per-example
# deadline and its too-slow health check fail tests whose answers are all right.
settings.register_profile(
    "forge", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("forge")


@pytest.fixture(autouse=True)
def _no_event_loop_left_open() -> Iterator[None]:
    """Close the main thread's event loop a test left set, in that test's teardown.

    Libraries leave it open on purpose (pydantic-ai's and the Agents SDK's ``run_sync``),
    and ``asyncio.get_event_loop()`` makes one unasked. The next ``asyncio.run`` or
    ``set_event_loop`` drops it, and its ``ResourceWarning`` ("unclosed event loop"),
    an error here, then fails whichever later test the garbage collector runs in.
    """
    yield
    if _loop_running():  # Playwright's sync API runs its own loop here until its module ends
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: "no current event loop"
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # none is set
            return
    asyncio.set_event_loop(None)
    if not loop.is_closed():
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


#: The external test data committed with the repository.
CORPORA = Path(__file__).resolve().parent.parent / "corpora"


def corpus(*parts: str) -> Path:
    """A file or folder under ``corpora/``; fails the calling test when it is missing."""
    path = CORPORA.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"test data missing: {path} (corpora/ is in the repository)", pytrace=False)
    return path


class _Handler(BaseHTTPRequestHandler):
    """Routes: /echo/..., /status/N, /slow, /big, /redirect?to=URL, /text."""

    def log_message(self, format: str, *args: object) -> None:
        """Keep test output quiet."""

    def _reply(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            # The client may have given up first (the timeout test).
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if parts.path.startswith("/status/"):
            code = int(parts.path.rsplit("/", 1)[1])
            self._reply(code, json.dumps({"error": f"status {code}"}).encode())
        elif parts.path == "/slow":
            time.sleep(2)
            self._reply(200, b"{}")
        elif parts.path == "/big":
            self._reply(200, b"x" * 200_000, "text/plain")
        elif parts.path == "/text":
            self._reply(200, "plain café".encode(), "text/plain; charset=utf-8")
        elif parts.path == "/redirect":
            self.send_response(int(parse_qs(parts.query).get("code", ["302"])[0]))
            self.send_header("Location", parse_qs(parts.query)["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            seen = {
                "method": self.command,
                "path": parts.path,
                "query": parse_qs(parts.query),
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": json.loads(raw) if raw else None,
            }
            self._reply(200, json.dumps(seen).encode())

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


def _serve() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def http_server() -> Iterator[str]:
    """Serve the test routes on 127.0.0.1 and return the base URL."""
    yield from _serve()


@pytest.fixture(scope="session")
def other_http_server() -> Iterator[str]:
    """The same routes on another port: another origin than ``http_server``."""
    yield from _serve()
