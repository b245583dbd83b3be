"""A ``tools/call``'s way back to its client: progress, log messages, elicitation, sampling.

`ClientChannel` turns a running tool's `ExecutionContext` calls into the client's
``notifications/progress`` (when the request carried a progress token),
``notifications/message`` (at or above the level the client set with ``logging/setLevel``,
or opted into per request on 2026-07-28), ``elicitation/create`` and
``sampling/createMessage`` (when the client declared the capability and the connection
lets the server ask: the 2026-07-28 protocol has no server-to-client requests during a
call). Everything rides the call's own stream.

While the server runs a call, `call_context` gives the context that carries the client's
channel for the tool; the server passes it to its executor, and code that runs a tool
some other way during the call can too.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.message import ServerMessageMetadata

from forge.core.errors import ClientCapabilityError
from forge.mcp._log_levels import LogLevels
from forge.tools import ExecutionContext
from forge.tools.values.channel import (
    Elicitation,
    ElicitRequest,
    LogMessage,
    Progress,
    Sampled,
    SampleRequest,
)

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

__all__ = ["CLIENT", "ClientChannel", "LogLevels", "call_context"]

CLIENT: ContextVar[ClientChannel | None] = ContextVar("forge_mcp_client", default=None)
"""The client channel of the ``tools/call`` being served (set by `MCPToolServer`)."""


def call_context(base: ExecutionContext | None = None) -> ExecutionContext | None:
    """The context for the ``tools/call`` being served: ``base`` wired to the client.

    Its ``on_progress``, ``on_log``, ``on_elicit`` and ``on_sample`` reach the client that
    made the call. Outside a call it returns ``base``.
    """
    client = CLIENT.get()
    if client is None:
        return base
    return (base or ExecutionContext()).replace(**client.callbacks())


class ClientChannel:
    """The callbacks of one call's `ExecutionContext`, bound to its request."""

    def __init__(self, ctx: ServerRequestContext[Any], levels: LogLevels) -> None:
        self._ctx = ctx
        self._levels = levels

    def callbacks(self) -> dict[str, Any]:
        """The ``on_*`` fields of the call's context."""
        return {
            "on_progress": self.progress, "on_log": self.log,
            "on_elicit": self.elicit, "on_sample": self.sample,
        }  # fmt: skip

    async def progress(self, event: Progress) -> None:
        """``notifications/progress``, when the client asked for progress."""
        await self._ctx.session.report_progress(event.done, event.total, event.message)

    async def log(self, event: LogMessage) -> None:
        """``notifications/message``, when the client wants this level."""
        if not self._levels.allows(self._ctx, event.level):
            return
        params = types.LoggingMessageNotificationParams(
            level=event.level, data=event.message, logger=event.logger
        )
        await self._ctx.session.send_notification(
            types.LoggingMessageNotification(params=params), related_request_id=self._ctx.request_id
        )

    async def elicit(self, request: ElicitRequest) -> Elicitation[Any]:
        """``elicitation/create`` (form mode)."""
        wanted = types.ClientCapabilities(elicitation=types.ElicitationCapability())
        self._check("elicitation", wanted)
        result = await self._ctx.session.elicit_form(
            request.message, dict(request.schema), related_request_id=self._ctx.request_id
        )
        return Elicitation(action=result.action, content=_content(result.content))

    async def sample(self, request: SampleRequest) -> Sampled:
        """``sampling/createMessage`` (text in, text out)."""
        self._check("sampling", types.ClientCapabilities(sampling=types.SamplingCapability()))
        hints = [types.ModelHint(name=h) for h in request.model_hints]
        params = types.CreateMessageRequestParams(
            messages=[
                types.SamplingMessage(
                    role=m["role"],  # type: ignore[arg-type]
                    content=types.TextContent(type="text", text=m["content"]),
                )
                for m in request.messages
            ],
            max_tokens=request.max_tokens, system_prompt=request.system,
            temperature=request.temperature, stop_sequences=list(request.stop) or None,
            model_preferences=types.ModelPreferences(hints=hints) if hints else None,
        )  # fmt: skip
        result = await self._ctx.session.send_request(
            types.CreateMessageRequest(params=params), types.CreateMessageResult,
            metadata=ServerMessageMetadata(related_request_id=self._ctx.request_id),
        )  # fmt: skip
        content = result.content
        text = content.text if isinstance(content, types.TextContent) else ""
        return Sampled(text=text, model=result.model, stop_reason=result.stop_reason)

    def _check(self, capability: str, wanted: types.ClientCapabilities) -> None:
        session = self._ctx.session
        if not session.check_client_capability(wanted):
            raise ClientCapabilityError(
                capability,
                f"the MCP client did not declare the {capability} capability (a client that "
                f"can answer declares it when it connects, e.g. mcp.Client({capability}_callback"
                "=...))",
            )
        if not session.can_send_request:
            raise ClientCapabilityError(
                capability,
                f"this connection (protocol {session.protocol_version}) cannot carry a request "
                "from the server while a tool runs; clients that connect with the 2025-11-25 "
                "handshake can (mcp.Client(..., mode='legacy'))",
            )


def _content(content: Any) -> dict[str, Any] | None:
    return None if content is None else dict(content)
