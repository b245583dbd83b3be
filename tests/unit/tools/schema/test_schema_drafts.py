"""Schemas in older JSON Schema drafts are upgraded to 2020-12 on import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ToolBuilder, ToolRegistry, from_record
from forge.tools.config import load_tools
from forge.tools.importers import normalize_definition
from forge.tools.schema import upgrade_schema

DRAFT4 = "http://json-schema.org/draft-04/schema#"

#: Each older form, the 2020-12 form it must become, and a value each side must reject.
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {
    "exclusiveMinimum": (
        {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}},
        {"n": {"type": "number", "exclusiveMinimum": 0}},
        {"n": 0},
    ),
    "exclusiveMaximum": (
        {"n": {"type": "integer", "maximum": 9, "exclusiveMaximum": True}},
        {"n": {"type": "integer", "exclusiveMaximum": 9}},
        {"n": 9},
    ),
    "tuple items": (
        {"p": {"type": "array", "items": [{"type": "number"}, {"type": "number"}],
               "additionalItems": False}},
        {"p": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}],
               "items": False}},
        {"p": [1, 2, 3]},
    ),
}  # fmt: skip


def _record(properties: dict[str, Any], **root: Any) -> dict[str, Any]:
    return {"name": "old", "description": "An old tool.", "handler": lambda **kw: kw,
            "parameters": {"type": "object", "properties": properties, **root}}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_records_with_older_forms_register_and_say_what_changed(case: str) -> None:
    """A record refused before is registered with the 2020-12 form, which rejects the same value."""
    old, new, bad = CASES[case]
    tool = from_record(_record(old))
    assert tool.parameters["properties"] == new
    assert tool.schema_rewrites
    assert all(line.startswith("/properties/") for line in tool.schema_rewrites)
    result = ToolRegistry([tool]).execute_all([{"name": "old", "arguments": bad}])[0]
    assert result.error_kind == "invalid_arguments"


def test_draft_4_document_with_definitions_id_and_dependencies() -> None:
    """definitions, id, dependencies, draft-3 required flags and $schema are all rewritten."""
    tool = from_record(_record(
        {"n": {"$ref": "#/definitions/Count"}, "a": {"type": "string"}, "b": {"type": "string"},
         "c": {"type": "string", "required": True}},
        **{"$schema": DRAFT4, "id": "urn:old-tool",
           "definitions": {"Count": {"type": "integer", "minimum": 1, "exclusiveMinimum": False}},
           "dependencies": {"a": ["b"], "b": {"required": ["c"]}}},
    ))  # fmt: skip
    schema = tool.parameters
    assert "$schema" not in schema
    assert schema["$id"] == "urn:old-tool"
    assert schema["$defs"] == {"Count": {"type": "integer", "minimum": 1}}
    assert schema["properties"]["n"] == {"$ref": "#/$defs/Count"}
    assert schema["dependentRequired"] == {"a": ["b"]}
    assert schema["dependentSchemas"] == {"b": {"required": ["c"]}}
    assert schema["required"] == ["c"]
    assert len(tool.schema_rewrites) == 6
    registry = ToolRegistry([tool])
    assert registry.execute("old", {"n": 1, "c": "x"}).success
    missing_b = registry.execute_all([{"name": "old", "arguments": {"n": 1, "a": "x", "c": "x"}}])
    assert missing_b[0].error_kind == "invalid_arguments"


def test_every_import_path_upgrades(tmp_path: Path) -> None:
    """Configuration files, the builder and the normaliser take older forms too."""
    old = {"type": "object", "properties": CASES["exclusiveMinimum"][0]}
    config = tmp_path / "tools.json"
    config.write_text(json.dumps([{
        "name": "cfg", "description": "From a file.", "parameters": old,
        "implementation": {"type": "mock", "mock_response": 1},
    }]))  # fmt: skip
    report = load_tools([config], registry=ToolRegistry())
    [loaded] = report.tools
    assert loaded.parameters["properties"]["n"] == {"type": "number", "exclusiveMinimum": 0}
    assert loaded.schema_rewrites
    builder = ToolBuilder().name("built").description("Built.").category("utility").schema(old)
    built = builder.implement(lambda **kw: kw).build()
    assert built.schema_rewrites == loaded.schema_rewrites
    normalized = normalize_definition({"name": "n", "description": "N.", "parameters": old})
    assert any("exclusiveMinimum" in line for line in normalized.warnings)


def test_a_2020_12_schema_is_left_alone() -> None:
    """Nothing to upgrade: no rewrites, and the same schema."""
    schema = {"type": "object", "properties": {"n": {"type": "number", "exclusiveMinimum": 0}},
              "$defs": {"x": {"type": "string"}}}  # fmt: skip
    assert upgrade_schema(json.loads(json.dumps(schema))) == (schema, [])
    assert from_record(_record(schema["properties"])).schema_rewrites == ()


def test_validate_shows_the_rewrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`forge-tools validate` lists each rewrite as a warning for the tool."""
    from forge._cli.app import run

    config = tmp_path / "tools.json"
    config.write_text(json.dumps([{
        "name": "cfg", "description": "From a file.",
        "parameters": {"type": "object", "properties": CASES["exclusiveMaximum"][0]},
        "implementation": {"type": "mock", "mock_response": 1},
    }]))  # fmt: skip
    assert run(["validate", str(config), "--json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {
        "tool": "cfg", "provider": "all", "severity": "warning",
        "message": "the schema was rewritten to JSON Schema 2020-12: /properties/n: "
        "exclusiveMaximum: true with maximum 9 became exclusiveMaximum: 9",
    } in findings  # fmt: skip


@st.composite
def _bounds(draw: st.DrawFn) -> dict[str, Any]:
    """A draft 4 number schema: each bound optional, made exclusive or not."""
    schema: dict[str, Any] = {"type": "number"}
    for bound in ("minimum", "maximum"):
        if draw(st.booleans()):
            schema[bound] = draw(st.integers(-5, 5))
            if draw(st.booleans()):
                schema["exclusive" + bound.capitalize()] = draw(st.booleans())
    return schema


_BOUNDS = _bounds()
_TUPLES = st.fixed_dictionaries(
    {"type": st.just("array"), "items": st.lists(_BOUNDS, min_size=1, max_size=3)},
    optional={"additionalItems": st.one_of(st.booleans(), _BOUNDS)},
)
_VALUES = st.one_of(
    st.integers(-7, 7), st.floats(-7, 7, allow_nan=False),
    st.lists(st.integers(-7, 7), max_size=5),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.one_of(_BOUNDS, _TUPLES), _VALUES)
def test_upgraded_schema_means_what_the_draft_4_schema_meant(
    old: dict[str, Any], value: Any
) -> None:
    """Draft 4 validation of the original equals 2020-12 validation of the upgrade."""
    before = jsonschema_rs.Draft4Validator(old).is_valid(value)
    upgraded, _ = upgrade_schema(json.loads(json.dumps(old)))
    assert jsonschema_rs.Draft202012Validator(upgraded).is_valid(value) == before
