"""Streamable HTTP plumbing: bearer-token check, loopback test, a quiet uvicorn server."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Awaitable, Callable, Generator, MutableMapping
from typing import Any

import uvicorn

from forge.core.auth import bearer_matches
from forge.mcp._loopback import is_loopback

__all__ = ["BearerAuth", "HttpServer", "is_loopback"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BearerAuth:
    """ASGI middleware answering 401 to HTTP requests without ``Authorization: Bearer <token>``.

    Pure ASGI (no response buffering), so streamed responses pass through untouched. It
    answers before the body is read and before any session exists. The token is compared
    in constant time.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the token of HTTP requests, then hand them to the wrapped app."""
        if scope["type"] != "http" or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {"error": "unauthorized", "error_description": "a valid bearer token is required"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="forge-tools"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: Scope) -> bool:
        """Whether the first ``Authorization`` is ``Bearer <token>`` (scheme in any case)."""
        return bearer_matches(scope.get("headers", ()), self._token)


class HttpServer(uvicorn.Server):
    """A uvicorn server whose signals are handled by the caller, reporting its bound address.

    Args:
        config: The uvicorn configuration.
        on_started: Called with the ``(host, port)`` actually bound, once listening.
    """

    def __init__(
        self, config: uvicorn.Config, on_started: Callable[[str, int], None] | None = None
    ) -> None:
        super().__init__(config)
        self._on_started = on_started

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        """Leave signals to the caller (uvicorn would re-raise them after shutting down)."""
        yield

    async def stop(self) -> None:
        """Shut down after a cancellation, also one that came before startup had finished.

        The app's lifespan starts first: it is ended cleanly even when no listener exists
        yet (uvicorn's own ``shutdown`` needs them, and the lifespan would log a traceback).
        """
        self.should_exit = True
        if self.started:
            await self.shutdown()
        else:
            await self.lifespan.shutdown()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start listening, then report the real address (useful with port 0)."""
        await super().startup(sockets)
        if self.started and self._on_started is not None:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            self._on_started(str(host), int(port))
