"""`HttpLimits`: how much the streamable HTTP server gives one client, and for how long."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

__all__ = ["HttpLimits"]


@dataclass(frozen=True, kw_only=True)
class HttpLimits:
    """Timeouts and caps of the HTTP server, so no client can exhaust it or lock others out.

    A client is an IP address. When a client is at its cap, its own oldest idle
    connection or session makes room; when the server is at its overall cap, the
    client holding the most gives one up. Nobody else is refused.
    """

    header_timeout: float = 10.0
    """Seconds a connection has to send a request's headers (a new or a reused one)."""
    body_timeout: float = 30.0
    """Seconds a request has to send its whole body once its headers are in."""
    keep_alive_timeout: int = 5
    """Seconds an idle keep-alive connection stays open between requests."""
    max_connections: int = 512
    """Open connections overall."""
    max_connections_per_client: int = 128
    """Open connections per client address."""
    max_sessions: int = 1000
    """Open MCP sessions overall."""
    max_sessions_per_client: int = 100
    """Open MCP sessions per client address."""
    session_idle_timeout: float = 600.0
    """Seconds after which a session with no request in flight is closed."""
    disconnect_grace: float = 3.0
    """Seconds a call whose client dropped its stream keeps running, waiting for it to resume."""
    max_event_streams_per_client: int = 8
    """Open live-update streams of the web catalog per client address (at most half of
    ``max_connections_per_client``, so streams never take the connections ``/mcp`` needs)."""
    max_event_streams: int = 64
    """Open live-update streams of the web catalog overall (at most half of ``max_connections``)."""

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"HttpLimits.{field.name} must be a number, not {value!r}")
            if not (math.isfinite(value) and value > 0):
                raise ValueError(
                    f"HttpLimits.{field.name} must be a positive finite number, not {value!r}"
                )
