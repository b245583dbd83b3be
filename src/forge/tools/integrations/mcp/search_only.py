"""An MCP server that lists only ``search_tools`` and, per session, the tools it revealed.

With thousands of tools behind one endpoint, listing them all costs every turn
their definitions and makes models choose worse. `SearchOnlyServer` lists one
tool, ``search_tools`` (``query``, ``limit``), answered by the registry's search
(BM25 over names, descriptions and parameters). The tools it finds are revealed
to the session that searched: they join its ``tools/list``, the session is sent
``notifications/tools/list_changed``, and only revealed tools may be called.

A session is a handshake-era connection (one stdio connection, one
``Mcp-Session-Id`` over HTTP). Requests of the stateless 2026-07-28 protocol
carry no session, so they share one set of revealed tools, and its changes are
announced on every ``subscriptions/listen`` stream.
"""

from __future__ import annotations

import json
import re
import weakref
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.subscriptions import ToolsListChanged
from mcp.shared.exceptions import MCPError

from forge.tools import ToolRegistry, ToolView
from forge.tools.integrations.mcp.runner import CallRunner
from forge.tools.integrations.mcp.server import MCPToolServer

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "SEARCH_TOOL", "SHORT", "SearchOnlyServer"]

SEARCH_TOOL = "search_tools"
SHORT = 160
"""The most characters of a tool's description a search result shows."""
_SENTENCE = re.compile(r"(?<=[.!?])\s")
DEFAULT_LIMIT = 5
MAX_LIMIT = 20
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "What the tool should do, in a few words ('time in a city').",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "description": f"How many tools to reveal at most (default {DEFAULT_LIMIT}).",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}
_DESCRIPTION = (
    "Search the available tools by what they do. The tools found become callable from the "
    "next step on (their definitions are added to the tool list). Search again with other "
    "words when none fits."
)


class SearchOnlyServer(MCPToolServer):
    """An `MCPToolServer` whose sessions see ``search_tools`` plus the tools it revealed.

    Args:
        registry: Every tool that can be revealed.
        runner: Runs the calls of revealed tools (see `MCPToolServer`).
        name: The server name reported to clients.
    """

    def __init__(
        self,
        registry: ToolRegistry | ToolView,
        *,
        runner: CallRunner | None = None,
        name: str = "forge-tools",
    ) -> None:
        super().__init__(registry, runner=runner, name=name)
        self._revealed: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._shared: set[str] = set()
        self._search_tool = types.Tool(
            name=SEARCH_TOOL, description=_DESCRIPTION, input_schema=_SCHEMA
        )

    def revealed(self, session: Any = None) -> set[str]:
        """The names revealed to ``session`` (``None``: to requests without a session)."""
        if session is None:
            return self._shared
        try:
            return self._revealed.setdefault(session, set())
        except TypeError:  # a session that cannot be weakly referenced: no sessions then
            return self._shared

    def _session_of(self, ctx: ServerRequestContext[Any]) -> Any:
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None and connection in self._connections:
            return connection
        if ctx.session in self._plain_sessions:
            return ctx.session
        return None

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        shown = self.revealed(self._session_of(ctx))
        tools = [t for t in self._tools() if t.name in shown]
        return types.ListToolsResult(tools=[self._search_tool, *tools])

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        return dict(_SCHEMA) if name == SEARCH_TOOL else super()._input_schema(name)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = self._session_of(ctx)
        if params.name == SEARCH_TOOL:
            return await self._search(ctx, session, dict(params.arguments or {}))
        if params.name not in self.revealed(session):
            if params.name not in self.registry:
                raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
            return _error(
                f"Tool {params.name!r} has not been revealed in this session: call "
                f"{SEARCH_TOOL} with what you need first."
            )
        return await super()._call_tool(ctx, params)

    async def _search(
        self, ctx: ServerRequestContext[Any], session: Any, arguments: dict[str, Any]
    ) -> types.CallToolResult:
        query, limit = arguments.get("query"), arguments.get("limit", DEFAULT_LIMIT)
        if not isinstance(query, str) or not query.strip():
            return _error("search_tools needs a 'query': a few words saying what the tool does.")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            return _error(f"'limit' must be an integer from 1 to {MAX_LIMIT}, got {limit!r}.")
        found = self.registry.search(query, limit=limit)
        shown = self.revealed(session)
        new = [t.name for t in found if t.name not in shown]
        shown.update(new)
        if new:
            await self._announce_to(ctx, session)
        rows = [{"name": t.name, "description": _first_sentence(t.description)} for t in found]
        text = (
            json.dumps({"revealed": rows}, ensure_ascii=False)
            if rows
            else f"No tool matches {query!r}; search again with other words."
        )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content={"revealed": rows},
        )

    async def _announce_to(self, ctx: ServerRequestContext[Any], session: Any) -> None:
        """Tell the searching session its list changed (sessionless: every listener)."""
        if session is None:
            await self._bus.publish(ToolsListChanged())
            return
        try:
            await ctx.session.send_tool_list_changed()
        except Exception:  # a client that went away: nothing to tell
            return


def _first_sentence(text: str) -> str:
    """The first sentence of a description, at most `SHORT` characters (the rest is listed)."""
    first = _SENTENCE.split(text.strip(), maxsplit=1)[0].strip()
    return first if len(first) <= SHORT else first[: SHORT - 1].rstrip() + "…"


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
