"""The log level each connection asked for (``logging/setLevel``)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.connection import allowed_log_levels

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

__all__ = ["LogLevels", "connection_of"]


class LogLevels:
    """The least severe level each connection wants (``logging/setLevel``); all by default."""

    def __init__(self) -> None:
        self._levels: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()

    async def set_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        """The ``logging/setLevel`` handler."""
        from forge.tools.values.channel import LOG_LEVELS  # with the first message

        self._levels[connection_of(ctx)] = LOG_LEVELS.index(params.level)
        return types.EmptyResult()

    def allows(self, ctx: ServerRequestContext[Any], level: str) -> bool:
        """Whether a message at ``level`` may go to this request's client."""
        from forge.tools.values.channel import LOG_LEVELS

        if level not in allowed_log_levels(ctx.session.protocol_version, ctx.meta):
            return False
        return LOG_LEVELS.index(level) >= self._levels.get(connection_of(ctx), 0)


def connection_of(ctx: ServerRequestContext[Any]) -> Any:
    """The connection a request came on (the session object is a per-request proxy)."""
    return getattr(ctx.session, "_connection", ctx.session)
