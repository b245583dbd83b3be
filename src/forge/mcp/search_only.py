"""An MCP server that lists only a search tool and, per session, the tools it revealed.

With thousands of tools behind one endpoint, listing them all costs every turn
their definitions and makes models choose worse. `SearchOnlyServer` gives each
MCP session a `DeferredSession` over the registry (``registry.deferred("mcp")``):
the session lists the search tool (``search_tools``) and its active set, pinned
tools first. A search reveals its best matches to the session that searched:
they join its ``tools/list`` and that session alone is sent
``notifications/tools/list_changed``. A call of a tool that exists but is not
active is answered with a failed result telling the model to search first.
Tools withdrawn from the registry (a gateway's server went away) leave every
session's active set, with ``list_changed`` to the sessions that had them; when
they come back they can be found again.

A session is a handshake-era connection (one stdio connection, one
``Mcp-Session-Id`` over HTTP), from its ``initialize`` on, whether or not the
client ever sends ``notifications/initialized``. Requests of the stateless
2026-07-28 protocol carry no session, so they share one deferred session, and
its changes are announced on every ``subscriptions/listen`` stream. A call of a
name no tool has is answered naming only the tools the session can see.

The sessions share one `CoUse` (``server.co_use``): each counts which tools its client
runs together, and a search in any session also reveals, with a tool it finds, the tools
used with it at least twice before (``partners``, ``min_co_use``; ``co_use=None``: never).

A registry tool named like the search tool is not served (with a warning).
The server's executor runs the calls of active tools; it is no session's (the web
catalog runs tools with it directly): only ``tools/call`` goes through the caller's session.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.subscriptions import ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from forge.core.logging import get_logger
from forge.mcp._channel import CLIENT
from forge.mcp._listing import listable_tools
from forge.mcp.server import MCPToolServer
from forge.tools import (
    DeferredSession,
    ExecutionContext,
    ToolCall,
    ToolExecutor,
    ToolRegistry,
    ToolResult,
    ToolView,
)
from forge.tools.deferral import CoUse

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from forge.tools import RegistryEvent

__all__ = ["SearchOnlyServer"]

logger = get_logger("mcp.server")
_SEAT: ContextVar[_Seat | None] = ContextVar("forge_mcp_seat", default=None)


class _Seat:
    """One MCP session's deferred session and its search tool as listed."""

    def __init__(self, session: DeferredSession) -> None:
        self.session = session
        definitions = session.tools()[-1:]  # the search tool comes last
        self.search = listable_tools(definitions)[0]


def _client_context(base: ExecutionContext) -> ExecutionContext:
    """``base`` whose channel callbacks reach the client of the ``tools/call`` being served.

    A session's context is fixed when the session starts (on the server's loop, when a
    request makes it); its calls run during one ``tools/call`` or another, so each
    callback finds its client when it is called.
    """

    def relay(name: str) -> Any:
        def call(request: Any) -> Any:
            client = CLIENT.get()
            if client is None:  # pragma: no cover - the session runs calls only in tools/call
                raise RuntimeError("no MCP client call is being served")
            return client.callbacks()[name](request)

        return call

    names = ("on_progress", "on_log", "on_elicit", "on_sample")
    return base.replace(**{name: relay(name) for name in names})


