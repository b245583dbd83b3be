"""Many MCP servers behind one: the gateway of ``forge-tools serve --servers servers.json``.

Each server of a `GatewayConfig` is imported by its own `MCPClient` under its
prefix (``time__get_current_time``) into one registry, which one `MCPToolServer`
serves. Calls go through one `ToolExecutor`, so the engine's timeouts (the
server's, or a tool's own), permissions (the server's ``allow`` and ``deny``
patterns; tools they exclude are not listed either) and metrics (per tool, and
summed per server by `Gateway.server_metrics`) apply.

Every name the gateway exposes has one owner, fixed by the configuration: no server's
prefix starts another's (`check_prefixes`), and a tool is served only under a name that
starts with its own server's prefix, so no server can take another's names, before or
after a restart. A tool whose name would not (a name cut to fit the length limit) or that
would take the search tool's name in search-only mode is refused, with a warning. The
``allow`` and ``deny`` rules of the server that serves a tool are matched on both the
name clients see (without the prefix) and the server's own name for it.

Servers come and go independently: a server that is not up yet, crashed or was
restarted is reconnected with capped, jittered exponential backoff; while it is
away its tools are withdrawn (clients get ``notifications/tools/list_changed``)
and a call of one of them fails at once, saying the server is not connected.
With ``search_only``, clients see only ``search_tools`` and, per session, the
tools it revealed: each MCP session has a `DeferredSession` made with the
config's ``search`` options (`forge.tools.integrations.mcp.search_only`).
"""

from __future__ import annotations

import fnmatch
import threading
import time
from collections.abc import Mapping
from typing import Any

from forge.core.logging import get_logger
from forge.tools import (
    Decision,
    ErrorKind,
    ExecutionMetrics,
    PermissionRequest,
    Tool,
    ToolExecutor,
    ToolRegistry,
    ToolResult,
    ToolView,
)
from forge.tools.integrations.mcp._backoff import Backoff
from forge.tools.integrations.mcp._upstream import State, Upstream
from forge.tools.integrations.mcp.gateway_config import (
    GatewayConfig,
    ServerConfig,
    ServersFileError,
    check_prefixes,
)
from forge.tools.integrations.mcp.runner import executor_runner
from forge.tools.integrations.mcp.server import MCPToolServer
from forge.tools.schema import is_valid_name

__all__ = ["Gateway"]

logger = get_logger("mcp.gateway")


