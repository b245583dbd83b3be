"""Gemini function declarations compared with what google-genai itself writes."""

from __future__ import annotations

from typing import Any

from google.genai import types

from forge.tools import from_record, tool
from forge.tools.formats import convert, to_provider


@tool
def ping() -> str:
    """Check the service."""
    return "pong"


def _sdk_declaration() -> dict[str, Any]:
    def check() -> str:
        """Check the service."""
        return "pong"

    declaration = types.FunctionDeclaration.from_callable_with_api_option(
        callable=check, api_option="GEMINI_API"
    )
    dumped: dict[str, Any] = declaration.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def test_a_tool_without_parameters_has_no_parameters(sdk: Any) -> None:
    """Gemini rejects ``parameters.properties`` empty for an OBJECT; the SDK leaves it out too."""
    (wrapper,) = to_provider([ping], "gemini")
    (declaration,) = wrapper["functionDeclarations"]
    sdk["gemini"](declaration)
    assert declaration == {"name": "ping", "description": "Check the service."}
    assert declaration.keys() == _sdk_declaration().keys() | {"description"}


def test_an_empty_record_schema_has_no_parameters_either() -> None:
    """A record with ``{"type": "object"}`` or no properties declares nothing as well."""
    for schema in ({"type": "object"}, {"type": "object", "properties": {}, "required": []}):
        record = from_record({"name": "now", "description": "Now.", "parameters": schema,
                              "handler": lambda: 0})  # fmt: skip
        assert "parameters" not in convert(record, "gemini")[0]


def test_a_described_or_constrained_empty_object_keeps_its_parameters() -> None:
    """An object that says something beyond "no properties" is still sent."""
    schema = {"type": "object", "description": "Free-form options.",
              "additionalProperties": {"type": "string"}}  # fmt: skip
    record = from_record({"name": "opts", "description": "Opts.", "parameters": schema,
                          "handler": lambda **k: k})  # fmt: skip
    assert convert(record, "gemini")[0]["parameters"]["type"] == "OBJECT"


def test_required_names_without_a_property_are_dropped_and_reported(sdk: Any) -> None:
    """Gemini answers 400 'required[0]: property is not defined'; the export drops such names."""
    schema = {"type": "object", "required": ["a", "ghost"], "properties": {
        "a": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x", "y"]},
    }}  # fmt: skip
    record = from_record({"name": "g", "description": "G.", "parameters": schema,
                          "handler": lambda **k: k})  # fmt: skip
    declaration, report = convert(record, "gemini")
    sdk["gemini"](declaration)
    params = declaration["parameters"]
    assert params["required"] == ["a"]
    assert params["properties"]["a"]["required"] == ["x"]
    dropped = {c.path for c in report.changes if c.keyword == "required" and c.action == "removed"}
    assert dropped == {"", "/properties/a"}
    simple = from_record({"name": "s", "description": "S.", "handler": lambda **k: k,
                          "parameters": {"type": "object", "required": ["q", "ghost"],
                                         "properties": {"q": {"type": "string"}}}})  # fmt: skip
    assert convert(simple, "gemini")[0]["parameters"]["required"] == ["q"]
    assert record.validate({"a": {"x": 1, "y": 2}, "ghost": 0})["ghost"] == 0
