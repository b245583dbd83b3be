"""MCP ``tools/call`` requests.

Accepted: a JSON-RPC request (``{"jsonrpc", "id", "method": "tools/call", "params"}``), a
batch (list) of them, a ``CallToolRequest``, or its params (``{"name", "arguments"}`` or
``CallToolRequestParams``); as dicts or ``mcp`` objects. The call id is the JSON-RPC id
when there is one; otherwise a stable one is generated.
"""

from __future__ import annotations

from typing import Any

from forge.core.text import shown
from forge.tools.parsing._common import ToolCallFormatError, field, generated_id
from forge.tools.values.calls import ToolCall

__all__ = ["parse"]


def parse(obj: Any) -> list[ToolCall]:
    """Return the tool calls in a ``tools/call`` request, a batch, or request params."""
    raw = list(obj) if isinstance(obj, list | tuple) else [obj]
    calls = []
    for index, request in enumerate(raw):
        method = field(request, "method")
        if method is not None and method != "tools/call":
            continue
        params = field(request, "params") if method is not None else request
        if params is None:
            raise ToolCallFormatError(f"tools/call request has no params: {shown(request, 200)}")
        name = field(params, "name")
        if not isinstance(name, str) or not name:
            raise ToolCallFormatError(f"tools/call request has no tool name: {shown(request, 200)}")
        arguments = field(params, "arguments")
        rpc_id = field(request, "id") if method is not None else None
        if rpc_id is not None and (not isinstance(rpc_id, str | int) or isinstance(rpc_id, bool)):
            raise ToolCallFormatError(
                f"tools/call request has an id that is {type(rpc_id).__name__}, not a string "
                "or integer (JSON-RPC ids are one or the other)"
            )
        call_id = str(rpc_id) if rpc_id is not None else generated_id(index, name, arguments)
        calls.append(ToolCall.from_raw(call_id, name, arguments))
    return calls
