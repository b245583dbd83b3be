"""Normalising real-world definitions (BFCL, Java/JS type names): one warning per change."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from forge.core.errors import ToolDefinitionError
from forge.tools import from_record
from forge.tools.formats.names import NameMap
from forge.tools.importers import normalize_definition, normalize_schema
from forge.tools.importers.bfcl import iter_functions, load_definitions


def _definition(parameters: Any, name: str = "f") -> dict[str, Any]:
    return {"name": name, "description": "Do f.", "parameters": parameters}


def test_bfcl_types_become_json_schema_with_a_warning_each() -> None:
    """dict, float, tuple, any, String, HashMap, long map to JSON Schema, each warned."""
    out = normalize_definition(_definition({"type": "dict", "properties": {
        "a": {"type": "float"}, "b": {"type": "tuple", "items": {"type": "float"}},
        "c": {"type": "any"}, "d": {"type": "String"}, "e": {"type": "HashMap"},
        "f": {"type": "long"}, "g": {"type": "ArrayList", "items": {"type": "Boolean"}},
    }, "required": ["a"]}))  # fmt: skip
    props = out.parameters["properties"]
    assert out.parameters["type"] == "object"
    assert props["a"] == {"type": "number"}
    assert props["b"]["type"] == "array"
    assert props["c"] == {}
    assert props["d"]["type"] == "string"
    assert props["e"]["type"] == "object"
    assert props["f"]["type"] == "integer"
    assert props["g"]["items"]["type"] == "boolean"
    assert len(out.warnings) == 10
    assert "parameters.properties.a.type: 'float' -> 'number'" in out.warnings


def test_warnings_are_logged(caplog: Any) -> None:
    """Every change is also logged as a warning naming the tool."""
    with caplog.at_level(logging.WARNING, logger="forge.tools.importers"):
        normalize_definition(_definition({"type": "dict", "properties": {}}))
    assert "normalised f: parameters.type: 'dict' -> 'object'" in caplog.text


def test_optional_flag_and_missing_required_are_fixed() -> None:
    """A non-standard optional flag is removed (and unrequires), ghosts leave required."""
    out = normalize_definition(_definition({"type": "dict", "properties": {
        "a": {"type": "string", "optional": True}, "b": {"type": "string", "optional": "true"}},
        "required": ["a", "b", "ghost"]}))  # fmt: skip
    assert out.parameters["required"] == []
    assert sum("optional" in w for w in out.warnings) == 4
    assert any("'ghost' is not a property" in w for w in out.warnings)


def test_defaults_are_coerced_widened_or_dropped() -> None:
    """String-spelled defaults convert; null defaults make the type nullable; junk is dropped."""
    schema, warnings = normalize_schema({"type": "dict", "properties": {
        "a": {"type": "boolean", "default": "false"},
        "b": {"type": "integer", "default": "0"},
        "c": {"type": "string", "default": None, "enum": ["x"]},
        "d": {"type": "integer", "default": "dontcare"},
        "e": {"type": "array", "default": "a, b"},
        "f": {"type": "string", "enum": ["x", "y"], "default": "z"},
    }})  # fmt: skip
    props = schema["properties"]
    assert props["a"]["default"] is False
    assert props["b"]["default"] == 0
    assert props["c"]["type"] == ["string", "null"]
    assert props["c"]["enum"] == ["x", None]
    assert props["d"]["type"] == ["integer", "string"]
    assert "default" not in props["e"]
    assert props["f"]["enum"] == ["x", "y", "z"]
    assert len(warnings) == 7


def test_enums_that_contradict_their_type_are_repaired() -> None:
    """Enum values spelling the type convert; leftover strings widen the type."""
    schema, _ = normalize_schema({"type": "dict", "properties": {
        "a": {"type": "integer", "enum": ["1", "2", "dontcare"]},
        "b": {"type": "boolean", "enum": ["True", "False"]},
        "c": {"type": "array", "items": {"type": "string"}, "enum": ["x", "y"]},
        "d": {"type": "integer", "enum": ["x", 1.5, None]},
        "e": {"type": "integer", "enum": ["p", "q"]},
    }})  # fmt: skip
    props = schema["properties"]
    assert props["a"] == {"type": ["integer", "string"], "enum": [1, 2, "dontcare"]}
    assert props["b"] == {"type": "boolean", "enum": [True, False]}
    assert props["c"]["items"]["enum"] == ["x", "y"]
    assert "enum" not in props["c"]
    assert "type" not in props["d"]
    assert props["e"]["type"] == "string"


def test_names_are_mapped_reversibly() -> None:
    """A dotted name gets a valid mapped name; the original is kept."""
    names = NameMap()
    out = normalize_definition(_definition({"type": "dict", "properties": {}}, "a.b"), names=names)
    assert (out.name, out.original_name) == ("a_b", "a.b")
    assert names.original("a_b") == "a.b"
    assert from_record(out.to_record(lambda **kw: kw)).name == "a_b"


@pytest.mark.parametrize(
    ("definition", "reason"),
    [
        ({"description": "x"}, "without a name"),
        ({"name": "f", "description": ""}, "description"),
        (_definition("nope"), "must be a JSON object"),
        (_definition({"type": "array"}), "must be an object"),
        (_definition({"type": "dict", "properties": {"a": {"type": "Widget"}}}), "unknown type"),
        (_definition({"type": "dict", "properties": {"a": "x"}}), "a schema must be"),
        (_definition({"type": "dict", "properties": []}), "must map names"),
        (_definition({"type": "dict", "properties": {}, "required": "a"}), "list of names"),
        (_definition({"type": "dict", "properties": {"a": {"type": 3}}}), "must be a string"),
        (_definition({"type": "dict", "properties": {"a": {"enum": []}}}), "non-empty list"),
    ],
)
def test_what_cannot_be_normalised_is_rejected_with_the_reason(
    definition: dict[str, Any], reason: str
) -> None:
    """Definitions with no clear meaning are rejected, saying where and why."""
    with pytest.raises(ToolDefinitionError, match=reason):
        normalize_definition(definition)


def test_other_spellings_and_list_items() -> None:
    """input_schema is read, a missing root type is set, list-form items become prefixItems."""
    items = [{"type": "float"}, {"type": "str"}]
    schema = {
        "properties": {
            "p": {"type": "array", "items": items},
            "m": {"type": "dict", "additionalProperties": {"type": "float"}},
        }
    }
    out = normalize_definition({"name": "g", "description": "G.", "input_schema": schema})
    assert out.parameters["type"] == "object"
    assert out.parameters["properties"]["p"]["prefixItems"][1] == {"type": "string"}
    assert out.parameters["properties"]["m"]["additionalProperties"] == {"type": "number"}


def test_loader_reads_question_and_bare_lines(tmp_path: Any) -> None:
    """The loader reads BFCL question lines and bare definition lines, de-duplicated."""
    path = tmp_path / "defs.json"
    question = '{"id": "q", "function": [{"name": "a.b", "description": "A.", "parameters": {"type": "dict", "properties": {}}}]}'  # noqa: E501
    bare = '{"name": "c", "description": "C.", "parameters": {"type": "dict", "properties": {}}}'
    path.write_text("\n".join([question, question, "", bare]), encoding="utf-8")
    assert [f["name"] for f in iter_functions(path)] == ["a.b", "a.b", "c"]
    assert [d.name for d in load_definitions([path])] == ["a_b", "c"]


def test_enum_conversion_warning_uses_the_right_article() -> None:
    """The warning says "values that spell an integer", not "a integer"."""
    _, warnings = normalize_schema(
        {"type": "object", "properties": {"a": {"type": "integer", "enum": ["1", "2"]}}}
    )
    assert any("values that spell an integer were converted" in w for w in warnings)
