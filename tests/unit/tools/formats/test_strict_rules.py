"""Strict-mode output obeys every rule of provider-formats.md §4 (OpenAI) and §5 (Anthropic).

The checkers below are written from that document, not from the compilers, so
they are an independent oracle.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from forge.tools import tool
from forge.tools.formats import to_provider

OPENAI_TYPES = {"string", "number", "boolean", "integer", "object", "array", "null"}
OPENAI_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6",
                  "uuid"}  # fmt: skip
OPENAI_KEYWORDS = {"type", "description", "properties", "required", "additionalProperties",
                   "items", "enum", "anyOf", "$ref", "$defs", "pattern", "format", "multipleOf",
                   "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems",
                   "maxItems", "minLength", "maxLength", "title"}  # fmt: skip
ANTHROPIC_FORMATS = OPENAI_FORMATS | {"uri"}
ANTHROPIC_KEYWORDS = {"type", "anyOf", "allOf", "enum", "const", "$defs", "$ref", "description",
                      "title", "properties", "required", "additionalProperties", "items",
                      "format", "minItems"}  # fmt: skip


class Point(BaseModel):
    """A point."""

    x: float
    y: float = 0.0


class Shape(BaseModel):
    """A recursive model: a shape may have a parent shape."""

    name: str
    points: list[Point]
    parent: Shape | None = None


def _types(node: dict[str, Any]) -> list[str]:
    kind = node.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def openai_violations(schema: dict[str, Any]) -> list[str]:
    """Every rule of the OpenAI strict subset that ``schema`` breaks."""
    out: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        out.append("root must be type object, not anyOf")
    counts = {"properties": 0, "enum": 0}
    defs = schema.get("$defs", {})

    def walk(node: Any, path: str, depth: int) -> None:
        if not isinstance(node, dict):
            out.append(f"{path}: a schema must be an object")
            return
        for key in node:
            if key not in OPENAI_KEYWORDS:
                out.append(f"{path}: unsupported keyword {key}")
        if "$ref" in node:
            ref = node["$ref"]
            if len(node) > 1:
                out.append(f"{path}: $ref with siblings")
            if ref != "#" and not (ref.startswith("#/$defs/") and ref[8:] in defs):
                out.append(f"{path}: unresolvable $ref {ref}")
            return
        if not ({"type", "anyOf", "enum"} & node.keys()):
            out.append(f"{path}: untyped schema")
        for kind in _types(node):
            if kind not in OPENAI_TYPES:
                out.append(f"{path}: unsupported type {kind}")
        if "format" in node and node["format"] not in OPENAI_FORMATS:
            out.append(f"{path}: unsupported format {node['format']}")
        if "pattern" in node and re.search(r"\(\?<?[=!]|\\[1-9]", node["pattern"]):
            out.append(f"{path}: lookaround or backreference in pattern")
        if "enum" in node:
            counts["enum"] += len(node["enum"])
            if None in node["enum"] and "type" in node and "null" not in _types(node):
                out.append(f"{path}: enum allows null but type does not")
        if "object" in _types(node) or "properties" in node:
            props = node.get("properties", {})
            counts["properties"] += len(props)
            if depth + 1 > 10:
                out.append(f"{path}: nesting over 10 levels")
            if node.get("additionalProperties") is not False:
                out.append(f"{path}: additionalProperties must be false")
            if set(node.get("required", [])) != set(props):
                out.append(f"{path}: every property must be required")
            for name, sub in props.items():
                walk(sub, f"{path}/properties/{name}", depth + 1)
        if "array" in _types(node) and "items" not in node:
            out.append(f"{path}: array without items")
        if "items" in node:
            walk(node["items"], f"{path}/items", depth)
        for i, sub in enumerate(node.get("anyOf", [])):
            walk(sub, f"{path}/anyOf/{i}", depth)

    walk({k: v for k, v in schema.items() if k != "$defs"}, "", 0)
    for name, sub in defs.items():
        walk(sub, f"/$defs/{name}", 0)
    if counts["properties"] > 5000:
        out.append("over 5000 properties")
    if counts["enum"] > 1000:
        out.append("over 1000 enum values")
    return out


def anthropic_violations(schema: dict[str, Any]) -> list[str]:
    """Every rule of the Anthropic strict subset (§5) that ``schema`` breaks."""
    out: list[str] = []

    def walk(node: Any, path: str, stack: tuple[str, ...]) -> None:
        if not isinstance(node, dict):
            out.append(f"{path}: a schema must be an object")
            return
        for key in node:
            if key not in ANTHROPIC_KEYWORDS:
                out.append(f"{path}: unsupported keyword {key}")
        if "format" in node and node["format"] not in ANTHROPIC_FORMATS:
            out.append(f"{path}: unsupported format")
        if node.get("minItems", 0) > 1:
            out.append(f"{path}: minItems over 1")
        if "object" in _types(node) or "properties" in node:
            if node.get("additionalProperties") is not False:
                out.append(f"{path}: additionalProperties must be false")
            for name, sub in node.get("properties", {}).items():
                walk(sub, f"{path}/properties/{name}", stack)
        if "$ref" in node and node["$ref"] in stack:
            out.append(f"{path}: recursive schema")
        if "items" in node:
            walk(node["items"], f"{path}/items", stack)
        for key in ("anyOf", "allOf"):
            for i, sub in enumerate(node.get(key, [])):
                walk(sub, f"{path}/{key}/{i}", stack)

    walk(schema, "", ())
    return out


@pytest.mark.slow
def test_bfcl_strict_output_obeys_every_openai_rule(bfcl: Any) -> None:
    """OpenAI (and Responses, Mistral) strict output of every BFCL definition obeys §4."""
    _, _, tools = bfcl
    bad = []
    for item in to_provider(tools, "openai", strict=True):
        problems = openai_violations(item["function"]["parameters"])
        if problems:
            bad.append(f"{item['function']['name']}: {problems[:3]}")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.slow
def test_bfcl_strict_output_obeys_every_anthropic_rule(bfcl: Any) -> None:
    """Anthropic strict output of every BFCL definition obeys §5."""
    _, _, tools = bfcl
    bad = []
    for item in to_provider(tools, "anthropic", strict=True):
        problems = anthropic_violations(item["input_schema"])
        if problems:
            bad.append(f"{item['name']}: {problems[:3]}")
    assert not bad, "\n".join(bad[:20])


def test_checker_catches_a_plain_schema() -> None:
    """The OpenAI checker is not vacuous: a plain schema with optional parameters fails it."""

    @tool
    def find(query: str, limit: int = 5, meta: dict[str, int] | None = None) -> str:
        """Find."""
        return query

    plain = to_provider([find], "openai")[0]["function"]["parameters"]
    problems = openai_violations(plain)
    assert any("every property must be required" in p for p in problems)
    assert any("unsupported keyword default" in p for p in problems)
    strict = to_provider([find], "openai", strict=True)[0]["function"]["parameters"]
    assert openai_violations(strict) == []


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "mistral"])
def test_pydantic_models_compile_to_valid_strict(provider: str) -> None:
    """Nested models, $ref, Optional, Literal, tuples and dicts compile to rule-abiding strict."""

    @tool
    def draw(
        shape: Shape,
        mode: Literal["fill", "line"] = "line",
        at: tuple[int, int] = (0, 0),
        labels: dict[str, str] | None = None,
    ) -> str:
        """Draw."""
        return shape.name

    item = to_provider([draw], provider, strict=True)[0]
    schema = item["parameters"] if provider == "openai-responses" else item["function"][
        "parameters"]  # fmt: skip
    assert openai_violations(schema) == []


BEDROCK_UNSUPPORTED = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                       "maxItems", "contains", "default", "$ref", "$defs"}  # fmt: skip


def bedrock_violations(schema: dict[str, Any]) -> list[str]:
    """Every rule of the Bedrock strict subset (§8) that ``schema`` breaks."""
    out: list[str] = []

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            out.append(f"{path}: a schema must be an object")
            return
        out.extend(f"{path}: unsupported keyword {k}" for k in node if k in BEDROCK_UNSUPPORTED)
        if node.get("minItems", 0) > 1:
            out.append(f"{path}: minItems over 1")
        if "pattern" in node and re.search(r"\(\?<?[=!]|\\[1-9]", node["pattern"]):
            out.append(f"{path}: lookaround or backreference in pattern")
        if ("object" in _types(node) or "properties" in node) and node.get(
            "additionalProperties"
        ) is not False:
            out.append(f"{path}: additionalProperties must be false")
        for name, sub in node.get("properties", {}).items():
            walk(sub, f"{path}/properties/{name}")
        if "items" in node:
            walk(node["items"], f"{path}/items")
        for key in ("anyOf", "allOf"):
            for i, sub in enumerate(node.get(key, [])):
                walk(sub, f"{path}/{key}/{i}")

    if schema.get("type") != "object":
        out.append("the top level schema type must be object")
    walk(schema, "")
    return out


@pytest.mark.slow
def test_bfcl_strict_output_obeys_every_bedrock_rule(bfcl: Any) -> None:
    """Bedrock strict output of every BFCL definition obeys §8."""
    _, _, tools = bfcl
    bad = []
    for item in to_provider(tools, "bedrock", strict=True):
        problems = bedrock_violations(item["toolSpec"]["inputSchema"]["json"])
        if problems:
            bad.append(f"{item['toolSpec']['name']}: {problems[:3]}")
    assert not bad, "\n".join(bad[:20])
