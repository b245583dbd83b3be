"""The tools the MCP conformance suite's server scenarios call, built as forge-tools tools.

``forge-tools serve --transport http --tools _conformance_tools:registry`` (with this
directory on ``PYTHONPATH``) is the server `conformance.py` tests. Each tool is named and
shaped as its scenario's description asks. The scenarios whose tools would need content
types, log or progress notifications, sampling or elicitation are left out: forge-tools
tools cannot express them yet (see the table in ``bench/README.md``).
"""

from __future__ import annotations

from typing import Any

from forge.tools import ToolRegistry, from_record, tool

SIMPLE_TEXT = "This is a simple text response for testing."
ERROR_TEXT = "This tool intentionally returns an error for testing"
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


@tool
def test_simple_text() -> str:
    """Return a fixed sentence (scenario tools-call-simple-text)."""
    return SIMPLE_TEXT


@tool
def test_error_handling() -> str:
    """Always fail (scenario tools-call-error)."""
    raise RuntimeError(ERROR_TEXT)


@tool
def test_reconnection() -> str:
    """Answer at once (scenario server-sse-polling calls it on a POST stream)."""
    return "Reconnection test completed successfully"


def _describe(arguments: dict[str, Any]) -> str:
    return f"received {sorted(arguments)}"


json_schema_2020_12_tool = from_record(
    {
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features",
        "parameters": JSON_SCHEMA_2020_12,
        "handler": _describe,
    }
)

registry = ToolRegistry(
    [test_simple_text, test_error_handling, test_reconnection, json_schema_2020_12_tool]
)