class SearchOnlyServer(MCPToolServer):
    """An `MCPToolServer` whose sessions see a search tool plus the tools it revealed.

    Args:
        registry: Every tool that can be revealed.
        executor: Runs the calls of active tools (see `MCPToolServer`).
        name: The server name reported to clients.
        options: Passed to each session's `DeferredSession` (``pinned``, ``max_active``,
            ``search_limit``, ``search_name``, ...; ``inactive`` is ``"refuse"`` unless
            given; ``co_use`` is a new `CoUse` the sessions share unless given). Pinned
            names of tools not in the registry when a session starts, or past
            ``max_tokens`` with those before them, are left out of that session.

    Raises:
        ValueError: An option is invalid (see `DeferredSession`).
    """

    def __init__(
        self,
        registry: ToolRegistry | ToolView,
        *,
        executor: ToolExecutor | None = None,
        name: str = "forge-tools",
        **options: Any,
    ) -> None:
        search_name = options.get("search_name", "search_tools")
        if isinstance(search_name, str) and search_name in registry:
            _warn_shadowed(search_name)
        super().__init__(registry.filtered(lambda t: t.name != search_name), executor=executor,
                         name=name)  # fmt: skip
        self._options = {"inactive": "refuse", "co_use": CoUse(), **options}
        self.co_use: CoUse | None = self._options["co_use"]
        """The tools used together, shared by the sessions (``None``: not counted)."""
        self._pinned = tuple(self._options.pop("pinned", ()))
        self._lock = threading.Lock()
        self._seats: weakref.WeakKeyDictionary[Any, _Seat] = weakref.WeakKeyDictionary()
        self._shared: _Seat | None = None
        self._waiting: set[Any] = set()
        self.search_name: str = self._new_seat(None, strict=True).session.search_tool.name
        """The search tool's name."""

    def session(self, key: Any = None) -> DeferredSession:
        """The deferred session of an MCP session (``None``: of requests without a session)."""
        return self._seat(key).session

    # -- seats ------------------------------------------------------------------------

    def _seat(self, key: Any) -> _Seat:
        with self._lock:
            seat = self._shared if key is None else self._seats.get(key)
        if seat is not None:
            return seat
        seat = self._new_seat(key)
        with self._lock:
            if key is None:
                self._shared = self._shared or seat
                return self._shared
            return self._seats.setdefault(key, seat)

    def _new_seat(self, key: Any, *, strict: bool = False) -> _Seat:
        """A new session's seat; unless ``strict``, pins past ``max_tokens`` are left out."""
        target = None if key is None else weakref.ref(key)
        pinned = [n for n in self._pinned if n in self.registry]
        while True:
            try:
                session = DeferredSession.of(
                    self.registry, "mcp", pinned=pinned, executor=self.executor,
                    context=_client_context(self.executor.context or ExecutionContext()),
                    on_change=lambda _active: self._notify(target), **self._options,
                )  # fmt: skip
            except ValueError:
                if strict or not pinned:  # the options were checked at the start
                    raise
                # pins that arrived after the start may be past max_tokens: the last go first
                logger.warning("pinned tool %r does not fit max_tokens; left out", pinned[-1])
                pinned = pinned[:-1]
                continue
            return _Seat(session)

    def _key_of(self, ctx: ServerRequestContext[Any]) -> Any:
        """The MCP session a request belongs to (a weakly referable object), or ``None``.

        A handshake-era connection is a session from its first request on (a client
        need not send ``notifications/initialized``); a 2026-07-28 request has none.
        """
        connection = getattr(ctx.session, "_connection", None)
        if getattr(connection, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
            return None
        if connection is not None:
            with contextlib.suppress(TypeError):
                weakref.ref(connection)
                return connection
        if ctx.session in self._plain_sessions:
            try:
                weakref.ref(ctx.session)
            except TypeError:
                return None
            return ctx.session
        return None

    def _all_seats(self) -> list[_Seat]:
        with self._lock:
            seats = list(self._seats.values())
            return [*seats, self._shared] if self._shared is not None else seats

    # -- handlers ---------------------------------------------------------------------

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        seat = self._seat(self._key_of(ctx))
        listed = {t.name: t for t in self._tools()}
        active = [listed[n] for n in seat.session.active() if n in listed]
        return types.ListToolsResult(tools=[seat.search, *active])

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        if name == self.search_name:
            return dict(self._seat(None).search.input_schema)
        return super()._input_schema(name)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        token = _SEAT.set(self._seat(self._key_of(ctx)))
        try:
            return await super()._call_tool(ctx, params)
        finally:
            _SEAT.reset(token)

    async def _run_call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """A ``tools/call`` goes through the caller's session."""
        seat = _SEAT.get() or self._seat(None)
        results = await seat.session.aexecute_all([ToolCall.create(name, arguments)])
        return results[0]

    # -- list_changed -----------------------------------------------------------------

    def _on_registry_event(self, event: RegistryEvent) -> None:
        """A registry change: withdrawn tools leave every session; sessions showing it are told."""
        seats = self._all_seats()
        if event.type == "cleared":
            for seat in seats:
                seat.session.discard(seat.session.active())
                if seat.session.pinned:
                    self._notify_seat(seat)
            return
        name = event.name or ""
        if event.type == "registered" and name == self.search_name:
            _warn_shadowed(name)
        for seat in seats:
            if name not in seat.session.active():
                continue
            if event.type == "removed" and seat.session.discard([name]):
                continue  # discarding told the session
            self._notify_seat(seat)

    def _notify_seat(self, seat: _Seat) -> None:
        if seat is self._shared:
            self._notify(None)
            return
        with self._lock:
            keys = [k for k, s in self._seats.items() if s is seat]
        for key in keys:
            self._notify(weakref.ref(key))

    def _notify(self, target: weakref.ref[Any] | None) -> None:
        """Tell a session (``None``: every ``listen`` stream) its list changed; any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._send_soon, target)
        except RuntimeError:  # the loop closed between the check and the call
            return

    def _send_soon(self, target: weakref.ref[Any] | None) -> None:
        if target in self._waiting:
            return  # a burst of changes is announced once
        self._waiting.add(target)
        task = asyncio.get_running_loop().create_task(self._send(target))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, target: weakref.ref[Any] | None) -> None:
        self._waiting.discard(target)
        if target is None:
            await self._bus.publish(ToolsListChanged())
            return
        session = target()
        if session is None:
            return
        try:
            await session.send_tool_list_changed()
        except Exception:  # a client that went away: nothing to tell
            logger.debug("dropping a list_changed for a closed session", exc_info=True)


def _warn_shadowed(name: str) -> None:
    logger.warning(
        "the registry's tool %r is not served: it has the name of the search tool; "
        "rename it or choose another search_name",
        name,
    )
