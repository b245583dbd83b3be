"""Compiled schemas mean what the canonical schema means (property-based).

For schemas built from ``$ref``, ``anyOf``, nullable types, defaults, enums
and nested objects, a value the canonical schema accepts is accepted by the
Gemini and the strict (OpenAI-style) compiled schemas, the latter after the
model-side encoding (``null`` for a missing optional, JSON strings for
free-form values) and our restoring step gives back the same value. And
vice versa wherever the provider can express the schema exactly.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from forge.tools import from_record
from forge.tools.formats import convert, strict_arguments
from forge.tools.formats._schema import is_free_form, resolve

PRIMITIVES = [{"type": "string"}, {"type": "integer", "minimum": 0}, {"type": "number"},
              {"type": "boolean"}, {"type": "string", "enum": ["red", "green"]},
              {"type": "integer", "default": 3}]  # fmt: skip
JUNK = st.sampled_from([None, "text", 7, 2.5, True, [], {}, [1, "a"], {"z": 1}])


def _leaf() -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from(PRIMITIVES).map(dict)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if isinstance(schema.get("type"), str):
        out = {**schema, "type": [schema["type"], "null"]}
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    return {"anyOf": [schema, {"type": "null"}]}


def _object(props: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "additionalProperties": False,
            "required": [r for r in required if r in props]}  # fmt: skip


def _extend(inner: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    names = st.sampled_from(["a", "b", "c", "d"])
    return st.one_of(
        inner.map(_nullable),
        inner.map(lambda s: {"type": "array", "items": s}),
        st.tuples(
            _leaf(),
            st.sampled_from(
                [
                    {"type": "array", "items": {"type": "integer"}},
                    {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
                ]
            ),
        ).map(lambda p: {"anyOf": list(p)}),
        st.dictionaries(names, inner, min_size=1, max_size=3).flatmap(
            lambda props: st.lists(st.sampled_from(sorted(props)), unique=True).map(
                lambda req: _object(props, req)
            )
        ),
    )


def _schemas() -> st.SearchStrategy[dict[str, Any]]:
    """Canonical parameters schemas with nesting, nullability, enums, defaults and a $ref."""
    inner = st.recursive(_leaf(), _extend, max_leaves=6)
    props = st.dictionaries(st.sampled_from(["p", "q", "r", "s"]), inner, min_size=1, max_size=4)
    shared = inner

    def build(p: dict[str, Any], req: list[str], defn: dict[str, Any], use_ref: bool,
              free: bool) -> dict[str, Any]:  # fmt: skip
        root = _object(dict(p), req)
        if use_ref:
            root["properties"]["ref"] = {"$ref": "#/$defs/Shared"}
            root["$defs"] = {"Shared": defn}
        if free:
            root["properties"]["extra"] = {"type": "object", "additionalProperties":
                                           {"type": "integer"}}  # fmt: skip
        return root

    return st.tuples(props, st.lists(st.sampled_from(["p", "q", "r", "s"]), unique=True), shared,
                     st.booleans(), st.booleans()).map(lambda t: build(*t))  # fmt: skip


def _candidates(schema: Any, root: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values for ``schema``: mostly valid-looking, sometimes junk."""
    if isinstance(schema, dict) and "$ref" in schema:
        return _candidates(resolve(root, schema["$ref"]), root, depth)
    if depth > 4 or not isinstance(schema, dict):
        return JUNK
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    options: list[st.SearchStrategy[Any]] = [JUNK]
    if "enum" in schema:
        options.append(st.sampled_from(schema["enum"]))
    for branch in schema.get("anyOf", []):
        options.append(_candidates(branch, root, depth + 1))
    if "string" in kinds:
        options.append(st.text(max_size=5))
    if "integer" in kinds:
        options.append(st.integers(-3, 10))
    if "number" in kinds:
        options.append(st.floats(-5, 5, allow_nan=False))
    if "boolean" in kinds:
        options.append(st.booleans())
    if "null" in kinds:
        options.append(st.none())
    if "array" in kinds:
        options.append(st.lists(_candidates(schema.get("items", {}), root, depth + 1), max_size=3))
    if "object" in kinds:
        options.append(_object_values(schema, root, depth))
    return st.one_of(*options)


def _object_values(schema: dict[str, Any], root: Any, depth: int) -> st.SearchStrategy[Any]:
    props = schema.get("properties", {})
    if not props:
        return st.dictionaries(st.sampled_from(["k", "l"]), st.integers(0, 3), max_size=2)
    fields = {k: st.one_of(st.just(_MISSING), _candidates(v, root, depth + 1))
              for k, v in props.items()}  # fmt: skip
    return st.fixed_dictionaries(fields).map(
        lambda d: {k: v for k, v in d.items() if v is not _MISSING}
    )


