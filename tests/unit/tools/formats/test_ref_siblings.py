"""OpenAI strict mode keeps what a ``$ref`` points at when keywords sit beside it.

pydantic writes ``{"$ref": ..., "default": ...}`` for a field whose type is an
enum or a model and whose default is not ``None``; hand-written records add
constraints beside a ``$ref``. The reference's target must survive the rewrite
(the official SDK helper, ``to_strict_json_schema``, inlines it).
"""

from __future__ import annotations

import enum
from typing import Any

from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel

from forge.tools import from_record, tool
from forge.tools.formats import convert, strict_arguments, to_provider
from tests.unit.tools.formats.test_strict_rules import openai_violations


class Level(enum.IntEnum):
    """A level."""

    LOW = 1
    HIGH = 2


class Place(BaseModel):
    """A place."""

    city: str
    zip: str | None = None


class Settings(BaseModel):
    """What the SDK helper compiles too, as the oracle."""

    level: Level = Level.HIGH
    home: Place = Place(city="Paris")


@tool
def configure(level: Level = Level.LOW, home: Place = Place(city="Paris")) -> str:
    """Configure."""
    return f"{level.value} {home.city}"


def _params(provider: str = "openai") -> dict[str, Any]:
    item = to_provider([configure], provider, strict=True, errors="raise")[0]
    params: dict[str, Any] = item["function"]["parameters"]
    return params


def _resolve(params: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of a strict property, with its ``$ref`` followed."""
    branch = next(b for b in node["anyOf"] if b != {"type": "null"})
    name = branch["$ref"].removeprefix("#/$defs/")
    target: dict[str, Any] = params["$defs"][name]
    return target


def test_an_enum_or_model_with_a_default_keeps_its_type() -> None:
    """``level: Level = Level.LOW`` stays the enum, not a JSON string; the default is noted."""
    for provider in ("openai", "mistral"):
        params = _params(provider)
        assert openai_violations(params) == []
        level, home = params["properties"]["level"], params["properties"]["home"]
        assert _resolve(params, level)["enum"] == [1, 2]
        assert set(_resolve(params, home)["properties"]) == {"city", "zip"}
        assert "default: 1" in level["description"]
        assert "JSON value" not in level["description"] + home["description"]


def test_the_same_fields_as_the_sdk_helper() -> None:
    """The SDK helper keeps the enum values and the model's properties for the same fields."""
    sdk = to_strict_json_schema(Settings)["properties"]
    assert sdk["level"]["enum"] == [1, 2]
    assert set(sdk["home"]["properties"]) == {"city", "zip"}


def test_a_strict_call_runs_with_the_value_or_the_default() -> None:
    """The model's enum value reaches the handler; its null takes the Python default."""
    restore = strict_arguments(configure)
    sent = restore({"level": 2, "home": {"city": "Oslo", "zip": None}})
    assert configure(**configure.validate(sent)) == "2 Oslo"
    assert configure(**configure.validate(restore({"level": None, "home": None}))) == "1 Paris"


def test_constraints_beside_a_ref_are_merged_with_its_target() -> None:
    """``{"$ref": C, "minimum": 1}`` compiles to C's schema with the minimum, not to a string."""
    schema = {"type": "object", "required": ["n"],
              "properties": {"n": {"$ref": "#/$defs/C", "minimum": 2, "description": "n"}},
              "$defs": {"C": {"type": "integer", "enum": [1, 2, 3]}}}  # fmt: skip
    record = from_record({"name": "pick", "description": "Pick.", "parameters": schema,
                          "handler": lambda n: n})  # fmt: skip
    definition, report = convert(record, "openai", strict=True, errors="raise")
    n = definition["function"]["parameters"]["properties"]["n"]
    assert n == {"type": "integer", "enum": [1, 2, 3], "minimum": 2, "description": "n"}
    assert any(c.keyword == "$ref" and c.action == "inlined" for c in report.changes)


def test_conflicting_keywords_beside_a_ref_fall_back_from_strict() -> None:
    """A sibling that disagrees with the target cannot be merged: the tool goes non-strict."""
    schema = {"type": "object",
              "properties": {"o": {"$ref": "#/$defs/O", "type": "string"}},
              "$defs": {"O": {"type": "integer"}}}  # fmt: skip
    record = from_record({"name": "odd", "description": "Odd.", "parameters": schema,
                          "handler": lambda o=None: o})  # fmt: skip
    definition, report = convert(record, "openai", strict=True)
    assert "strict" not in definition["function"]
    assert report.changes[0].action == "fallback"
    assert "'type'" in report.changes[0].detail


def test_draft_7_definitions_beside_siblings_resolve() -> None:
    """``#/definitions/...`` references with siblings resolve against the schema as written."""
    from forge.tools.formats._openai_strict import compile_openai_strict_general
    from forge.tools.formats._schema import Context

    schema = {"type": "object", "properties": {
        "b": {"$ref": "#/definitions/A", "default": {"x": 1}},
        "c": {"$ref": "#/definitions/A", "minProperties": 1}},
        "definitions": {"A": {"type": "object", "properties": {"x": {"type": "integer"}},
                              "required": ["x"]}}}  # fmt: skip
    out = compile_openai_strict_general(schema, Context("t", "openai", True))
    assert out["properties"]["b"]["anyOf"][0] == {"$ref": "#/$defs/A"}
    assert out["properties"]["c"]["properties"] == {"x": {"type": "integer"}}
    assert openai_violations(out) == []
