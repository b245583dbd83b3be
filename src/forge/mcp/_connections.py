"""Connections of the HTTP server: read deadlines and a budget per client address.

uvicorn waits forever for a request's headers and body, and accepts every
connection, so slow sockets that send half a request exhaust the server's file
descriptors. Here each connection must send its headers within
``header_timeout`` and its body within ``body_timeout``, or is closed; and a
client over its connection cap (or a server over its overall cap) gives up its
oldest connection still waiting for a request, preferring one that never sent
a whole request, so a flood of slow sockets pushes out only its own.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar, Literal

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from forge.mcp.limits import HttpLimits

__all__ = ["ConnectionBudget", "guarded_protocol"]

Phase = Literal["headers", "body"] | None
_BUSY = b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with read deadlines, counted in a `ConnectionBudget`."""

    budget: ClassVar[ConnectionBudget]
    phase: Phase = None
    served = 0
    waiting_since = 0.0
    _timer: asyncio.TimerHandle | None = None

    @property
    def client_key(self) -> str:
        """The client's address (its IP, without the port)."""
        return self.client[0] if self.client else ""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the header deadline and take a place in the budget."""
        super().connection_made(transport)
        self._follow()
        self.budget.admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        """Give the place back."""
        self._disarm()
        self.budget.release(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Parse as uvicorn does, then move to the deadline of the request's new phase."""
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        """Count the request served; the next one has its header deadline."""
        self.served += 1
        super().on_response_complete()
        self._follow()

    def evict(self, *, refused: bool = False) -> None:
        """Close the connection now (``refused``: with a 503 answer, it has not been served)."""
        self.budget.release(self)
        if not self.transport.is_closing():
            if refused:
                self.transport.write(_BUSY)
            self.transport.close()

    def _follow(self) -> None:
        state = self.conn.their_state
        phase: Phase = None
        if state is h11.IDLE:
            phase = "headers"
        elif state is h11.SEND_BODY:
            phase = "body"
        if phase == self.phase:
            return
        self.phase = phase
        self._disarm()
        if phase is not None:
            limits = self.budget.limits
            seconds = limits.header_timeout if phase == "headers" else limits.body_timeout
            self._timer = self.loop.call_later(seconds, self._expired)
            self.waiting_since = self.loop.time()

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if not self.transport.is_closing():
            self.transport.close()


class ConnectionBudget:
    """The open connections of one server, by client address, with its caps.

    Args:
        limits: ``max_connections`` and ``max_connections_per_client`` apply.
    """

    def __init__(self, limits: HttpLimits) -> None:
        self.limits = limits
        self._clients: dict[str, dict[GuardedProtocol, None]] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def admit(self, conn: GuardedProtocol) -> None:
        """Count ``conn``; over a cap, close the connection that gives way (perhaps ``conn``)."""
        mine = self._clients.setdefault(conn.client_key, {})
        mine[conn] = None
        self._count += 1
        if len(mine) > self.limits.max_connections_per_client:
            self._give_way(mine, conn)
        elif self._count > self.limits.max_connections:
            self._give_way(max(self._clients.values(), key=len), conn)

    def release(self, conn: GuardedProtocol) -> None:
        """Forget ``conn`` (once; later calls do nothing)."""
        mine = self._clients.get(conn.client_key)
        if mine is None or conn not in mine:
            return
        del mine[conn]
        self._count -= 1
        if not mine:
            del self._clients[conn.client_key]

    @staticmethod
    def _give_way(conns: dict[GuardedProtocol, None], new: GuardedProtocol) -> None:
        waiting = [c for c in conns if c.phase == "headers" and c is not new]
        if not waiting:
            new.evict(refused=True)
            return
        min(waiting, key=lambda c: (c.served > 0, c.waiting_since)).evict()


def guarded_protocol(limits: HttpLimits) -> tuple[type[GuardedProtocol], ConnectionBudget]:
    """A protocol class for ``uvicorn.Config(http=...)``, sharing one new budget."""
    budget = ConnectionBudget(limits)
    attributes: dict[str, Any] = {"budget": budget}
    return type("ServerProtocol", (GuardedProtocol,), attributes), budget
