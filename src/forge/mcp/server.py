"""`MCPToolServer`: a `ToolRegistry` served with the MCP SDK's low-level server.

``tools/list`` is built from the registry (cached per registry version); a
tool no client could read is left out with a warning, so one bad definition
never breaks the listing of the others, and output schemas that are not
objects are wrapped (`forge.tools.formats.mcp`);
``tools/call`` goes through the server's `ToolExecutor`, so failures a model causes come
back as ``isError`` results and only an unknown tool is a protocol error
(``-32602``, as the protocol says). A running tool reaches its client through
its `ExecutionContext` (`call_context`: progress, log
messages, with ``logging/setLevel`` declared, elicitation and sampling), and
the client's ``notifications/cancelled`` cancels the call. Registry changes are announced with
``notifications/tools/list_changed``: on the standing connection of
handshake-era clients, and on ``subscriptions/listen`` streams of 2026-07-28
clients.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import jsonschema_rs
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError

import forge
from forge.core.logging import get_logger
from forge.mcp._listing import listable_tools
from forge.mcp._log_levels import LogLevels
from forge.tools import ErrorKind, RegistryEvent, Tool, ToolRegistry, ToolResult, ToolView
from forge.tools.registry import EVENTS
from forge.tools.schema import no_remote_refs
from forge.tools.values import thaw

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.models import InitializationOptions
    from mcp.server.session import ServerSession

    from forge.tools import ToolExecutor

__all__ = ["MCPToolServer"]

logger = get_logger("mcp.server")
_MAX_PLAIN_SESSIONS = 1024


class _Server(Server[Any]):
    """The SDK's low-level server, declaring ``tools.listChanged`` on every transport.

    The streamable HTTP session manager builds the handshake options itself, with
    no way to pass notification options, so the default is changed here.
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        """The handshake options, with tool list changes announced."""
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


