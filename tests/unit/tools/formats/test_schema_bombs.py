"""Schemas whose definitions refer to each other over and over: every walk stays small.

A 2 KB schema whose ``$defs`` each refer to the next one twice doubles at every level
when inlined. Exports, token estimates, the linter, the prompt text and the catalog's
tool page must build no more than `MAX_BUILT_SCHEMA` for it, sending the schema whole
where the provider takes JSON Schema and leaving strict mode (or the tool) out otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from forge.catalog.detail import tool_detail
from forge.core.errors import SchemaConversionError
from forge.tools import Tool, ToolRegistry, from_record
from forge.tools.deferral._budget import tool_tokens
from forge.tools.formats import PROVIDERS, convert, convert_all
from forge.tools.formats.limits import MAX_BUILT_SCHEMA
from forge.tools.model.lint import lint_tool
from forge.tools.model.prompt import PromptOptions, render_prompt

#: Each shape at 16 levels is 2**16 copies of its leaf once inlined (megabytes).
LEVELS = 16


def fan_out(levels: int, shape: str) -> dict[str, Any]:
    """A schema whose definition ``D{i}`` refers to ``D{i+1}`` twice, ``levels`` deep."""

    def ref(i: int) -> dict[str, Any]:
        if shape == "merge":  # a keyword beside the reference: strict modes merge them
            return {"$ref": f"#/$defs/D{i}", "type": "object"}
        return {"$ref": f"#/$defs/D{i}"}

    def body(i: int) -> dict[str, Any]:
        if shape == "anyOf":
            return {"anyOf": [ref(i + 1), ref(i + 1)]}
        return {"type": "object", "properties": {"a": ref(i + 1), "b": ref(i + 1)}}

    defs = {f"D{i}": body(i) for i in range(levels)}
    defs[f"D{levels}"] = {"type": "object", "properties": {"leaf": {"type": "string"}}}
    return {"type": "object", "properties": {"x": ref(0)}, "required": ["x"], "$defs": defs}


def local_fan_out(levels: int) -> dict[str, Any]:
    """The same fan-out through references into ``properties`` (no ``$defs``)."""
    props: dict[str, Any] = {
        f"p{i}": {"type": "object", "properties": {"a": {"$ref": f"#/properties/p{i + 1}"},
                                                   "b": {"$ref": f"#/properties/p{i + 1}"}}}
        for i in range(levels)
    }  # fmt: skip
    props[f"p{levels}"] = {"type": "string"}
    return {"type": "object", "properties": props, "required": list(props)}


SCHEMAS = {
    "properties": fan_out(LEVELS, "properties"),
    "anyOf": fan_out(LEVELS, "anyOf"),
    "merge": fan_out(LEVELS, "merge"),
    "local": local_fan_out(LEVELS),
}


def bomb(shape: str) -> Tool:
    return from_record({"name": "bomb", "description": "Fan-out references.",
                        "parameters": SCHEMAS[shape], "handler": lambda **_: None})  # fmt: skip


def size(value: Any) -> int:
    return len(json.dumps(value, default=str))


@pytest.mark.parametrize("shape", list(SCHEMAS))
def test_every_export_of_a_fan_out_schema_stays_small(shape: str) -> None:
    """Each provider, plain and strict, sends at most a few times the schema's own size."""
    tool = bomb(shape)
    limit = 4 * size(tool.parameters) + 4096
    for provider in PROVIDERS:
        if provider == "langchain":
            continue  # a StructuredTool sends the tool's own schema
        for strict in (False, True):
            conversion = convert_all([tool], provider, strict=strict)
            assert size(conversion.definitions) < limit, (provider, strict)
            assert size([str(c) for c in conversion.changes[0]]) < limit, (provider, strict)


