"""Gemini ``parameters`` (OpenAPI 3.0 subset ``Schema``) compiler.

References are inlined (recursion fails: the subset has none, and
`forge.tools.formats.gemini` then sends ``parametersJsonSchema``), ``null`` in a
type list, an ``anyOf`` or an ``enum`` becomes ``nullable``, types are written
the SDK's way (``STRING``), enums are strings only, and keywords the subset
lacks move into the description. Gemini has no strict switch: its ``VALIDATED``
mode enforces the schema as given, so ``strict`` changes nothing here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from forge.tools.formats._schema import (
    ANNOTATIONS,
    Context,
    Path,
    Schema,
    append_description,
    child,
    open_tuple,
    simple_leaf,
    without_refs,
)
from forge.tools.formats._simple import UNKNOWN, gemini_simple
from forge.tools.formats.limits import GEMINI_PARAMETER_NAME
from forge.tools.values.readonly import DICTS, LISTS

__all__ = ["compile_gemini"]

TYPES = {"string": "STRING", "number": "NUMBER", "integer": "INTEGER", "boolean": "BOOLEAN",
         "array": "ARRAY", "object": "OBJECT", "null": "NULL"}  # fmt: skip
KEEP = frozenset({"description", "minItems", "maxItems", "minLength", "maxLength", "pattern",
                  "minimum", "maximum", "minProperties", "maxProperties", "default"})  # fmt: skip
FORMATS = {"NUMBER": {"float", "double"}, "INTEGER": {"int32", "int64"}}


def compile_gemini(schema: Mapping[str, Any], ctx: Context, table: Any = UNKNOWN) -> Schema:
    """Return Gemini's ``parameters`` form of a parameters schema.

    ``table`` is the schema's parameter table when the caller has it (a compiled tool keeps it).
    """
    simple = gemini_simple(schema, ctx, table)
    return simple if simple is not None else compile_gemini_general(schema, ctx)


def compile_gemini_general(schema: Mapping[str, Any], ctx: Context) -> Schema:
    """`compile_gemini` without the one-pass path for simple schemas."""
    ctx.root = schema
    return _node(without_refs(schema, ctx), ctx, ())


def _node(schema: Any, ctx: Context, path: Path) -> Schema:
    kind = simple_leaf(schema)
    if kind is not None:
        leaf = {k: v for k, v in schema.items() if k not in ("title", "type")}
        if leaf.get("default", 0) is None:
            del leaf["default"]
        leaf["type"] = TYPES[kind]
        return leaf
    if _optional(schema):
        return _nullable_fast(schema, ctx, path)
    if schema is True:
        ctx.note(path, "true", "rewritten", "the schema 'true' (any value) became {}")
        return {}
    if not isinstance(schema, Mapping):
        ctx.fail(path, str(schema).lower() if isinstance(schema, bool) else "schema",
                 f"the subset has no schema admitting nothing (got {schema!r})")  # fmt: skip
    schema = open_tuple(_merge_all_of(schema, ctx, path))
    schema, nullable = _split_null(schema, ctx, path)
    branches = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(branches, list) and len(branches) == 1 and isinstance(branches[0], Mapping):
        rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        schema = {**branches[0], **rest}
    out: Schema = {}
    moved: dict[str, Any] = {}
    for key, value in schema.items():
        _keyword(key, value, out, moved, ctx=ctx, path=path)
    _enum(out, moved, ctx, path)
    _defined_required(out, ctx, path)
    if nullable:
        out["nullable"] = True
    append_description(out, moved)
    return out


_OPTIONAL_KEYS = frozenset({"anyOf", "default", "description", "title"})


def _optional(schema: Any) -> bool:
    """Whether ``schema`` is the common ``anyOf: [X, {"type": "null"}]`` (+ default, text)."""
    if type(schema) not in DICTS:
        return False
    branches = schema.get("anyOf")
    return (
        type(branches) in LISTS and len(branches) == 2 and branches[1] == {"type": "null"}
        and schema.keys() <= _OPTIONAL_KEYS and isinstance(branches[0], dict)
        and "nullable" not in branches[0]
    )  # fmt: skip


def _nullable_fast(schema: dict[str, Any], ctx: Context, path: Path) -> Schema:
    out = _node(schema["anyOf"][0], ctx, child(path, "anyOf", 0))
    if "description" in schema:
        out["description"] = schema["description"]
    if schema.get("default") is not None:
        out["default"] = schema["default"]
    out["nullable"] = True
    ctx.note(path, "type", "rewritten", "null became nullable: true")
    return out


def _keyword(
    key: str, value: Any, out: Schema, moved: dict[str, Any], *, ctx: Context, path: Path
) -> None:
    here = child(path, key)
    if key == "type":
        _type(value, out, ctx, path)
    elif key == "properties":
        out[key] = {k: _node(v, ctx, child(here, k)) for k, v in value.items()}
        for name in value:
            if not GEMINI_PARAMETER_NAME.fullmatch(name):
                ctx.fail(child(here, name), "properties", f"the parameter name {name!r} breaks "
                         "the subset's rule [A-Za-z_][A-Za-z0-9_]{0,63}")  # fmt: skip
    elif key == "required":
        out[key] = list(value)
    elif key == "items" and isinstance(value, Mapping | bool):
        out[key] = _node(value, ctx, here)
    elif key in ("anyOf", "oneOf"):
        if key == "oneOf":
            ctx.note(path, key, "rewritten", "oneOf became anyOf (Gemini has no oneOf)")
        out["anyOf"] = [_node(v, ctx, child(here, i)) for i, v in enumerate(value)]
    elif key in ("enum", "const"):
        out["enum"] = list(value) if key == "enum" else [value]
    elif key == "prefixItems" and isinstance(value, list):
        ctx.note(path, key, "rewritten", "tuple positions became one item type + length")
        items = [_node(v, ctx, child(here, i)) for i, v in enumerate(value)]
        unique = list({_key(c): c for c in items}.values())
        out.setdefault("items", unique[0] if len(unique) == 1 else {"anyOf": unique})
        out["minItems"] = out["maxItems"] = len(value)
    elif key == "format":
        _format(value, out, moved, ctx, path)
    elif key == "additionalProperties" and value is False:
        ctx.note(path, key, "note", "Gemini objects cannot be closed; extra keys are "
                 "still rejected when the call is validated")  # fmt: skip
    elif key == "default" and value is None:
        return  # the SDK drops a null default; nullable already says it
    elif key in KEEP:
        out[key] = value
    elif key not in ANNOTATIONS:
        ctx.note(path, key, "moved_to_description", f"Gemini's schema subset has no {key}")
        moved[key] = value


def _key(schema: Schema) -> str:
    """A schema as text, to find equal ones in one pass (not one comparison per pair)."""
    return json.dumps(schema, sort_keys=True, default=repr)


def _defined_required(out: Schema, ctx: Context, path: Path) -> None:
    """Drop required names with no property: Gemini rejects them ("property is not defined")."""
    required = out.get("required")
    if not required:
        return
    defined = out.get("properties", {})
    kept = [name for name in required if name in defined]
    if len(kept) == len(required):
        return
    dropped = [name for name in required if name not in defined]
    ctx.note(path, "required", "removed", f"dropped the required names {dropped!r}, which "
             "have no property (Gemini rejects them: 'property is not defined'); the call is "
             "still validated against them")  # fmt: skip
    if kept:
        out["required"] = kept
    else:
        del out["required"]


def _type(value: Any, out: Schema, ctx: Context, path: Path) -> None:
    kinds = [value] if isinstance(value, str) else list(value)
    mapped = [TYPES[k] for k in kinds if k in TYPES]
    if len(mapped) != len(kinds):
        ctx.fail(path, "type", f"unknown type in {value!r}")
    if len(mapped) == 1:
        out["type"] = mapped[0]
    else:
        ctx.note(path, "type", "rewritten", "a list of types became anyOf")
        out["anyOf"] = [{"type": k} for k in mapped]


def _format(value: Any, out: Schema, moved: dict[str, Any], ctx: Context, path: Path) -> None:
    allowed = FORMATS.get(out.get("type", "STRING"))
    if allowed is None or value in allowed:
        out["format"] = value
    else:
        ctx.note(path, "format", "moved_to_description", f"Gemini has no format {value!r} here")
        moved["format"] = value


def _enum(out: Schema, moved: dict[str, Any], ctx: Context, path: Path) -> None:
    values = out.get("enum")
    if values is None:
        return
    if all(isinstance(v, str) for v in values):
        out.setdefault("type", "STRING")
        return
    ctx.note(path, "enum", "moved_to_description", "Gemini enums hold strings only")
    moved["enum"] = out.pop("enum")


def _split_null(schema: Mapping[str, Any], ctx: Context, path: Path) -> tuple[Schema, bool]:
    out = dict(schema)
    nullable = bool(out.pop("nullable", False))
    kind = out.get("type")
    if isinstance(kind, list) and "null" in kind and len(kind) > 1:
        rest = [k for k in kind if k != "null"]
        out["type"] = rest[0] if len(rest) == 1 else rest
        nullable = True
    for key in ("anyOf", "oneOf"):
        branches = out.get(key)
        if isinstance(branches, list):
            kept = [b for b in branches if not (isinstance(b, Mapping) and b.get("type") == "null")]
            if len(kept) < len(branches) and kept:
                out[key], nullable = kept, True
    if isinstance(out.get("enum"), list) and None in out["enum"]:
        out["enum"] = [v for v in out["enum"] if v is not None]
        nullable = True
    if nullable and not schema.get("nullable"):
        ctx.note(path, "type", "rewritten", "null became nullable: true")
    return out, nullable


def _merge_all_of(schema: Mapping[str, Any], ctx: Context, path: Path) -> Mapping[str, Any]:
    parts = schema.get("allOf")
    if not isinstance(parts, list):
        return schema
    merged: Schema = {k: v for k, v in schema.items() if k != "allOf"}
    for part in parts:
        if not isinstance(part, Mapping):
            ctx.fail(path, "allOf", "allOf holds something that is not a schema")
        for key, value in part.items():
            if key == "properties":
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required":
                merged["required"] = [*merged.get("required", []), *value]
            elif key in merged and merged[key] != value and key not in ANNOTATIONS:
                ctx.fail(path, "allOf", f"the schemas disagree on {key!r} and cannot be merged")
            else:
                merged.setdefault(key, value)
    ctx.note(path, "allOf", "rewritten", "allOf was merged into one schema")
    return merged
