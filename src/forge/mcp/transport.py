"""How `MCPClient` reaches a server, and what it says when it cannot.

A server is a URL (streamable HTTP), a command line or `StdioServerParameters`
(a subprocess over stdio). For HTTP, the status of every failed response is
recorded, so a refused connection can say whether the server wanted
credentials (401/403) or is not an MCP endpoint at all: the SDK reports both
as "Server returned an error response". A stdio server runs in a process group
of its own, stopped whole when its connection ends (also what its children left).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
from mcp import StdioServerParameters
from mcp.client.stdio import FORCE_KILL_TIMEOUT, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from forge.mcp.credentials import (
    HeaderValueError,
    Secrets,
    guard_dependency_logs,
    header_problem,
    remember,
    safe_url,
    url_secrets,
)

if TYPE_CHECKING:
    import httpx2

__all__ = ["HttpStatus", "ServerSpec", "Transport", "is_http", "shown"]

ServerSpec = str | Sequence[str] | StdioServerParameters
"""An HTTP(S) URL, a command line (string or argument list) or `StdioServerParameters`."""

_AUTH_HINT = (
    "pass token='<token>' (sent as 'Authorization: Bearer <token>') or "
    "headers={'<name>': '<value>'} to import_tools / MCPClient"
)


def is_http(server: ServerSpec) -> bool:
    """Whether ``server`` is a streamable HTTP URL."""
    return isinstance(server, str) and server.startswith(("http://", "https://"))


def shown(server: ServerSpec) -> str:
    """``server`` as a user wrote it (a command line, or a URL without its secret parts)."""
    if isinstance(server, StdioServerParameters):
        return shlex.join([server.command, *server.args])
    if isinstance(server, str):
        return safe_url(server) if is_http(server) else server
    return shlex.join(server)


@dataclass
class HttpStatus:
    """The last failed HTTP answer of a server (status and ``WWW-Authenticate``)."""

    status: int = 0
    challenge: str = ""

    async def record(self, response: httpx2.Response) -> None:
        """An httpx response hook: remember a 4xx/5xx answer."""
        if response.status_code >= 400:
            self.status = response.status_code
            self.challenge = response.headers.get("www-authenticate", "")

    def explain(self, credentials: bool) -> str | None:
        """Why the server refused us, from its status, or ``None`` if nothing was refused."""
        if self.status in (401, 403):
            name = "401 Unauthorized" if self.status == 401 else "403 Forbidden"
            if credentials:
                what = "it refused the credentials sent: check the token or headers"
            else:
                what = "it needs credentials and none were sent: " + _AUTH_HINT
            challenge = f" (WWW-Authenticate: {self.challenge})" if self.challenge else ""
            return f"the server answered HTTP {name}{challenge}; {what}"
        if self.status:
            return (
                f"the server answered HTTP {self.status}, which an MCP server does not: "
                "check that the URL is the MCP endpoint (streamable HTTP, often ending in /mcp)"
            )
        return None


class Transport:
    """What the SDK's `Client` connects through, built anew for each connection.

    Raises:
        HeaderValueError: A header (or the token) HTTP cannot send (named, value not shown).
    """

    def __init__(
        self,
        server: ServerSpec,
        *,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.server = server
        self.status = HttpStatus()
        self._headers = dict(headers or {})
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        for name, value in self._headers.items():
            problem = header_problem(name, value)
            if problem is not None:
                what = "the token" if token and name == "Authorization" else f"the header {name!r}"
                raise HeaderValueError(
                    f"{what} for the MCP server {shown(server)} cannot be sent: {problem}"
                )
        self._env = dict(env) if env else None
        labelled = _labelled(server, self._headers, token, self._env)
        self.secrets = Secrets(labelled)
        """The values this transport must never show (headers, token, environment, URL parts)."""
        if is_http(server):  # what the HTTP client's and the SDK's logs could print
            remember({k: v for k, v in labelled.items() if not k.startswith("env.")})

    @property
    def credentials(self) -> bool:
        """Whether credentials are sent (a token or headers)."""
        return bool(self._headers)

    def open(self) -> Any:
        """A new transport for `mcp.Client`.

        Raises:
            ValueError: An empty command line.
        """
        server = self.server
        guard_dependency_logs()
        if isinstance(server, StdioServerParameters):
            return _stdio(server)
        if isinstance(server, str) and is_http(server):
            self.status = HttpStatus()
            return self._http(server)
        argv = shlex.split(server) if isinstance(server, str) else list(server)
        if not argv:
            raise ValueError("an empty command line cannot start an MCP server")
        return _stdio(StdioServerParameters(command=argv[0], args=argv[1:], env=self._env))

    @asynccontextmanager
    async def _http(self, url: str) -> AsyncIterator[Any]:
        http = create_mcp_http_client(headers=self._headers or None)
        http.event_hooks["response"].append(self.status.record)
        async with http, streamable_http_client(url, http_client=http) as streams:
            yield streams


def _labelled(
    server: ServerSpec,
    headers: Mapping[str, str],
    token: str | None,
    env: Mapping[str, str] | None,
) -> dict[str, str]:
    """The secrets of a connection, by a label naming each (``headers.X-Api-Key``, ...)."""
    values = {f"headers.{k}": v for k, v in headers.items()}
    if token:
        values["token"] = token
    if isinstance(server, StdioServerParameters):
        env = server.env
    values.update({f"env.{k}": v for k, v in (env or {}).items()})
    if isinstance(server, str) and is_http(server):
        values.update(url_secrets(server))
    return values


@asynccontextmanager
async def _stdio(params: StdioServerParameters) -> AsyncIterator[Any]:
    """The SDK's stdio transport, then the end of what is left of the server's process group.

    The SDK stops the group only when the server outlives its grace period: a server
    that exited (or was killed) while a child of its own still runs leaves that child.
    """
    opened = stdio_client(params)
    process: Any = None
    try:
        async with opened as streams:
            process = _spawned(opened)
            yield streams
    finally:
        if process is not None and sys.platform != "win32":
            from mcp.os.posix.utilities import terminate_posix_process_tree

            with anyio.CancelScope(shield=True):
                await terminate_posix_process_tree(process, FORCE_KILL_TIMEOUT)


def _spawned(opened: Any) -> Any:
    """The process `stdio_client` started (the leader of its group), read from its frame."""
    frame = getattr(getattr(opened, "gen", None), "ag_frame", None)
    process = frame.f_locals.get("process") if frame is not None else None
    return process if isinstance(getattr(process, "pid", None), int) else None
