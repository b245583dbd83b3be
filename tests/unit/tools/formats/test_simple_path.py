"""The one-pass compilers for simple schemas give exactly what the general walks give.

Random flat object schemas (primitive leaves, lists of a primitive, ``Optional[...]``
of either, with descriptions, defaults, titles, any key order and unusual names)
go through each provider's compiler and through its general path; the output and
the report lines must be identical (the order of the properties and of the report
lines included; the keys of an object schema may come in another order).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.core.errors import SchemaConversionError
from forge.tools.formats._closed_strict import (
    ANTHROPIC,
    BEDROCK,
    compile_closed_strict,
    compile_closed_strict_general,
)
from forge.tools.formats._gemini_schema import compile_gemini, compile_gemini_general
from forge.tools.formats._openai_strict import compile_openai_strict, compile_openai_strict_general
from forge.tools.formats._schema import Context, Schema
from forge.tools.formats._simple import closed_strict_simple, gemini_simple, openai_strict_simple

PRIMITIVE = st.sampled_from(["string", "integer", "number", "boolean", "null"])
NAMES = st.one_of(
    st.sampled_from(["query", "city", "count", "a_b", "_x", "Z9", "x" * 64, "x" * 65]),
    st.sampled_from(["a/b", "~t", "$ref", "two words", "naïve", "9lives", "", "end\n"]),
    st.text(max_size=6),
)
DEFAULT = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
    st.lists(st.text(max_size=3), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(),
                                                               max_size=2),
)  # fmt: skip
TEXT = st.one_of(st.text(max_size=12), st.just(""))


@st.composite
def _shuffled(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    keys = draw(st.permutations(list(schema)))
    return {k: schema[k] for k in keys}


@st.composite
def _extras(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    if draw(st.booleans()):
        schema["description"] = draw(TEXT)
    if draw(st.booleans()):
        schema["default"] = draw(DEFAULT)
    if draw(st.booleans()):
        schema["title"] = draw(TEXT)
    return draw(_shuffled(schema))


@st.composite
def _bare(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"type": draw(PRIMITIVE)}
    return draw(_shuffled({"type": "array", "items": {"type": draw(PRIMITIVE)}}))


@st.composite
def _property(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["leaf", "array", "optional"]))
    if kind == "leaf":
        return draw(_extras({"type": draw(PRIMITIVE)}))
    if kind == "array":
        return draw(_extras({"type": "array", "items": {"type": draw(PRIMITIVE)}}))
    return draw(_extras({"anyOf": [draw(_bare()), {"type": "null"}]}))


@st.composite
def simple_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """A flat object schema of the kind the one-pass compilers take."""
    props = draw(st.dictionaries(NAMES, _property(), max_size=6))
    schema: dict[str, Any] = {"type": "object", "properties": props}
    names = [*props, "missing"]
    if draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(names), unique=True))
    if not props or draw(st.booleans()):
        schema["additionalProperties"] = False
    if draw(st.booleans()):
        schema["description"] = draw(TEXT)
    if draw(st.booleans()):
        schema["title"] = draw(TEXT)
    return draw(_shuffled(schema))


Compiler = Callable[[Any, Context], Schema]


def _ordered(schema: Any) -> Any:
    """The schema with the keys of the root and of each property sorted (property order kept)."""
    if not isinstance(schema, dict):
        return schema
    out = {key: schema[key] for key in sorted(schema)}
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {name: json.dumps(prop, sort_keys=True, default=str)
                             for name, prop in schema["properties"].items()}  # fmt: skip
    return out


def _run(compile_schema: Compiler, schema: dict[str, Any], provider: str) -> tuple[str, Any]:
    ctx = Context("tool", provider, provider != "gemini")
    try:
        out = compile_schema(schema, ctx)
    except SchemaConversionError as exc:  # Gemini's subset: a parameter name it rejects
        return "fails", (exc.path, exc.keyword)
    return json.dumps(_ordered(out), default=str), [(c.path, c.keyword, c.action, c.detail)
                                                    for c in ctx.changes]  # fmt: skip


CASES: list[tuple[str, Compiler, Compiler, Compiler]] = [
    ("gemini", compile_gemini, compile_gemini_general, gemini_simple),
    ("openai", compile_openai_strict, compile_openai_strict_general, openai_strict_simple),
    ("anthropic", lambda s, c: compile_closed_strict(s, c, ANTHROPIC),
     lambda s, c: compile_closed_strict_general(s, c, ANTHROPIC), closed_strict_simple),
    ("bedrock", lambda s, c: compile_closed_strict(s, c, BEDROCK),
     lambda s, c: compile_closed_strict_general(s, c, BEDROCK), closed_strict_simple),
]  # fmt: skip


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(simple_schemas())
def test_one_pass_path_matches_general_path(schema: dict[str, Any]) -> None:
    before = json.dumps(schema, default=str)
    for provider, compile_schema, general, simple in CASES:
        assert _run(compile_schema, schema, provider) == _run(general, schema, provider)
        if provider != "gemini" or (
            all(n.isascii() and n.isidentifier() and len(n) <= 64 for n in schema["properties"])
            and set(schema.get("required", ())) <= set(schema["properties"])
        ):  # Gemini: unusual names and required names with no property take the general path
            assert simple(schema, Context("tool", provider, True)) is not None, provider
    assert json.dumps(schema, default=str) == before  # the input is left alone


@given(simple_schemas(), st.sampled_from([
    ("additionalProperties", True), ("type", "array"), ("required", "query"),
    ("$defs", {}), ("minProperties", 1), ("properties", [])]))  # fmt: skip
def test_other_schemas_take_the_general_path(schema: dict[str, Any], change: Any) -> None:
    key, value = change
    schema = {**schema, key: value}
    for provider, _, _, simple in CASES:
        assert simple(schema, Context("tool", provider, True)) is None


OTHER_PROPERTIES = [
    {"type": "object"}, {"type": "string", "enum": ["a"]}, {"type": "string", "format": "date"},
    {"type": "array", "items": {"type": "string", "description": "x"}},
    {"type": ["string", "null"]}, {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"anyOf": [{"type": "null"}, {"type": "string"}]}, {"$ref": "#/$defs/x"}, {}, True,
]  # fmt: skip


@given(simple_schemas(), st.sampled_from(OTHER_PROPERTIES))
def test_other_properties_take_the_general_path(schema: dict[str, Any], prop: Any) -> None:
    schema = {**schema, "properties": {**schema["properties"], "other": prop}}
    for provider, _, _, simple in CASES:
        assert simple(schema, Context("tool", provider, True)) is None