class Gateway:
    """The servers of a `GatewayConfig`, kept connected and served as one registry.

    Args:
        config: The servers and options (see `load_servers`).
        backoff: Delays between reconnect attempts (default: the config's ``reconnect``,
            0.5 s doubling up to 30 s, each cut by up to half at random).
        probe_interval: Seconds between liveness probes of each connected server
            (default: the config's; ``0``: none, and a stdio server that dies while
            idle is then noticed only at its next call).
    """

    def __init__(
        self,
        config: GatewayConfig,
        *,
        backoff: Backoff | None = None,
        probe_interval: float | None = None,
    ) -> None:
        check_prefixes(config.servers, "the gateway's servers")
        self.config = config
        self.registry = ToolRegistry()
        """Every tool of every connected server (including those ``allow``/``deny`` exclude)."""
        self.view: ToolView = self.registry.filtered(self._served)
        """The tools served: the registry without those the servers' rules exclude."""
        self.metrics = ExecutionMetrics()
        self.executor = ToolExecutor(self.view, permissions=self._permit, metrics=self.metrics)
        self._run = executor_runner(self.executor)
        backoff = backoff or Backoff(first=config.reconnect_first, cap=config.reconnect_cap)
        probe = config.probe_interval if probe_interval is None else probe_interval or None
        self._search_name = str(config.search.get("search_name", "search_tools"))
        self._refused: set[tuple[str, str]] = set()
        self._refused_lock = threading.Lock()
        self.upstreams: dict[str, Upstream] = {
            s.name: Upstream(s, self.registry, backoff=backoff, probe_interval=probe,
                             admit=self._admit)
            for s in config.servers
        }  # fmt: skip
        self._by_prefix = sorted(config.servers, key=lambda s: len(s.prefix), reverse=True)
        for pin in config.search.get("pinned", ()):
            if not is_valid_name(pin):
                raise ServersFileError(
                    f"the pinned tool {pin!r} is no tool name: a pin names one tool, "
                    "<prefix><tool>, without wildcards"
                )
            if self.owner(pin) is None:
                prefixes = ", ".join(repr(s.prefix) for s in config.servers) or "none"
                raise ServersFileError(
                    f"the pinned tool {pin!r} belongs to no server: a gateway's tools are named "
                    f"<prefix><tool> (prefixes: {prefixes})"
                )

    def start(self, wait: float | None = None) -> Gateway:
        """Start connecting every server; wait up to ``wait`` s for each first attempt.

        ``None`` waits as long as the longest ``connect_timeout``. Servers not up by then
        keep being retried in the background.
        """
        for upstream in self.upstreams.values():
            upstream.start()
        limit = wait if wait is not None else max(
            (s.connect_timeout for s in self.config.servers), default=0.0
        )  # fmt: skip
        deadline = time.monotonic() + limit
        for upstream in self.upstreams.values():
            upstream.wait_tried(max(0.0, deadline - time.monotonic()))
        return self

    def close(self) -> None:
        """Disconnect every server (stdio servers are stopped) and release the executor."""
        closing = [
            threading.Thread(target=u.close, name=f"forge-gateway-close-{u.name}")
            for u in self.upstreams.values()
        ]
        for thread in closing:  # in parallel: each stdio server may take its grace period
            thread.start()
        for thread in closing:
            thread.join()
        self.executor.close()

    def __enter__(self) -> Gateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def states(self) -> dict[str, State]:
        """Each server's state: ``starting``, ``up``, ``down`` or ``stopped``."""
        return {name: u.state for name, u in self.upstreams.items()}

    def mcp_server(self, *, name: str = "forge-tools-gateway") -> MCPToolServer:
        """An `MCPToolServer` for the gateway (search-only if the config says so)."""
        if self.config.search_only:
            from forge.tools.integrations.mcp.search_only import SearchOnlyServer

            return SearchOnlyServer(self.view, runner=self.run, name=name, **self.search_options())
        return MCPToolServer(self.view, runner=self.run, name=name)

    def search_options(self) -> dict[str, Any]:
        """The config's ``search`` options for each session's `DeferredSession`.

        A server's tools form one toolkit (``siblings`` reveals them together), and
        ``pin_used`` reads the gateway's metrics.
        """
        options = dict(self.config.search)
        if options.get("siblings"):
            options.setdefault("groups", _server_of)
        if options.get("pin_used"):
            options.setdefault("usage", self.metrics)
        return options

    async def run(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one call (a `CallRunner`): a tool of a server that is away fails at once."""
        if name not in self.view:
            owner = self.owner(name)
            if owner is not None and owner.state != "up":
                return ToolResult.fail(
                    f"Tool {name!r} is not available: {owner.unavailable()}.",
                    error_kind=ErrorKind.TOOL_ERROR,
                    retryable=True,
                ).for_call(None, name)
        return await self._run(name, arguments)

    def owner(self, name: str) -> Upstream | None:
        """The one server whose prefix ``name`` carries, or ``None``."""
        for server in self._by_prefix:
            if name.startswith(server.prefix):
                return self.upstreams[server.name]
        return None

    def refusal(self, server: ServerConfig, name: str) -> str | None:
        """Why ``server`` may not serve a tool under ``name``, or ``None`` if it may.

        Only a name that carries the server's own prefix is its (no other server's prefix
        can then match it); in search-only mode the search tool's name is no server's.
        """
        if not name.startswith(server.prefix):
            return (
                f"its name {name!r} (cut to fit the length limit) does not start with the "
                f"server's prefix {server.prefix!r}: give the server a shorter prefix"
            )
        if self.config.search_only and name == self._search_name:
            return (
                f"{name!r} is the name of the gateway's search tool: give the server a "
                "'forge': {'prefix': ...}"
            )
        return None

    def _admit(self, server: ServerConfig, name: str, remote: str) -> bool:
        """Whether a server's tool is registered as ``name``; a refusal is logged once."""
        why = self.refusal(server, name)
        if why is None:
            return True
        with self._refused_lock:
            first = (server.name, remote) not in self._refused
            self._refused.add((server.name, remote))
        if first:
            logger.warning("refusing the tool %r of the MCP server %r: %s", remote,
                           server.name, why)  # fmt: skip
        return False

    def server_metrics(self) -> dict[str, Mapping[str, int]]:
        """Calls, successes, failures and timeouts summed per server."""
        snapshot = self.metrics.snapshot()
        totals: dict[str, dict[str, int]] = {
            name: {"calls": 0, "successes": 0, "failures": 0, "timeouts": 0}
            for name in self.upstreams
        }
        for tool, stats in snapshot.tools.items():
            owner = self.owner(tool)
            if owner is None:
                continue
            row = totals[owner.name]
            for key in row:
                row[key] += int(getattr(stats, key))
        return dict(totals)

    # -- rules ------------------------------------------------------------------------

    def _config_of(self, tool: Tool) -> ServerConfig | None:
        """The entry of the server that serves ``tool`` (``None``: no server's)."""
        upstream = self.upstreams.get(_server_of(tool) or "")
        return upstream.config if upstream is not None else None

    def _served(self, tool: Tool) -> bool:
        config = self._config_of(tool)
        return config is not None and _allowed(config, tool) is None

    def _permit(self, request: PermissionRequest) -> Decision:
        config = self._config_of(request.tool)
        if config is None:
            return Decision.deny(f"{request.tool.name!r} is no tool of the gateway's servers")
        refused = _allowed(config, request.tool)
        return Decision.allow() if refused is None else Decision.deny(refused)


def _server_of(tool: Tool) -> str | None:
    """The gateway server a tool came from (its toolkit), or ``None``."""
    server = tool.metadata.extra.get("gateway_server")
    return server if isinstance(server, str) else None


def _allowed(config: ServerConfig, tool: Tool) -> str | None:
    """``None`` if the server's rules let ``tool`` be served, else why not.

    A rule is matched on the name clients see (less the prefix) and on the server's own
    name for the tool: ``delete_*`` denies a remote ``delete.file`` served as ``delete_file``.
    """
    shown = tool.name.removeprefix(config.prefix)
    names = dict.fromkeys([shown, str(tool.metadata.extra.get("mcp_name", shown))])
    for pattern in config.deny:
        if any(fnmatch.fnmatchcase(name, pattern) for name in names):
            return f"the gateway's 'deny' rule {pattern!r} of server {config.name!r} matches"
    if config.allow and not any(
        fnmatch.fnmatchcase(name, pattern) for name in names for pattern in config.allow
    ):
        return f"no 'allow' rule of server {config.name!r} matches"
    return None
