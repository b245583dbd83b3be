"""What a failed remote call becomes: a `ToolResult` of the right kind; whether the link is down.

Every timeout, whichever clock noticed it, is kind ``timeout`` with the same
message as a local tool's. A remote answer that breaks the tool's own output
schema says so. Only transport failures mean the connection may be gone.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, INVALID_REQUEST, REQUEST_TIMEOUT

from forge.core.errors import ForgeError
from forge.tools import ErrorKind, ToolResult
from forge.tools.execution import failures

__all__ = ["CallFailure", "MCPConnectionError", "call_failure"]

# The SDK's client raises RuntimeError with these when a result breaks its output schema.
_SCHEMA_FAULTS = ("structured content", "Invalid schema for tool")


class MCPConnectionError(ForgeError, ConnectionError):
    """The MCP server could not be reached, did not complete the handshake, or has gone."""


@dataclass(frozen=True, slots=True)
class CallFailure:
    """The result to give the caller, and whether the connection looks lost."""

    result: ToolResult
    lost: bool = False


def call_failure(
    local: str, server: str, exc: BaseException, seconds: float, *, reconnects: bool
) -> CallFailure:
    """The failed result for an exception raised by a remote call of tool ``local``.

    ``reconnects`` says whether the client will try to reach the server again.
    """
    if isinstance(exc, TimeoutError) or (isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT):
        return CallFailure(failures.timeout(local, seconds))
    if isinstance(exc, RuntimeError) and any(f in str(exc) for f in _SCHEMA_FAULTS):
        return CallFailure(
            _fail(
                local,
                f"The MCP tool {local!r} of {server} returned output that breaks its own "
                f"output schema: {str(exc).splitlines()[0]}. This is a fault in the remote "
                "tool; retrying will not help.",
                retryable=False,
                reason="output_schema",
            )
        )
    if isinstance(exc, MCPError) and not _gone(exc):
        return CallFailure(
            _fail(
                local,
                f"The MCP server {server} rejected the call to tool {local!r}: {exc.message} "
                f"(error {exc.code}).",
                retryable=False,
            )
        )
    if isinstance(exc, (MCPError, MCPConnectionError, OSError, httpx2.TransportError)):
        why = str(exc) or type(exc).__name__
        advice = (
            "The client is reconnecting; retrying in a few seconds may help."
            if reconnects
            else "The server may have stopped; retrying will not help."
        )
        return CallFailure(
            _fail(
                local,
                f"The MCP server behind tool {local!r} ({server}) is not reachable: {why}. "
                + advice,
                retryable=reconnects,
            ),
            lost=True,
        )
    why = str(exc) or type(exc).__name__
    return CallFailure(
        _fail(
            local,
            f"The call to MCP tool {local!r} of {server} failed: {type(exc).__name__}: {why}.",
            retryable=False,
        )
    )


def _gone(exc: MCPError) -> bool:
    """Whether the SDK says the connection or the HTTP session is gone (a restarted server)."""
    return exc.code == CONNECTION_CLOSED or (
        exc.code == INVALID_REQUEST and exc.message == "Session terminated"
    )


def _fail(local: str, message: str, **metadata: object) -> ToolResult:
    return ToolResult.fail(
        failures.limit(message), error_kind=ErrorKind.TOOL_ERROR, **metadata
    ).for_call(None, local)
