"""One server behind the gateway: its connection, kept up by a supervisor thread.

The supervisor connects an `MCPClient` (the server's tools go into the gateway's
registry under its prefix), waits until the connection ends for good (a stdio
server exited, a liveness probe failed, an HTTP server went away; the client then
withdraws the tools), and connects again after a capped, jittered backoff, for
as long as the gateway runs. A server that is not up yet when the gateway starts
is simply one whose first attempts fail.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal

from mcp import StdioServerParameters
from mcp.client.sse import sse_client

from forge.core.logging import get_logger
from forge.gateway._backoff import Backoff
from forge.gateway.config import ServerConfig
from forge.mcp import MCPConnectionError
from forge.mcp.client import MCPClient
from forge.mcp.credentials import guard_dependency_logs
from forge.mcp.transport import Transport
from forge.tools import Tool, ToolRegistry

if TYPE_CHECKING:
    import mcp_types as types

__all__ = ["Admit", "State", "Upstream"]

logger = get_logger("mcp.gateway")
State = Literal["starting", "up", "down", "stopped"]
Admit = Callable[[ServerConfig, str, str], bool]
"""``admit(server, name, remote)``: whether its tool ``remote`` may be served as ``name``."""


class _SseTransport(Transport):
    """The deprecated HTTP+SSE transport (a GET stream and POSTed messages), for older servers."""

    def open(self) -> Any:
        """A new SSE connection for `mcp.Client`."""
        guard_dependency_logs()
        return self._sse(str(self.server))

    @asynccontextmanager
    async def _sse(self, url: str) -> AsyncIterator[Any]:
        async with sse_client(url, headers=dict(self._headers) or None) as streams:
            yield streams


class _Client(MCPClient):
    """An `MCPClient` that names its server without secrets and applies per-tool timeouts."""

    def __init__(
        self, config: ServerConfig, registry: ToolRegistry, probe: float | None, admit: Admit
    ) -> None:
        server: Any
        if config.kind == "stdio":
            server = StdioServerParameters(
                command=config.command or "",
                args=list(config.args),
                env=dict(config.env) or None,
                cwd=config.cwd,
            )
        else:
            server = config.url
        longest = max([config.timeout, *config.tool_timeouts.values()])
        super().__init__(
            server, registry, prefix=config.prefix, timeout=longest,
            connect_timeout=config.connect_timeout, headers=config.headers or None,
            reconnect_attempts=0, probe_interval=probe,
        )  # fmt: skip
        self.config = config
        self._admit = admit
        if config.kind == "sse":
            self._transport = _SseTransport(server, headers=config.headers or None)

    def _import(self, spec: types.Tool) -> str | None:
        if not self._admit(self.config, self.local_name(spec.name), spec.name):
            return None
        return super()._import(spec)

    def _tool(self, local: str, spec: types.Tool) -> Tool:
        tool = super()._tool(local, spec)
        seconds = self.config.tool_timeouts.get(spec.name, self.config.timeout)
        extra = {**tool.metadata.extra, "gateway_server": self.config.name}
        return tool.replace(
            timeout=seconds, metadata=dataclasses.replace(tool.metadata, extra=extra)
        )

    def _shown(self) -> str:
        return f"{self.config.name!r} ({self.config.display})"


class Upstream:
    """A server of the gateway and the thread that keeps it connected.

    Args:
        config: The server's entry.
        registry: Where its tools are registered (under ``config.prefix``).
        backoff: The delays between attempts to (re)connect.
        probe_interval: Seconds between liveness probes of a connected server.
        admit: Decides which of its tools are registered, and under which names (by
            default all of them).
    """

    def __init__(
        self,
        config: ServerConfig,
        registry: ToolRegistry,
        *,
        backoff: Backoff,
        probe_interval: float | None,
        admit: Admit | None = None,
    ) -> None:
        self.config = config
        self.admit: Admit = admit or _admit_all
        self.registry = registry
        self.backoff = backoff
        self.probe_interval = probe_interval
        self.state: State = "starting"
        self.error: str | None = None
        """Why the server is down (no secrets), or ``None``."""
        self.retry_at: float | None = None
        """When (``time.monotonic()``) the next attempt starts, while down."""
        self.connects = 0
        """How many times a connection was made."""
        self._stop = threading.Event()
        self._tried = threading.Event()
        self._lock = threading.Lock()
        self._client: _Client | None = None
        self._thread = threading.Thread(
            target=self._supervise, name=f"forge-gateway-{config.name}", daemon=True
        )

    @property
    def name(self) -> str:
        """The server's name in the servers file."""
        return self.config.name

    def start(self) -> None:
        """Start connecting (in the background)."""
        self._thread.start()

    def wait_tried(self, timeout: float) -> bool:
        """Wait until the first attempt to connect has ended (either way)."""
        return self._tried.wait(timeout)

    def close(self) -> None:
        """Stop reconnecting, withdraw the tools, stop the server (a stdio one's process group)."""
        with self._lock:
            self._stop.set()
            client = self._client
        if client is not None:
            client.close()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(self.config.connect_timeout + 15)
        self.state = "stopped"

    def unavailable(self) -> str:
        """Why a call of this server's tools cannot run now, for the model."""
        wait = ""
        if self.retry_at is not None:
            left = max(0.0, self.retry_at - time.monotonic())
            wait = f"; the next attempt to reconnect is in {left:.1f} s"
        why = f" ({self.error})" if self.error else ""
        return (
            f"the MCP server {self.name!r} is not connected{why}{wait}. Its tools come back "
            "when it does; try again later or use another tool"
        )

    # -- the supervisor thread ----------------------------------------------------

    def _supervise(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            client = self._new_client()
            if client is None:
                break
            if self._connect(client):
                attempt = 0
                client.wait_gone()
                if self._stop.is_set():
                    break
                self.error = _without_prefix(client.error) or "the connection ended"
                self.state = "down"
                logger.warning(
                    "the MCP server %r went away (%s); its tools were withdrawn", self.name,
                    self.error,
                )  # fmt: skip
            client.close()
            delay = self.backoff.delay(attempt)
            attempt += 1
            self.retry_at = time.monotonic() + delay
            self._stop.wait(delay)
            self.retry_at = None

    def _new_client(self) -> _Client | None:
        with self._lock:
            if self._stop.is_set():
                return None
            self._client = _Client(self.config, self.registry, self.probe_interval, self.admit)
            return self._client

    def _connect(self, client: _Client) -> bool:
        try:
            client.connect()
        except Exception as exc:  # whatever it is, the supervisor must keep trying
            self.state = "down"
            if isinstance(exc, MCPConnectionError):
                self.error = _without_prefix(str(exc))
            else:
                self.error = client._scrub(f"{type(exc).__name__}: {exc}")
            if not self._stop.is_set():
                logger.info("cannot connect to the MCP server %r: %s", self.name, self.error)
            return False
        finally:
            self._tried.set()
        self.state, self.error = "up", None
        self.connects += 1
        logger.info("the MCP server %r is connected: %d tools", self.name, len(client.tool_names))
        return True


def _admit_all(server: ServerConfig, name: str, remote: str) -> bool:
    """Every tool is registered."""
    return True


def _without_prefix(message: str | None) -> str | None:
    """A client's message without the server's name it starts with (the gateway adds it)."""
    if message is None:
        return None
    for lead in ("cannot connect to MCP server ", "the MCP server "):
        if message.startswith(lead):
            return message.split(": ", 1)[-1] if ": " in message else message
    return message