@pytest.mark.parametrize("shape", ["properties", "anyOf", "merge"])
def test_past_the_bound_gemini_takes_json_schema_and_strict_modes_fall_back(shape: str) -> None:
    """Gemini gets the schema whole; Anthropic and Bedrock strict send it without strict."""
    tool = bomb(shape)
    declaration, report = convert(tool, "gemini")
    assert declaration["parametersJsonSchema"] == tool.parameters
    assert f"{MAX_BUILT_SCHEMA:,} characters" in report.changes[0].detail
    anthropic, report = convert(tool, "anthropic", strict=True)
    assert [c.action for c in report.changes] == ["fallback"]
    assert "strict" not in anthropic
    assert anthropic["input_schema"] == tool.parameters
    bedrock, report = convert(tool, "bedrock", strict=True)
    assert [c.action for c in report.changes] == ["fallback"]
    assert bedrock["toolSpec"]["inputSchema"]["json"] == tool.parameters


def test_raise_names_the_tool_and_the_bound() -> None:
    """With errors="raise" the strict export fails at once, naming the tool and the bound."""
    registry = ToolRegistry([bomb("properties")])
    with pytest.raises(SchemaConversionError, match="bomb") as caught:
        registry.to_provider("anthropic", strict=True, errors="raise")
    assert f"{MAX_BUILT_SCHEMA:,}" in caught.value.reason


def test_a_bomb_among_other_tools_leaves_them_whole() -> None:
    """One fan-out schema never stops the export of the tools beside it."""
    plain = from_record({"name": "plain", "description": "A plain tool.",
                         "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                         "handler": lambda **_: None})  # fmt: skip
    conversion = convert_all([plain, bomb("anyOf"), plain], "gemini")
    declarations = conversion.definitions[0]["functionDeclarations"]
    assert [d["name"] for d in declarations] == ["plain", "bomb", "plain"]
    assert declarations[0]["parameters"]["properties"]["q"] == {"type": "STRING"}


@pytest.mark.parametrize("shape", list(SCHEMAS))
def test_token_estimates_of_a_fan_out_schema_stay_small(shape: str) -> None:
    """An estimate costs no more than the definition really sent."""
    tool = bomb(shape)
    for provider, strict in (("gemini", False), ("anthropic", True), ("openai", True)):
        assert tool_tokens(tool, provider, strict=strict) < size(tool.parameters)


@pytest.mark.parametrize("shape", ["properties", "anyOf", "merge"])
def test_the_catalog_page_of_a_fan_out_schema_stays_small(shape: str) -> None:
    """The tool's page (every provider, strict and not, and the linter) stays small."""
    tool = bomb(shape)
    page = tool_detail(tool)
    assert size(page) < 200_000  # some 20 definitions and reports of a 2 KB schema
    gemini = next(p for p in page["providers"] if p["id"] == "gemini")
    assert gemini["default"]["parametersJsonSchema"] == tool.parameters


def test_the_linter_and_the_prompt_read_each_reference_once() -> None:
    """Optional parameters over a 60-level fan-out: lint and prompt text come back."""
    schema = fan_out(60, "anyOf")
    schema["required"] = []
    tool = from_record({"name": "deep", "description": "Fan-out references.",
                        "parameters": schema, "handler": lambda **_: None})  # fmt: skip
    assert any("optional parameter(s) x" in f.message for f in lint_tool(tool))
    assert "x (object)" in render_prompt([tool], PromptOptions())
    definition, _ = convert(tool, "openai", strict=True)
    assert definition["function"]["parameters"]["properties"]["x"]["anyOf"][-1] == {"type": "null"}


def test_the_prompt_of_a_reference_cycle_through_any_of() -> None:
    """A definition that is only an anyOf of itself reads as an object, not a crash."""
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}},
              "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]}}}  # fmt: skip
    tool = from_record({"name": "cycle", "description": "A cycle.", "parameters": schema,
                        "handler": lambda **_: None})  # fmt: skip
    assert "x (object|string)" in render_prompt([tool], PromptOptions())
