"""Import the tools of a running MCP server into a registry.

`MCPClient` keeps one connection to the server (a stdio command or a
streamable HTTP URL) on a background thread with its own event loop, so its
tools can be called from any thread or event loop, sync or async. Each remote
tool is registered as a local tool (optionally under a prefix; names our rule
rejects are mapped reversibly by `NameMap`, whatever the listing order) whose
handler forwards the call. The import follows ``notifications/tools/list_changed``.

Failures never hang a caller and never take down other tools: a connect that
fails within ``connect_timeout`` leaves no thread or process behind; a call
gets one deadline (``timeout``, kind ``timeout``); a lost HTTP connection is
re-established with backoff; a server that cannot be reached again (or a
stdio server that exited) has its tools deregistered, with a warning.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import threading
from collections.abc import Coroutine, Mapping
from contextlib import AsyncExitStack, suppress
from typing import Any, Literal, TypeVar, cast

import mcp_types as types
from mcp import Client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from forge.core.errors import ToolDefinitionError
from forge.core.logging import get_logger
from forge.mcp._convert import from_call_result
from forge.mcp._outcomes import (
    CallFailure,
    MCPConnectionError,
    call_failure,
)
from forge.mcp.transport import ServerSpec, Transport, is_http, shown
from forge.tools import Tool, ToolRegistry, ToolResult, from_record
from forge.tools.execution import failures
from forge.tools.formats.mcp import WRAPPED_META, unwrap_output_schema
from forge.tools.formats.names import NameMap
from forge.tools.integrations.otel import attach_context, inject_context

__all__ = ["MCPClient", "MCPConnectionError", "ServerSpec", "import_tools"]

logger = get_logger("mcp.client")
T = TypeVar("T")
_KNOWN_HINTS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_SHUTDOWN_GRACE = 10.0
"""Seconds past a deadline for the SDK to stop what it started (a stdio server gets 2 s, then
SIGTERM, then SIGKILL): a backstop only, the loop enforces the deadlines itself."""
_BACKOFF_FIRST, _BACKOFF_MAX = 0.25, 8.0
_PROBE_GRACE = 5.0


class MCPClient:
    """A connection to one MCP server whose tools are registered in a registry.

    Args:
        server: An ``http(s)://`` URL, a command line, or `StdioServerParameters`.
        registry: Where the imported tools are registered.
        prefix: Put before every imported tool's name.
        timeout: Seconds a call may take before it fails with ``timeout``.
        connect_timeout: Seconds to start or reach the server and list its tools.
        token: A bearer token sent to HTTP servers (``Authorization: Bearer <token>``).
        headers: Other HTTP headers sent to HTTP servers (an API key, say).
        follow_changes: Re-import when the server says its tool list changed.
        env: Extra environment variables for a server started from a command line
            (the SDK passes only a safe subset of this process's environment).
        mode: ``"auto"`` (the newest protocol the server offers) or ``"legacy"``
            (the 2025-11-25 ``initialize`` handshake, for servers that mishandle discovery).
        reconnect_attempts: How many times to reconnect to an HTTP server whose
            connection was lost (waiting 0.25 s, 0.5 s, 1 s, ... up to 8 s between
            attempts) before deregistering its tools.
        probe_interval: Seconds between liveness probes (a ``tools/list``, which also
            picks up changes a server did not announce); a probe that fails, or gets no
            answer within ``probe_interval`` plus 5 s, counts as a lost connection. A
            stdio server that dies while idle is noticed this way. ``None``: no probes.
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
        headers: Mapping[str, str] | None = None,
        follow_changes: bool = True,
        env: Mapping[str, str] | None = None,
        mode: Literal["auto", "legacy"] = "auto",
        reconnect_attempts: int = 6,
        probe_interval: float | None = None,
    ) -> None:
        if probe_interval is not None and not probe_interval > 0:
            raise ValueError(f"probe_interval must be positive seconds, got {probe_interval!r}")
        self.server = server
        self.registry = registry
        self.prefix = prefix
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.mode = mode
        self.reconnect_attempts = reconnect_attempts
        self.probe_interval = probe_interval
        self.names = NameMap()
        """Remote names (with the prefix) ↔ local names; mappings stay stable across re-imports."""
        self.error: str | None = None
        """Why the client gave up on the server (its tools were then deregistered), or ``None``."""
        self._transport = Transport(server, token=token, headers=headers, env=env)
        self._follow = follow_changes
        self._imported: dict[str, Tool] = {}
        self._skipped: set[str] = set()
        self._client: Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._main_task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lost: asyncio.Event | None = None
        self._ready = threading.Event()
        self._gone = threading.Event()
        self._failure: BaseException | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self._refresh_lock: asyncio.Lock | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- lifecycle -----------------------------------------------------------

    def connect(self) -> MCPClient:
        """Connect, import the tools and start following changes; return ``self``.

        A failed connect stops whatever it started (thread, connection, server
        process) before raising.

        Raises:
            MCPConnectionError: The server cannot be started or reached in ``connect_timeout``,
                or refused the connection (the message says why: credentials, a URL
                that is not an MCP endpoint, a command that exits), or the client was
                closed before it connected.
        """
        if self._thread is not None:
            raise RuntimeError("this MCPClient is already connected; create a new one")
        if self._closed:
            raise MCPConnectionError(
                f"cannot connect to MCP server {self._shown()}: this client was closed"
            )
        self._thread = threading.Thread(
            target=self._thread_main, name="forge-mcp-client", daemon=True
        )
        self._thread.start()
        answered = self._ready.wait(self.connect_timeout + _SHUTDOWN_GRACE)
        if answered and self._failure is None:
            return self
        failure = self._failure or TimeoutError()
        self.close()
        problem = self._scrub(self._connect_problem(failure))
        raise MCPConnectionError(
            f"cannot connect to MCP server {self._shown()}: {problem}"
        ) from _root_cause(failure)

    def close(self) -> None:
        """Deregister the imported tools and close the connection (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._deregister_all()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with suppress(RuntimeError):  # the loop closed in between
                loop.call_soon_threadsafe(self._wake)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(self.connect_timeout + _SHUTDOWN_GRACE)

    def __enter__(self) -> MCPClient:
        return self if self._thread is not None else self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_gone(self, timeout: float | None = None) -> bool:
        """Wait until the connection ended for good (given up or closed); whether it did."""
        return self._gone.wait(timeout)

    @property
    def tool_names(self) -> frozenset[str]:
        """The local names of the tools imported so far, as a set."""
        return frozenset(self._imported)

    @property
    def connected(self) -> bool:
        """Whether the connection is up now (``False`` while reconnecting, after close or loss)."""
        return self._client is not None and not self._closed

    def _connect_problem(self, failure: BaseException) -> str:
        reason = _root_cause(failure)
        if isinstance(reason, MCPError):  # an HTTP error status comes back as one
            explained = self._transport.status.explain(self._transport.credentials)
            if explained is not None:
                return explained
        if isinstance(reason, TimeoutError):
            return f"no answer within {self.connect_timeout:g} s (connect_timeout)"
        return str(reason) or type(reason).__name__

    # -- calls ---------------------------------------------------------------

    async def acall(self, remote_name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Call a remote tool from any event loop; never raises for server failures.

        The call has one deadline, ``timeout``: when it passes, the result has kind ``timeout``.
        """
        backstop = self.timeout + _SHUTDOWN_GRACE
        return await self._acall(remote_name, arguments, self.timeout, backstop)

    async def _acall(
        self, remote: str, arguments: Mapping[str, Any], seconds: float, backstop: float
    ) -> ToolResult:
        local = self.local_name(remote)
        meta = inject_context()  # taken here: the client's loop runs in another thread
        try:
            future = self._submit(self._call(local, remote, dict(arguments), seconds, meta))
        except MCPConnectionError as exc:
            return self._failed(local, exc, seconds).result
        try:
            result: ToolResult = await asyncio.wait_for(asyncio.wrap_future(future), backstop)
        except TimeoutError:  # the client's loop did not answer in time (it is stuck)
            return failures.timeout(local, seconds)
        return result

    async def _call(
        self, local: str, remote: str, arguments: dict[str, Any], seconds: float,
        meta: dict[str, str],
    ) -> ToolResult:  # fmt: skip
        """One ``tools/call`` on the client's loop, under the call's one deadline.

        ``meta`` is the caller's trace context (`inject_context`), sent in ``_meta``.
        """
        client, lost = self._client, self._lost
        if client is None:  # nothing to blame: a connection being made now is not lost
            down = MCPConnectionError("not connected (the connection was lost or closed)")
            return self._failed(local, down, seconds).result
        try:
            with attach_context(meta):  # the SDK's own span, if any, is the call's child
                async with asyncio.timeout(seconds):
                    answer = await client.call_tool(remote, arguments, meta=_request_meta(meta))
        except Exception as exc:
            failure = self._failed(local, exc, seconds)
            if failure.lost and lost is not None:  # the event of the connection ``client`` is on
                lost.set()
            return failure.result
        return from_call_result(local, answer)

    def _failed(self, local: str, exc: BaseException, seconds: float) -> CallFailure:
        reconnects = is_http(self.server) and self.reconnect_attempts > 0 and not self._closed
        failure = call_failure(local, self._shown(), exc, seconds, reconnects=reconnects)
        error = failure.result.error
        clean = self._scrub(error) if error else error
        if clean == error:
            return failure
        return dataclasses.replace(failure, result=failure.result.replace(error=clean))

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        loop = self._loop
        if loop is None or loop.is_closed() or self._closed:
            coro.close()
            raise MCPConnectionError(self.error or "the connection is closed")
        try:
            return asyncio.run_coroutine_threadsafe(coro, loop)
        except RuntimeError:  # the loop closed in between
            coro.close()
            raise MCPConnectionError(self.error or "the connection is closed") from None

    # -- the background loop -------------------------------------------------

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # a cancelled connect ends here too
            self._failure = self._failure or exc
        finally:
            self._client = None
            self._ready.set()
            self._gone.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._main_task = asyncio.current_task()
        self._stop = asyncio.Event()
        self._refresh_lock = asyncio.Lock()
        if self._closed:  # closed while the thread was starting
            self._failure = MCPConnectionError("the client was closed while connecting")
            return
        try:
            why = await self._connection()
        except Exception as exc:
            self._failure = exc
            return
        attempt = 0
        while not self._stop.is_set():
            if not is_http(self.server) or attempt >= self.reconnect_attempts:
                self._give_up(why, attempt)
                return
            delay = min(_BACKOFF_FIRST * 2**attempt, _BACKOFF_MAX)
            attempt += 1
            with suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)
            if self._stop.is_set():
                return
            try:
                why = await self._connection(reconnect=True)
            except Exception as exc:
                why = self._why(exc)
                logger.info("reconnecting to %s failed: %s", self._shown(), why)
            else:
                attempt = 0

    async def _connection(self, *, reconnect: bool = False) -> str:
        """Connect, import and serve until the connection ends; return why it ended.

        A ``reconnect`` that succeeds is logged.

        Raises:
            Exception: The connection or the first listing failed (``TimeoutError``
                after ``connect_timeout``); everything started is stopped first.
        """
        lost = self._lost = asyncio.Event()
        ready = False
        try:
            async with AsyncExitStack() as stack:
                async with asyncio.timeout(self.connect_timeout):
                    client = Client(
                        self._transport.open(), mode=self.mode, message_handler=self._on_message
                    )
                    self._client = await stack.enter_async_context(client)
                    await self.refresh()
                ready = True
                self._ready.set()
                if reconnect:
                    logger.info("reconnected to %s", self._shown())
                if self._follow and client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                    stack.callback(self._spawn(self._listen(client, lost)).cancel)
                if self.probe_interval is not None:
                    stack.callback(self._spawn(self._probe(self.probe_interval, lost)).cancel)
                await lost.wait()
                self._client = None  # calls fail fast from now on, not on a session being closed
        except Exception as exc:
            if not ready:
                raise
            return self._why(exc)
        finally:
            self._client = None
        return "the connection was lost"

    def _wake(self) -> None:
        """Stop the loop's work (runs on the loop): end the session, or cancel a connect."""
        if self._stop is not None:
            self._stop.set()
        if self._lost is not None:
            self._lost.set()
        if self._client is None and self._main_task is not None:
            self._main_task.cancel()

    def _give_up(self, why: str, attempts: int) -> None:
        names = self._deregister_all()
        tried = f" and {attempts} reconnect attempts failed" if attempts else ""
        self.error = self._scrub(f"the MCP server {self._shown()} is gone ({why}){tried}")
        logger.warning(
            "%s; its tools were deregistered: %s", self.error, ", ".join(names) or "(none)"
        )

    def _deregister_all(self) -> list[str]:
        names = list(self._imported)
        self._imported.clear()
        for local in names:
            self.registry.deregister(local)
        return names

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)  # keep a reference until it is done
        task.add_done_callback(self._tasks.discard)
        return task

    async def _on_message(self, message: Any) -> None:
        if self._follow and isinstance(message, types.ToolListChangedNotification):
            self._spawn(self._safe_refresh())

    async def _listen(self, client: Client, lost: asyncio.Event) -> None:
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _event in events:
                    await self._safe_refresh()
        except (ListenNotSupportedError, MCPError) as exc:
            logger.debug("not following tool list changes of %s: %s", self._shown(), self._why(exc))
        except SubscriptionLost:
            lost.set()

    async def _probe(self, interval: float, lost: asyncio.Event) -> None:
        """List the tools every ``interval`` seconds; a failed listing means the server is lost."""
        while not lost.is_set():
            await asyncio.sleep(interval)
            try:
                async with asyncio.timeout(interval + _PROBE_GRACE):
                    await self.refresh()
            except Exception as exc:
                logger.info("%s did not answer a probe: %s", self._shown(), self._why(exc))
                lost.set()

    async def _safe_refresh(self) -> None:
        try:
            await self.refresh()
        except Exception as exc:
            logger.warning("could not refresh the tools of %s: %s", self._shown(), self._why(exc))

    # -- the import ----------------------------------------------------------

    async def refresh(self) -> None:
        """List the server's tools and bring the registry in line (runs on the client loop)."""
        client = self._client
        if client is None or self._refresh_lock is None:
            return
        async with self._refresh_lock, asyncio.timeout(self.timeout):
            remote = await _list_all(client)
            if self._closed:  # close() already deregistered the tools: do not bring them back
                return
            self.names.add_all(self.prefix + spec.name for spec in remote)
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
        if spec.execution is not None and spec.execution.task_support == "required":
            if spec.name not in self._skipped:
                self._skipped.add(spec.name)
                logger.warning(
                    "skipping MCP tool %r of %s: it requires task-augmented execution "
                    "(execution.taskSupport 'required'), which this client does not support",
                    spec.name,
                    self._shown(),
                )
            return None
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
            and old.metadata == new.metadata
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
        # The tool's own timeout owns the call; the client's deadline is a backstop behind it.
        seconds, backstop = self.timeout, self.timeout + _SHUTDOWN_GRACE

        async def forward(arguments: dict[str, Any]) -> ToolResult:
            return await self._acall(remote, arguments, backstop, backstop)

        record: dict[str, Any] = {
            "name": local,
            "description": spec.description or f"The {remote!r} tool of an MCP server.",
            "parameters": spec.input_schema,
            "annotations": {k: v for k, v in hints.items() if k in _KNOWN_HINTS},
            "handler": forward,
            "category": "mcp",
            "tags": ["mcp"],
            "timeout": seconds,
        }
        if spec.title:
            record["display_name"] = spec.title
        if spec.output_schema is not None:
            wrapped = isinstance(spec.meta, dict) and spec.meta.get(WRAPPED_META) is True
            output = spec.output_schema
            record["output_schema"] = unwrap_output_schema(output) if wrapped else output
        tool = from_record(record)
        extra = {"mcp_name": remote, "mcp_server": self._shown()}
        return tool.replace(metadata=dataclasses.replace(tool.metadata, extra=extra))

    def _shown(self) -> str:
        return shown(self.server)

    def _scrub(self, text: str) -> str:
        """``text`` without this connection's secrets (headers, token, environment, URL parts)."""
        return self._transport.secrets.scrub(text)

    def _why(self, exc: BaseException) -> str:
        """What went wrong, from the root cause of ``exc``, without secrets."""
        cause = _root_cause(exc)
        return self._scrub(str(cause) or type(cause).__name__)


def _request_meta(meta: dict[str, str]) -> types.RequestParamsMeta | None:
    """The trace headers as a request's ``_meta`` (SEP-414: ``traceparent``, ``tracestate``)."""
    return cast("types.RequestParamsMeta", meta) if meta else None


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


def import_tools(
    registry: ToolRegistry,
    server: ServerSpec,
    *,
    prefix: str = "",
    timeout: float = 30.0,
    connect_timeout: float = 30.0,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    follow_changes: bool = True,
    env: Mapping[str, str] | None = None,
    mode: Literal["auto", "legacy"] = "auto",
    reconnect_attempts: int = 6,
    probe_interval: float | None = None,
) -> MCPClient:
    """Connect to an MCP server and register its tools in ``registry`` (see `MCPClient`).

    Close the returned client to deregister them and end the connection.

    Raises:
        MCPConnectionError: The server cannot be started or reached in ``connect_timeout``.
    """
    client = MCPClient(
        server, registry, prefix=prefix, timeout=timeout, connect_timeout=connect_timeout,
        token=token, headers=headers, follow_changes=follow_changes, env=env, mode=mode,
        reconnect_attempts=reconnect_attempts, probe_interval=probe_interval,
    )  # fmt: skip
    return client.connect()
