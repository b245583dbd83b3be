"""MCP sessions of the HTTP server, bounded per client address and overall.

The SDK refuses every new session (``503``) once its overall cap is reached,
until one ends or idles out, so one client opening sessions in a loop locks all
others out. Here a client at its own cap, or the one holding the most when the
server is at its cap, gives up its least recently used session, idle ones
first. The session is ended as a client would end it, with ``DELETE``.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from forge.mcp._http import ASGIApp, Message, Receive, Scope, Send
from forge.mcp.limits import HttpLimits

__all__ = ["SessionBudget", "client_key", "header"]

SESSION_HEADER = b"mcp-session-id"
_VERSION_HEADER = b"mcp-protocol-version"


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case) in ``scope``, or ``None``."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def client_key(scope: Scope) -> str:
    """The client's address (its IP, without the port)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


@dataclass
class _Session:
    client: str
    last_used: float = field(default_factory=time.monotonic)
    busy: int = 0


class SessionBudget:
    """ASGI middleware keeping the SDK's sessions within ``limits``.

    Args:
        app: The SDK's streamable HTTP app.
        limits: ``max_sessions``, ``max_sessions_per_client`` and ``session_idle_timeout``.
    """

    def __init__(self, app: ASGIApp, limits: HttpLimits) -> None:
        self.app = app
        self.limits = limits
        self._sessions: OrderedDict[str, _Session] = OrderedDict()  # least recently used first
        self._clients: dict[str, OrderedDict[str, _Session]] = {}
        self._opening: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Account for the request's session, making room before one is opened."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session_id = header(scope, SESSION_HEADER)
        if session_id is not None:
            await self._use(session_id, scope, receive, send)
        elif scope["method"] == "POST" and _handshake_era(scope):
            await self._open(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = client_key(scope)
        await self._make_room(client, scope)
        held = True  # a place is held from now until the session is known or refused

        def settle() -> None:
            nonlocal held
            if held:
                held = False
                self._opening[client] -= 1
                if not self._opening[client]:
                    del self._opening[client]

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                for key, value in message.get("headers", ()):
                    if key == SESSION_HEADER and message["status"] < 400:
                        self._add(bytes(value).decode("latin-1"), client)
                settle()
            await send(message)

        self._opening[client] = self._opening.get(client, 0) + 1
        try:
            await self.app(scope, receive, watch)
        finally:
            settle()

    async def _use(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            await self.app(scope, receive, send)
            return
        session.busy += 1
        self._touch(session_id, session)
        try:
            await self.app(scope, receive, send)
        finally:
            session.busy -= 1
            self._touch(session_id, session)
            if scope["method"] == "DELETE":
                self._forget(session_id)

    async def _make_room(self, client: str, scope: Scope) -> None:
        self._forget_expired()
        limits = self.limits
        while self._clients.get(client) and (
            len(self._clients[client]) + self._opening.get(client, 0)
            >= limits.max_sessions_per_client
        ):
            await self._end(_least_recent(self._clients[client]), scope)
        while self._clients and len(self._sessions) >= limits.max_sessions:
            biggest = max(self._clients.values(), key=len)
            await self._end(_least_recent(biggest), scope)

    async def _end(self, session_id: str, scope: Scope) -> None:
        """End a session as its client would: ``DELETE`` with its id, through the SDK."""
        self._forget(session_id)
        request = {**scope, "method": "DELETE", "headers": [(SESSION_HEADER, session_id.encode())]}
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return None

        await self.app(request, receive, discard)

    def _add(self, session_id: str, client: str) -> None:
        session = _Session(client)
        self._sessions[session_id] = session
        self._clients.setdefault(client, OrderedDict())[session_id] = session

    def _touch(self, session_id: str, session: _Session) -> None:
        session.last_used = time.monotonic()
        if session_id in self._sessions:
            self._sessions.move_to_end(session_id)
            self._clients[session.client].move_to_end(session_id)

    def _forget(self, session_id: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is None:
            return
        mine = self._clients[session.client]
        del mine[session_id]
        if not mine:
            del self._clients[session.client]

    def _forget_expired(self) -> None:
        """Drop the sessions the SDK has closed for idleness (the oldest come first)."""
        cutoff = time.monotonic() - self.limits.session_idle_timeout
        expired = []
        for session_id, session in self._sessions.items():
            if session.last_used > cutoff:
                break
            if not session.busy:
                expired.append(session_id)
        for session_id in expired:
            self._forget(session_id)


def _least_recent(sessions: OrderedDict[str, _Session]) -> str:
    """The least recently used idle session, or the least recently used one if all are busy."""
    for session_id, session in sessions.items():
        if not session.busy:
            return session_id
    return next(iter(sessions))


def _handshake_era(scope: Scope) -> bool:
    """Whether the request opens a session (only handshake-era requests, or none named, do)."""
    version = header(scope, _VERSION_HEADER)
    return version is None or version in HANDSHAKE_PROTOCOL_VERSIONS