_MISSING = object()


def _ok(schema: dict[str, Any], value: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def _branch(schema: dict[str, Any], value: Any, root: dict[str, Any]) -> Any:
    for branch in schema.get("anyOf", []):
        if _ok({**branch, "$defs": root.get("$defs", {})}, value):
            return branch
    return None


def encode(schema: Any, value: Any, root: dict[str, Any], top: bool = False) -> Any:
    """What a strict-mode model sends for ``value``: nulls for missing optionals, JSON strings."""
    if isinstance(schema, dict) and "$ref" in schema:
        schema = resolve(root, schema["$ref"])
    if not top and is_free_form(schema, root):
        return json.dumps(value)
    if isinstance(value, dict) and "properties" in schema:
        out = {}
        for key, sub in schema["properties"].items():
            if key in value:
                out[key] = encode(sub, value[key], root)
            else:
                out[key] = None  # strict mode requires every key
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [encode(schema["items"], v, root) for v in value]
    branch = _branch(schema, value, root) if "anyOf" in schema else None
    return value if branch is None else encode(branch, value, root)


def gemini_as_json_schema(schema: Any) -> Any:
    """Read a Gemini ``Schema`` dict as the JSON Schema it stands for."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            out["type"] = value.lower()
        elif key == "properties":
            out[key] = {k: gemini_as_json_schema(v) for k, v in value.items()}
        elif key == "items":
            out[key] = gemini_as_json_schema(value)
        elif key == "anyOf":
            out[key] = [gemini_as_json_schema(v) for v in value]
        elif key != "nullable":
            out[key] = value
    if schema.get("nullable"):
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def declared_only(schema: Any, value: Any, root: dict[str, Any]) -> Any:
    """``value`` without the keys its schema does not declare (at every depth)."""
    if isinstance(schema, dict) and "$ref" in schema:
        schema = resolve(root, schema["$ref"])
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        return {k: declared_only(props[k], v, root) for k, v in value.items() if k in props}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [declared_only(schema["items"], v, root) for v in value]
    for branch in schema.get("anyOf", []):
        stripped = declared_only(branch, value, root)
        if _ok({**branch, "$defs": root.get("$defs", {})}, stripped):
            return stripped
    return value


def _noop(**kwargs: Any) -> Any:
    return kwargs


def _exact(report: Any, allowed: set[str]) -> bool:
    """Whether the provider's schema says exactly what the canonical one says."""
    return all(
        (c.action not in ("moved_to_description", "removed") or c.keyword in allowed)
        and "JSON string" not in c.detail  # a JSON string admits any JSON value
        for c in report.changes
    )


def _without_filled_nulls(restored: Any, value: Any) -> Any:
    """Drop the nulls strict mode made the model send for absent nullable optionals."""
    if isinstance(restored, dict) and isinstance(value, dict):
        return {k: _without_filled_nulls(v, value.get(k)) for k, v in restored.items()
                if k in value or v is not None}  # fmt: skip
    if isinstance(restored, list) and isinstance(value, list) and len(restored) == len(value):
        return [_without_filled_nulls(r, v) for r, v in zip(restored, value, strict=True)]
    return restored


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_strict_and_gemini_schemas_keep_the_meaning(data: Any) -> None:
    """Canonical-valid values pass the compiled schemas (and back), strict after restoring."""
    schema = data.draw(_schemas(), label="schema")
    tool = from_record({"name": "t", "description": "d", "parameters": schema, "handler": _noop})
    value = data.draw(_object_values(schema, schema, 0), label="value")
    canonical_ok = _ok(schema, value)
    event(f"canonical accepts: {canonical_ok}")

    strict, strict_report = convert(tool, "openai", strict=True)
    strict_schema = strict["function"]["parameters"]
    sent = encode(schema, value, schema, top=True)
    restored = strict_arguments(tool)(sent)
    if canonical_ok:
        assert _ok(strict_schema, sent), (strict_schema, sent)
        assert _ok(schema, restored), (schema, restored)
        assert _without_filled_nulls(restored, value) == value
    if _ok(strict_schema, sent) and _exact(strict_report, {"default", "additionalProperties"}):
        assert _ok(schema, restored), (schema, restored)

    gemini, gemini_report = convert(tool, "gemini")
    gemini_schema = gemini_as_json_schema(gemini["parameters"])
    if canonical_ok:
        assert _ok(gemini_schema, value), (gemini_schema, value)
    if _ok(gemini_schema, value) and _exact(gemini_report, {"additionalProperties"}):
        # Gemini objects cannot be closed: undeclared keys are what our validation adds.
        assert _ok(schema, declared_only(schema, value, schema)), (schema, gemini_schema, value)
