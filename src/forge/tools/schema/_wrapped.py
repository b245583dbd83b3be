"""How an output that is not a JSON object travels in MCP: wrapped under ``result``.

MCP 2025-11-25 restricts an ``outputSchema`` to ``type: "object"`` at the root,
and ``structuredContent`` to a JSON object. The definition format
(`forge.tools.formats.mcp`, which also wraps the schema) and the result format
(`forge.tools.replies.mcp`) share these pieces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["RESULT_KEY", "WRAPPED_META", "needs_wrapping", "unwrap_output", "wrap_output"]

RESULT_KEY = "result"
"""The property that holds a wrapped output."""
WRAPPED_META = "forge-tools/wrapped"
"""``_meta`` key, ``true`` when the tool's ``outputSchema`` (on a tool) or the
``structuredContent`` (on a result) wraps the real one under `RESULT_KEY`."""


def needs_wrapping(schema: Mapping[str, Any]) -> bool:
    """Whether an output schema is not the plain object MCP 2025-11-25 lists as is."""
    return schema.get("type") != "object"


def wrap_output(value: Any) -> dict[str, Any]:
    """The ``structuredContent`` of a wrapped output."""
    return {RESULT_KEY: value}


def unwrap_output(structured: Any) -> Any:
    """The output inside a wrapped ``structuredContent`` (itself if it is not wrapped)."""
    if isinstance(structured, Mapping) and RESULT_KEY in structured and len(structured) == 1:
        return structured[RESULT_KEY]
    return structured
