"""Import the tools of a running MCP server into a registry (IN-2).

`MCPClient` keeps one connection to the server (a stdio command or a
streamable HTTP URL) on a background thread with its own event loop, so its
tools can be called from any thread or event loop, sync or async. Each remote
tool is registered as a local tool (optionally under a prefix, with names our
rule rejects mapped reversibly by `NameMap`) whose handler forwards the call.
The import follows ``notifications/tools/list_changed``. A server that dies or
hangs gives failed results within the timeout; callers never hang.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shlex
import threading
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, Literal, TypeVar

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from forge.core.errors import ForgeError, ToolDefinitionError
from forge.core.logging import get_logger
from forge.tools import ErrorKind, Tool, ToolRegistry, ToolResult, from_record
from forge.tools.formats.names import NameMap
from forge.tools.integrations.mcp._convert import from_call_result

__all__ = ["MCPClient", "MCPConnectionError", "ServerSpec", "import_tools"]

logger = get_logger("mcp.client")
T = TypeVar("T")
ServerSpec = str | Sequence[str] | StdioServerParameters
"""An HTTP(S) URL, a command line (string or argument list) or `StdioServerParameters`."""
_KNOWN_HINTS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


class MCPConnectionError(ForgeError, ConnectionError):
    """The MCP server could not be reached, did not complete the handshake, or has gone."""


class MCPClient:
    """A connection to one MCP server whose tools are registered in a registry.

    Args:
        server: An ``http(s)://`` URL, a command line, or `StdioServerParameters`.
        registry: Where the imported tools are registered.
        prefix: Put before every imported tool's name.
        timeout: Seconds a call may take before it fails with ``timeout``.
        connect_timeout: Seconds to start or reach the server and list its tools.
        token: A bearer token sent to HTTP servers.
        follow_changes: Re-import when the server says its tool list changed.
        env: Extra environment variables for a server started from a command line
            (the SDK passes only a safe subset of this process's environment).
        mode: ``"auto"`` (the newest protocol the server offers) or ``"legacy"``
            (the 2025-11-25 ``initialize`` handshake, for servers that mishandle discovery).
    """

    def __init__(
        self,
        server: ServerSpec,
        registry: ToolRegistry,
        *,
        prefix: str = "",
        timeout: float = 30.0,
        connect_timeout: float = 30.0,
        token: str | None = None,
        follow_changes: bool = True,
        env: Mapping[str, str] | None = None,
        mode: Literal["auto", "legacy"] = "auto",
    ) -> None:
        self.server = server
        self.connect_timeout = connect_timeout
        self.mode = mode
        self._env = dict(env) if env else None
        self.registry = registry
        self.prefix = prefix
        self.names = NameMap()
        """Remote names (with the prefix) ↔ local names; mappings stay stable across re-imports."""
        self.timeout = timeout
        self._token = token
        self._follow = follow_changes
        self._imported: dict[str, Tool] = {}
        self._client: Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self._refresh_lock: asyncio.Lock | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- lifecycle -----------------------------------------------------------

    def connect(self) -> MCPClient:
        """Connect, import the tools and start following changes; return ``self``.

        Raises:
            MCPConnectionError: The server cannot be started or reached in ``connect_timeout``.
        """
        if self._thread is not None:
            raise RuntimeError("this MCPClient is already connected; create a new one")
        self._thread = threading.Thread(
            target=self._thread_main, name="forge-mcp-client", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(self.connect_timeout) or self._error is not None:
            reason = _root_cause(
                self._error or TimeoutError(f"no answer within {self.connect_timeout:g} s")
            )
            self.close()
            why = str(reason) or type(reason).__name__
            raise MCPConnectionError(
                f"cannot connect to MCP server {self._shown()}: {why}"
            ) from reason
        return self

    def close(self) -> None:
        """Deregister the imported tools and close the connection (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for local in list(self._imported):
            self.registry.deregister(local)
        self._imported.clear()
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(self.connect_timeout)

    def __enter__(self) -> MCPClient:
        return self if self._thread is not None else self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def tool_names(self) -> list[str]:
        """The local names of the tools imported so far."""
        return list(self._imported)

    # -- calls ---------------------------------------------------------------

    async def acall(self, remote_name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Call a remote tool from any event loop; never raises for server failures."""
        local = self.local_name(remote_name)
        try:
            outcome = await asyncio.wait_for(
                asyncio.wrap_future(self._submit(self._call(remote_name, dict(arguments)))),
                self.timeout,
            )
        except TimeoutError:
            return ToolResult.fail(
                f"The MCP tool {remote_name!r} did not answer within {self.timeout:g} seconds. "
                "The server may be overloaded or stuck; retrying may not help.",
                error_kind=ErrorKind.TIMEOUT,
            ).for_call(None, local)
        except Exception as exc:  # MCPError, OSError, transport errors: never raised to the model
            return self._unavailable(local, exc)
        return from_call_result(local, outcome)

    def _unavailable(self, local: str, exc: BaseException) -> ToolResult:
        return ToolResult.fail(
            f"The MCP server behind tool {local!r} failed: {str(exc) or type(exc).__name__}. "
            "It may have stopped; retrying may not help.",
            error_kind=ErrorKind.TOOL_ERROR,
        ).for_call(None, local)

    async def _call(self, remote: str, arguments: dict[str, Any]) -> types.CallToolResult:
        client = self._client
        if client is None or (self._stop is not None and self._stop.is_set()):
            raise MCPConnectionError("the connection is closed")
        return await client.call_tool(remote, arguments, read_timeout_seconds=self.timeout)

    def _submit(self, coro: Coroutine[Any, Any, T]) -> Any:
        loop = self._loop
        if loop is None or loop.is_closed() or self._closed:
            coro.close()
            raise MCPConnectionError("the connection is closed")
        return asyncio.run_coroutine_threadsafe(coro, loop)

    # -- the background loop -------------------------------------------------

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:
            self._error = self._error or exc
        finally:
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._refresh_lock = asyncio.Lock()
        transport = self._transport()
        async with Client(transport, mode=self.mode, message_handler=self._on_message) as client:
            self._client = client
            await self.refresh()
            self._ready.set()
            watcher = None
            if self._follow and client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                watcher = asyncio.create_task(self._listen(client))
            try:
                await self._stop.wait()
            finally:
                self._client = None
                if watcher is not None:
                    watcher.cancel()

    def _transport(self) -> Any:
        server = self.server
        if isinstance(server, StdioServerParameters):
            return server
        if isinstance(server, str) and server.startswith(("http://", "https://")):
            return _http_transport(server, self._token)
        argv = shlex.split(server) if isinstance(server, str) else list(server)
        if not argv:
            raise ValueError("an empty command line cannot start an MCP server")
        return StdioServerParameters(command=argv[0], args=argv[1:], env=self._env)

    async def _on_message(self, message: Any) -> None:
        if self._follow and isinstance(message, types.ToolListChangedNotification):
            task = asyncio.get_running_loop().create_task(self._safe_refresh())
            self._tasks.add(task)  # keep a reference until it is done
            task.add_done_callback(self._tasks.discard)

    async def _listen(self, client: Client) -> None:
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _event in events:
                    await self._safe_refresh()
        except (ListenNotSupportedError, SubscriptionLost, MCPError) as exc:
            logger.debug("not following tool list changes of %s: %s", self._shown(), exc)

    async def _safe_refresh(self) -> None:
        try:
            await self.refresh()
        except Exception:
            logger.warning("could not refresh the tools of %s", self._shown(), exc_info=True)

    async def refresh(self) -> None:
        """List the server's tools and bring the registry in line (runs on the client loop)."""
        client = self._client
        if client is None or self._refresh_lock is None:
            return
        async with self._refresh_lock, asyncio.timeout(self.timeout):
            remote = await _list_all(client)
            if self._closed:  # close() already deregistered the tools: do not bring them back
                return
            seen: set[str] = set()
            for spec in remote:
                local = self._import(spec)
                if local is not None:
                    seen.add(local)
            for local in [n for n in self._imported if n not in seen]:
                self._imported.pop(local)
                self.registry.deregister(local)

    def local_name(self, remote: str) -> str:
        """Return the local name of a remote tool (the prefix, then a valid mapping)."""
        return self.names.add(self.prefix + remote)

    def remote_name(self, local: str) -> str:
        """Return the remote tool name behind a local name."""
        return self.names.original(local).removeprefix(self.prefix)

    def _import(self, spec: types.Tool) -> str | None:
        local = self.local_name(spec.name)
        try:
            new = self._tool(local, spec)
        except ToolDefinitionError as exc:
            logger.warning("skipping MCP tool %r of %s: %s", spec.name, self._shown(), exc)
            return None
        old = self._imported.get(local)
        if (
            old is not None
            and old.to_dict() == new.to_dict()
            and old.annotations == new.annotations
        ):
            return local
        if old is None and local in self.registry:
            logger.warning("skipping MCP tool %r: %r is already a local tool", spec.name, local)
            return None
        self.registry.register(new, replace=old is not None)
        self._imported[local] = new
        return local

    def _tool(self, local: str, spec: types.Tool) -> Tool:
        remote = spec.name
        hints = (
            spec.annotations.model_dump(by_alias=True, exclude_none=True)
            if spec.annotations
            else {}
        )

        async def forward(arguments: dict[str, Any]) -> ToolResult:
            return await self.acall(remote, arguments)

        record: dict[str, Any] = {
            "name": local,
            "description": spec.description or f"The {remote!r} tool of an MCP server.",
            "parameters": spec.input_schema,
            "annotations": {k: v for k, v in hints.items() if k in _KNOWN_HINTS},
            "handler": forward,
            "category": "mcp",
            "tags": ["mcp"],
            "timeout": self.timeout,
        }
        if spec.title:
            record["display_name"] = spec.title
        if spec.output_schema is not None:
            record["output_schema"] = spec.output_schema
        tool = from_record(record)
        extra = {"mcp_name": remote, "mcp_server": self._shown()}
        return tool.replace(metadata=dataclasses.replace(tool.metadata, extra=extra))

    def _shown(self) -> str:
        server = self.server
        if isinstance(server, StdioServerParameters):
            return shlex.join([server.command, *server.args])
        return server if isinstance(server, str) else shlex.join(server)


def _root_cause(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (the SDK's task groups wrap every failure)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _list_all(client: Client) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(1000):  # a server whose cursors never end cannot hang the import
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


@asynccontextmanager
async def _http_transport(url: str, token: str | None) -> AsyncIterator[Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def import_tools(
    registry: ToolRegistry,
    server: ServerSpec,
    *,
    prefix: str = "",
    timeout: float = 30.0,
    connect_timeout: float = 30.0,
    token: str | None = None,
    follow_changes: bool = True,
    env: Mapping[str, str] | None = None,
    mode: Literal["auto", "legacy"] = "auto",
) -> MCPClient:
    """Connect to an MCP server and register its tools in ``registry``.

    Close the returned client to deregister them and end the connection.

    Raises:
        MCPConnectionError: The server cannot be started or reached in ``connect_timeout``.
    """
    client = MCPClient(
        server, registry, prefix=prefix, timeout=timeout, connect_timeout=connect_timeout,
        token=token,
        follow_changes=follow_changes, env=env, mode=mode,
    )  # fmt: skip
    return client.connect()
