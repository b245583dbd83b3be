"""Strict modes and hand-written schemas: type lists, untyped results, dangling references.

``{"type": ["object", "null"]}`` is how many hand-written records say "an optional
object"; strict modes close every object, so it must travel as JSON text as
``dict | None`` does, and come back decoded. What strict mode cannot express at
all falls back to a non-strict definition instead of one the API rejects.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings

from forge.core.errors import ToolDefinitionError
from forge.tools import from_record
from forge.tools.formats import convert, strict_arguments
from tests.fuzz.strategies import parameter_schemas
from tests.unit.tools.formats.test_strict_rules import anthropic_violations, openai_violations

SCHEMA = {"type": "object", "required": ["meta"], "properties": {
    "meta": {"type": ["object", "null"], "description": "Labels."},
    "tags": {"type": ["array", "null"]},
    "nums": {"type": ["array", "null"], "items": {"type": "integer"}},
}}  # fmt: skip


def _tool(schema: dict[str, Any], name: str = "t") -> Any:
    return from_record({"name": name, "description": "A tool.", "parameters": schema,
                        "handler": lambda **kwargs: kwargs})  # fmt: skip


def _strict_parameters(tool: Any, provider: str) -> tuple[dict[str, Any], Any]:
    definition, report = convert(tool, provider, strict=True)
    if provider == "openai":
        body = definition["function"]
        assert body.get("strict") is True, report
        params: dict[str, Any] = body["parameters"]
    else:
        assert definition.get("strict") is True, report
        params = definition["input_schema"]
    return params, report


def test_an_optional_object_type_list_travels_as_nullable_json_text() -> None:
    """``["object", "null"]`` becomes ``["string", "null"]`` JSON text, for OpenAI and Anthropic."""
    for provider, violations in (("openai", openai_violations),
                                 ("anthropic", anthropic_violations)):  # fmt: skip
        params, _ = _strict_parameters(_tool(SCHEMA), provider)
        assert violations(params) == []
        meta = params["properties"]["meta"]
        assert meta["type"] == ["string", "null"]
        assert meta["description"].startswith("Labels. (A JSON value")


def test_an_array_type_list_without_items_gets_items_for_openai() -> None:
    """``["array", "null"]`` without ``items`` gets JSON-text items, as a plain array does."""
    params, report = _strict_parameters(_tool(SCHEMA), "openai")
    assert params["properties"]["tags"]["items"]["type"] == "string"
    assert params["properties"]["nums"]["items"] == {"type": "integer"}
    assert any(c.path == "/properties/tags" and c.keyword == "items" for c in report.changes)


def test_the_json_text_comes_back_decoded_and_null_stays_null() -> None:
    """The model's JSON text for ``meta`` is decoded; its null is a valid value, kept."""
    tool = _tool(SCHEMA)
    restore = strict_arguments(tool)
    assert tool.validate(restore({"meta": '{"team": "a"}', "tags": None}))["meta"] == {"team": "a"}
    assert tool.validate(restore({"meta": None}))["meta"] is None


def test_what_strict_mode_cannot_express_falls_back() -> None:
    """An object of any keys beside other types, a bare ``not``, a dangling reference."""
    cases = {
        "mixed": {"type": ["object", "string"]},
        "negated": {"not": {"type": "string"}},
        "dangling": {"$ref": "#/$defs/missing"},
    }
    for name, sub in cases.items():
        schema: dict[str, Any] = {"type": "object", "properties": {"x": sub}}
        if name == "dangling":  # only an unused definition can hold one
            schema = {"type": "object", "properties": {}, "$defs": {"d": {"anyOf": [sub]}}}
        tool = _tool(schema, name)
        for provider in ("openai", "anthropic") if name == "mixed" else ("openai",):
            definition, report = convert(tool, provider, strict=True)
            body = definition.get("function", definition)
            assert "strict" not in body or body["strict"] is not True, (name, provider)
            assert report.changes[0].action == "fallback", (name, provider, report)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parameter_schemas())
def test_every_strict_export_obeys_the_strict_rules(schema: dict[str, Any]) -> None:
    """Any accepted schema, exported strict, is either sent strict and valid or sent non-strict."""
    try:
        tool = _tool(schema)
    except ToolDefinitionError:
        return
    definition, _ = convert(tool, "openai", strict=True)
    if definition["function"].get("strict"):
        assert openai_violations(definition["function"]["parameters"]) == []
    definition, _ = convert(tool, "anthropic", strict=True)
    if definition.get("strict"):
        assert anthropic_violations(definition["input_schema"]) == []


def test_a_tool_that_takes_any_keys_is_not_closed_to_none() -> None:
    """``**kwargs: int`` (or an open root) would take no argument at all once closed: non-strict."""
    from forge.tools import tool

    @tool
    def tally(**counts: int) -> int:
        """Add the counts."""
        return sum(counts.values())

    open_root = _tool({"type": "object", "properties": {}, "additionalProperties": True}, "o")
    for target in (tally, open_root):
        for provider in ("openai", "anthropic", "bedrock", "mistral"):
            definition, report = convert(target, provider, strict=True)
            body = definition.get("function", definition.get("toolSpec", definition))
            assert body.get("strict") is not True, (target.name, provider)
            assert report.changes[0].action == "fallback"
            assert report.changes[0].keyword == "additionalProperties"
    assert tally(**tally.validate({"a": 1, "b": 2})) == 3
