"""A compiled tool keeps the parameter table of a flat schema; the formats render from it."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest

from forge.tools import from_record, tool
from forge.tools.formats import _memo, convert, to_provider
from forge.tools.formats._closed_strict import (
    ANTHROPIC,
    compile_closed_strict,
    compile_closed_strict_general,
)
from forge.tools.formats._gemini_schema import compile_gemini, compile_gemini_general
from forge.tools.formats._openai_strict import compile_openai_strict, compile_openai_strict_general
from forge.tools.formats._schema import Context
from forge.tools.formats._simple import gemini_simple, openai_strict_simple
from forge.tools.schema import ARRAY, LEAF, OPTIONAL, analyse


@tool
def book(city: str, nights: int = 2, tags: list[str] | None = None, pet: bool | None = True) -> str:
    """Book a hotel.

    Args:
        city: Where to stay.
        nights: How many nights.
        tags: Wishes, if any.
        pet: Whether a pet comes along.
    """
    return city


@tool
def ship(kind: Literal["box", "letter"], weight: float) -> str:
    """Ship a parcel (an enum is not a simple leaf)."""
    return kind


def test_a_compiled_typed_tool_keeps_its_table() -> None:
    schema, table = book.schema_and_table()
    assert table is not None
    assert table.schema is schema
    rows = {row[0]: row for row in table.params}
    assert [row[0] for row in table.params] == ["city", "nights", "tags", "pet"]
    assert rows["city"][1:5] == (LEAF, "string", "", "Where to stay.")
    assert rows["nights"][6] == "How many nights. (default: 2)"
    assert rows["tags"][1:4] == (OPTIONAL, "array", "string")
    assert rows["pet"][6] == "Whether a pet comes along. (default: true)"
    assert rows["city"][7] is schema["properties"]["city"]  # no default, no title: plain
    assert rows["nights"][7] is None
    assert rows["city"][8] == "/properties/city"
    assert table.required_names == {"city"}
    assert table.closed


def test_other_schemas_have_no_table_and_still_convert() -> None:
    _schema, table = ship.schema_and_table()
    assert table is None
    definition = to_provider([ship], "openai", strict=True)[0]["function"]["parameters"]
    assert definition["properties"]["kind"]["enum"] == ["box", "letter"]


def test_a_record_tool_gets_a_table_when_it_compiles() -> None:
    record = from_record({
        "name": "rec", "description": "A record.", "handler": lambda args: args,
        "parameters": {"type": "object", "properties": {
            "a/b~": {"type": "array", "items": {"type": "integer"}, "title": "T"}}},
    })  # fmt: skip
    _, table = record.compile().schema_and_table()
    assert table is not None
    (row,) = table.params
    assert row[1:4] == (ARRAY, "array", "integer")
    assert row[7] is None  # a title is dropped by every compiler: not plain
    assert row[8] == "/properties/a~1b~0"
    assert not table.plain_names
    assert not table.closed


def test_a_table_of_another_schema_is_ignored() -> None:
    schema, table = book.schema_and_table()
    twin = json.loads(json.dumps(schema))
    twin["properties"]["city"]["description"] = "Somewhere else."
    ctx = Context("book", "gemini", False)
    assert gemini_simple(twin, ctx, table) is None
    assert openai_strict_simple(twin, Context("book", "openai", True), table) is None
    out = compile_gemini(twin, Context("book", "gemini", False), table)
    assert out == compile_gemini_general(twin, Context("book", "gemini", False))
    assert out["properties"]["city"]["description"] == "Somewhere else."


def test_rendering_from_the_table_equals_the_general_walk() -> None:
    schema, table = book.schema_and_table()
    analysed = analyse(schema)
    assert analysed is not None
    assert analysed.params == table.params
    cases = [
        ("gemini", compile_gemini, compile_gemini_general),
        ("openai", compile_openai_strict, compile_openai_strict_general),
        ("anthropic", lambda s, c, t: compile_closed_strict(s, c, ANTHROPIC, t),
         lambda s, c: compile_closed_strict_general(s, c, ANTHROPIC)),
    ]  # fmt: skip
    for provider, fast, general in cases:
        fast_ctx, general_ctx = Context("book", provider, True), Context("book", provider, True)
        assert fast(schema, fast_ctx, table) == general(schema, general_ctx), provider
        assert fast_ctx.changes == general_ctx.changes, provider
    gemini = convert(book, "gemini")[0]["parameters"]
    assert gemini["properties"]["pet"] == {
        "type": "BOOLEAN", "description": "Whether a pet comes along.", "default": True,
        "nullable": True,
    }  # fmt: skip


def test_strict_output_shares_plain_properties_and_leaves_the_schema_alone() -> None:
    _memo.clear()
    schema, _ = book.schema_and_table()
    before = json.dumps(schema)
    strict: Any = to_provider([book], "openai", strict=True)[0]["function"]["parameters"]
    assert strict["properties"]["city"] is schema["properties"]["city"]
    assert strict["properties"]["nights"] == {
        "type": ["integer", "null"], "description": "How many nights. (default: 2)"}  # fmt: skip
    assert strict["required"] == ["city", "nights", "tags", "pet"]
    for provider in ("gemini", "anthropic", "bedrock", "openai"):
        to_provider([book], provider, strict=True)
    assert json.dumps(schema) == before


def test_converted_tools_share_no_objects_with_each_other() -> None:
    """No node of one tool's converted schema can be edited, so none shows up in another's."""

    @tool
    def first(count: int | None = None, names: list[str] | None = None, size: int = 1) -> int:
        """First."""
        return 1

    @tool
    def second(count: int | None = None, names: list[str] | None = None, size: int = 1) -> int:
        """Second."""
        return 2

    for provider, strict in (("openai", True), ("anthropic", True), ("gemini", False)):
        _memo.clear()
        one, two = (convert(t, provider, strict=strict)[0] for t in (first, second))
        body = "function" if provider == "openai" else None
        params = "parameters" if provider != "anthropic" else "input_schema"
        one = one[body][params] if body else one[params]
        two = two[body][params] if body else two[params]
        before = json.dumps(two)
        for node in _containers(one):
            edit = node.__setitem__ if isinstance(node, dict) else node.insert
            with pytest.raises(TypeError, match="read-only"):
                edit(0, "edited")
        assert json.dumps(two) == before, provider
    _memo.clear()


def _containers(node: Any) -> list[Any]:
    """Every dict and list in a JSON tree."""
    if isinstance(node, dict):
        return [node, *(c for v in node.values() for c in _containers(v))]
    if isinstance(node, list):
        return [node, *(c for v in node for c in _containers(v))]
    return []