class MCPToolServer:
    """Serve a registry over MCP.

    Args:
        registry: The tools to serve; changes while serving are announced.
        executor: Runs the calls (default: a new `ToolExecutor` for ``registry``, closed
            by `close`): give one to add permissions, hooks, metrics or limits. Each
            call runs with `call_context` of the executor's context, so its tool can
            reach the client.
        name: The server name reported to clients.
        tracing: Keep the SDK's OpenTelemetry span per message. By default only when a
            tracer provider is installed: the no-op spans otherwise cost a large share
            of each call's CPU time. Either way a ``tools/call`` runs in the trace context
            the client sent in ``_meta`` (``traceparent``), so the spans of an executor
            hook (`forge.tools.integrations.otel`) continue the client's trace.
    """

    def __init__(
        self,
        registry: ToolRegistry | ToolView,
        *,
        executor: ToolExecutor | None = None,
        name: str = "forge-tools",
        tracing: bool | None = None,
    ) -> None:
        self.registry = registry
        self._owned: ToolExecutor | None = None
        self._executor = executor
        self._executor_lock = threading.Lock()
        self._bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self._bus)
        self._connections: weakref.WeakSet[Any] = weakref.WeakSet()
        self._plain_sessions: deque[ServerSession] = deque(maxlen=_MAX_PLAIN_SESSIONS)
        self._listing: tuple[int, list[types.Tool]] = (-1, [])
        self._output_checks: dict[str, tuple[Tool, Callable[[Any], list[str]]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.lowlevel: Server[Any] = _Server(
            name,
            version=forge.__version__,
            get_tool_input_schema=self._input_schema,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=self._listen,
        )
        self._log_levels = LogLevels()
        self.lowlevel.add_request_handler(
            "logging/setLevel", types.SetLevelRequestParams, self._log_levels.set_level
        )
        self._sdk_tracing = tracing if tracing is not None else _tracing_configured()
        if not self._sdk_tracing:
            self.lowlevel.middleware[:] = [
                m for m in self.lowlevel.middleware if type(m).__name__ != "OpenTelemetryMiddleware"
            ]
        self.lowlevel.middleware.append(self._track_sessions)

    @property
    def executor(self) -> ToolExecutor:
        """The executor running the calls (the server's own is made by the first call)."""
        executor = self._executor
        if executor is None:
            with self._executor_lock:
                if self._executor is None:
                    from forge.tools import ToolExecutor

                    self._executor = self._owned = ToolExecutor(self.registry)
                executor = self._executor
        return executor

    def close(self) -> None:
        """Release the executor this server created (its worker threads)."""
        if self._owned is not None:
            self._owned.close()

    def initialization_options(self) -> InitializationOptions:
        """The handshake options: tools with ``listChanged`` declared."""
        return self.lowlevel.create_initialization_options()

    @asynccontextmanager
    async def announcing_changes(self) -> AsyncIterator[None]:
        """While open, registry changes are announced to connected clients."""
        self._loop = asyncio.get_running_loop()
        for event in EVENTS:
            self.registry.on(event, self._on_registry_event)
        try:
            yield
        finally:
            for event in EVENTS:
                self.registry.off(event, self._on_registry_event)
            self._listen.close()
            self._loop = None

    # -- handlers ------------------------------------------------------------

    def _tools(self) -> list[types.Tool]:
        version, tools = self._listing
        if version != self.registry.version:
            version = self.registry.version
            tools = listable_tools(self.registry.to_provider("mcp"))
            self._listing = (version, tools)
        return tools

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self._tools())

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        found = self.registry.get(name)
        return found.parameters if found is not None else None

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        from forge.mcp._channel import CLIENT, ClientChannel  # with the first call
        from forge.mcp._convert import call_result
        from forge.tools.integrations.otel import attach_context

        name = params.name
        token = CLIENT.set(ClientChannel(ctx, self._log_levels))
        try:
            # The SDK's span, when kept, already continues the client's trace.
            with attach_context(None if self._sdk_tracing else params.meta):
                result = await self._run_call(name, dict(params.arguments or {}))
        finally:
            CLIENT.reset(token)
        if result.error_kind is ErrorKind.UNKNOWN_TOOL and name not in self.registry:
            raise MCPError(types.INVALID_PARAMS, result.error or f"Unknown tool: {name}")
        found = self.registry.get(name)
        schema = found.output_schema if found is not None else None
        if found is not None and schema is not None and _has_output(result):
            result = self._check_output(found, result)
        return call_result(result, output_schema=schema)

    async def _run_call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one ``tools/call`` through the executor, its tool wired to the client."""
        from forge.mcp._channel import call_context

        executor = self.executor
        return await executor.run(name, arguments, call_context(executor.context))

    def _check_output(self, tool: Tool, result: ToolResult) -> ToolResult:
        """Fail a result whose output (as JSON) breaks the tool's declared output schema."""
        cached = self._output_checks.get(tool.name)
        if cached is None or cached[0] is not tool:
            cached = (tool, _output_checker(tool))
            self._output_checks[tool.name] = cached
        data = tool.dump_output(result.output)
        problems = cached[1](data)
        if not problems:
            return result.replace(output=data)
        return ToolResult.fail(
            f"Tool {tool.name!r} returned output that does not match its output schema: "
            + "; ".join(problems[:5])
            + ". This is a fault in the tool; retrying will not help.",
            error_kind=ErrorKind.TOOL_ERROR,
            retryable=False,
        ).for_call(None, tool.name)

    # -- list_changed --------------------------------------------------------

    async def _track_sessions(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Remember handshake-era connections, which get change notifications directly."""
        result = await call_next(ctx)
        if ctx.method == "notifications/initialized":
            connection = getattr(ctx.session, "_connection", None)
            try:
                self._connections.add(connection)
            except TypeError:
                self._plain_sessions.append(ctx.session)
        return result

    def _on_registry_event(self, event: RegistryEvent) -> None:
        """Called on any thread after a registry change: announce it on the server's loop."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._schedule_announcement)
        except RuntimeError:  # the loop closed between the check and the call
            return

    def _schedule_announcement(self) -> None:
        if self._pending:
            return  # a burst of changes is announced once
        self._pending = True
        task = asyncio.get_running_loop().create_task(self._announce())
        self._tasks.add(task)  # keep a reference until it is done
        task.add_done_callback(self._tasks.discard)

    async def _announce(self) -> None:
        self._pending = False
        await self._bus.publish(ToolsListChanged())
        targets: list[Any] = [*self._connections, *self._plain_sessions]
        for target in targets:
            try:
                await target.send_tool_list_changed()
            except Exception:
                logger.debug("dropping a client that cannot take notifications", exc_info=True)
                self._connections.discard(target)


def _has_output(result: ToolResult) -> bool:
    """Whether a result carries the handler's output (a dry run's has none to check)."""
    return result.success and not result.metadata.get("dry_run")


def _tracing_configured() -> bool:
    """Whether an OpenTelemetry tracer provider is installed (the API alone gives a proxy)."""
    from opentelemetry import trace

    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _output_checker(tool: Tool) -> Callable[[Any], list[str]]:
    """Compile the tool's output schema; return a function listing the output's problems."""
    try:
        validator = jsonschema_rs.validator_for(
            thaw(tool.output_schema or {}), retriever=no_remote_refs
        )
    except (ValueError, jsonschema_rs.ValidationError) as exc:
        reason = f"its output schema is invalid: {str(exc).splitlines()[0]}"
        return lambda _output: [reason]

    def problems(output: Any) -> list[str]:
        try:
            errors = list(validator.iter_errors(output))
        except (ValueError, TypeError) as exc:
            return [f"the output is not JSON: {exc}"]
        return [
            f"{'.'.join(str(p) for p in e.instance_path) or '(root)'}: {e.message}" for e in errors
        ]

    return problems
