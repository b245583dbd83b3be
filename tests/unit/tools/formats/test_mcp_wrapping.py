"""Output schemas that are not objects are wrapped for MCP under ``result``."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from mcp_types import methods

from forge.tools import from_record
from forge.tools.formats import convert, to_provider
from forge.tools.formats.mcp import (
    needs_wrapping,
    unwrap_output,
    unwrap_output_schema,
    wrap_output,
    wrap_output_schema,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)
TYPES = st.sampled_from(["array", "integer", "number", "string", "boolean", "null"])
SCHEMAS = st.fixed_dictionaries(
    {"type": TYPES | st.lists(TYPES, min_size=1, max_size=3, unique=True)},
    optional={
        "description": st.text(max_size=20),
        "$defs": st.dictionaries(st.text(min_size=1, max_size=5), st.just({"type": "string"})),
        "$schema": st.just("https://json-schema.org/draft/2020-12/schema"),
    },
)


def tool(output_schema: dict[str, Any]) -> Any:
    """A tool with this output schema."""
    return from_record(
        {"name": "t", "description": "A tool.", "output_schema": output_schema,
         "handler": lambda _args: None}
    )  # fmt: skip


@given(SCHEMAS)
def test_wrapping_a_schema_is_undone_by_unwrapping(schema: dict[str, Any]) -> None:
    """Every non-object schema needs wrapping, and unwrapping gives it back."""
    assert needs_wrapping(schema)
    wrapped = wrap_output_schema(schema)
    assert not needs_wrapping(wrapped)
    assert unwrap_output_schema(wrapped) == schema


@given(JSON)
def test_wrapping_an_output_is_undone_by_unwrapping(value: Any) -> None:
    """Any JSON value survives the ``{"result": value}`` wrapper."""
    assert unwrap_output(wrap_output(value)) == value


@given(SCHEMAS)
def test_every_wrapped_definition_is_a_valid_2025_11_25_tool(schema: dict[str, Any]) -> None:
    """The MCP definition of a tool with any such schema passes the 2025-11-25 wire type."""
    [definition] = to_provider([tool(schema)], "mcp")
    methods.validate_server_result(
        "tools/list", "2025-11-25", {"tools": [definition]}
    )  # raises if invalid


def test_the_wrap_is_visible_in_the_definition_and_the_report() -> None:
    """The definition says it is wrapped, and the conversion report records the rewrite."""
    array = {"type": "array", "items": {"$ref": "#/$defs/n"}, "$defs": {"n": {"type": "integer"}}}
    [definition] = to_provider([tool(array)], "mcp")
    assert definition["outputSchema"] == {
        "$defs": {"n": {"type": "integer"}},
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
        "required": ["result"],
        "additionalProperties": False,
    }
    assert definition["_meta"] == {"forge-tools/wrapped": True}
    _, report = convert(tool(array), "mcp")
    assert [c.keyword for c in report.changes] == ["outputSchema"]
    assert report.lossless
    plain = {"type": "object", "properties": {"n": {"type": "integer"}}}
    [definition] = to_provider([tool(plain)], "mcp")
    assert definition["outputSchema"] == plain
    assert "_meta" not in definition
