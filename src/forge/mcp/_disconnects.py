"""Cancel a call whose HTTP client went away.

The SDK keeps running a ``tools/call`` whose response stream was closed by
the client, so an agent that gave up still holds a worker and maybe a remote
resource. Here, when a ``POST`` stream closes before its answer was sent, the
calls it carried are cancelled with the protocol's own ``notifications/cancelled``,
sent into the session as the client would have sent it. Not at once: a client
whose stream merely dropped resumes it with ``Last-Event-ID`` (SEP-1699)
within the ``retry`` interval, so a resumption of the session within
``disconnect_grace`` keeps the calls running.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from forge.core.logging import get_logger
from forge.mcp._http import ASGIApp, Message, Receive, Scope, Send
from forge.mcp._sessions import SESSION_HEADER, header

__all__ = ["CancelOnDisconnect"]

logger = get_logger("mcp.server")
_KEPT_HEADERS = (b"mcp-session-id", b"mcp-protocol-version", b"host")
_NOTIFICATION_HEADERS = [
    (b"content-type", b"application/json"),
    (b"accept", b"application/json, text/event-stream"),
]


class CancelOnDisconnect:
    """ASGI middleware cancelling the calls of a ``POST`` whose client disconnected.

    Args:
        app: The SDK's streamable HTTP app.
        grace: Seconds to wait for the client to resume the session first.
    """

    def __init__(self, app: ASGIApp, grace: float) -> None:
        self.app = app
        self.grace = grace
        self._waiting: dict[str, set[asyncio.Event]] = {}
        self._resuming: dict[str, int] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Watch a session's ``POST`` for an early disconnect; note resumptions."""
        session_id = header(scope, SESSION_HEADER)
        if scope["type"] != "http" or session_id is None:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "GET" and header(scope, b"last-event-id") is not None:
            await self._resume(session_id, scope, receive, send)
        elif scope["method"] == "POST":
            await self._watch(session_id, scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _resume(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A stream resumed: the session's dropped calls keep running, also while it is open."""
        for resumed in self._waiting.pop(session_id, ()):
            resumed.set()
        self._resuming[session_id] = self._resuming.get(session_id, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._resuming[session_id] -= 1
            if not self._resuming[session_id]:
                del self._resuming[session_id]

    async def _watch(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()
        answered = False

        async def watched_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
            elif message["type"] == "http.disconnect" and not answered:
                self._disconnected(session_id, scope, bytes(body))
            return message

        async def watched_send(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered = True
            await send(message)

        await self.app(scope, watched_receive, watched_send)

    def _disconnected(self, session_id: str, scope: Scope, body: bytes) -> None:
        ids = _call_ids(body)
        if not ids:
            return
        resumed = asyncio.Event()
        self._waiting.setdefault(session_id, set()).add(resumed)
        task = asyncio.get_running_loop().create_task(
            self._cancel_later(session_id, scope, ids, resumed)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _cancel_later(
        self, session_id: str, scope: Scope, ids: list[Any], resumed: asyncio.Event
    ) -> None:
        try:
            await asyncio.wait_for(resumed.wait(), self.grace)
            return
        except TimeoutError:
            pass
        finally:
            waiting = self._waiting.get(session_id)
            if waiting is not None:
                waiting.discard(resumed)
                if not waiting:
                    del self._waiting[session_id]
        if session_id in self._resuming:  # resumed before the drop was even noticed
            return
        for request_id in ids:
            await self._send_cancel(scope, request_id)

    async def _send_cancel(self, scope: Scope, request_id: Any) -> None:
        """Post ``notifications/cancelled`` into the session, as its client would."""
        notification = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": request_id, "reason": "the client disconnected"},
        }
        payload = json.dumps(notification).encode()
        kept = [(k, v) for k, v in scope.get("headers", ()) if k in _KEPT_HEADERS]
        headers = [*kept, *_NOTIFICATION_HEADERS, (b"content-length", str(len(payload)).encode())]
        request = {**scope, "method": "POST", "headers": headers}
        messages = [{"type": "http.request", "body": payload, "more_body": False}]

        async def receive() -> Message:
            return messages.pop() if messages else {"type": "http.disconnect"}

        async def discard(message: Message) -> None:
            return None

        try:
            await self.app(request, receive, discard)
        except Exception:
            logger.debug("cannot cancel call %r of a gone client", request_id, exc_info=True)

    async def aclose(self) -> None:
        """Drop the pending cancellations (the server is stopping: every call ends anyway)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _call_ids(body: bytes) -> list[Any]:
    """The ids of the ``tools/call`` requests in a JSON-RPC body (one message or a batch)."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return []
    messages = parsed if isinstance(parsed, list) else [parsed]
    return [
        m["id"]
        for m in messages
        if isinstance(m, dict) and m.get("method") == "tools/call" and "id" in m
    ]
