"""Strict-mode schema compiler for Anthropic and Bedrock.

Both close every object (``additionalProperties: false``) and keep
``required`` as given, so optional parameters stay optional. References are
inlined (strict mode there has no recursion); free-form values travel as JSON
strings; keywords outside each provider's subset move into the description.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from forge.tools.formats._schema import (
    ANNOTATIONS,
    Context,
    Path,
    Schema,
    append_description,
    child,
    is_free_form,
    json_string_schema,
    open_tuple,
    simple_leaf,
    strict_leaf,
    without_refs,
)
from forge.tools.formats._simple import UNKNOWN, closed_strict_simple

__all__ = ["ANTHROPIC", "BEDROCK", "Profile", "compile_closed_strict"]


@dataclass(frozen=True, slots=True)
class Profile:
    """What one provider's strict subset keeps."""

    keep: frozenset[str]
    formats: frozenset[str] | None
    max_min_items: int | None


_BASE = frozenset({"type", "anyOf", "enum", "description", "properties", "required", "items"})
ANTHROPIC = Profile(
    keep=_BASE | {"format", "minItems"},
    formats=frozenset(
        {
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "uri",
            "ipv4",
            "ipv6",
            "uuid",
        }
    ),
    max_min_items=1,
)
BEDROCK = Profile(
    keep=_BASE | {"format", "minItems", "minLength", "maxLength", "pattern"},
    formats=None,
    max_min_items=1,
)


def compile_closed_strict(
    schema: Mapping[str, Any], ctx: Context, profile: Profile, table: Any = UNKNOWN
) -> Schema:
    """Return the strict form of a parameters schema for ``profile``.

    ``table`` is the schema's parameter table when the caller has it (a compiled tool keeps it).
    """
    simple = closed_strict_simple(schema, ctx, table)
    return simple if simple is not None else compile_closed_strict_general(schema, ctx, profile)


def compile_closed_strict_general(
    schema: Mapping[str, Any], ctx: Context, profile: Profile
) -> Schema:
    """`compile_closed_strict` without the one-pass path for simple schemas."""
    ctx.root = schema
    inlined = without_refs(schema, ctx)
    ctx.root = inlined
    return _node(inlined, ctx, (), profile)


def _node(schema: Any, ctx: Context, path: Path, profile: Profile) -> Schema:
    kind = simple_leaf(schema)
    if kind is not None:
        return strict_leaf(schema, kind, ctx, path)
    if schema is False:
        ctx.fail(path, "false", "strict mode has no schema that admits no value")
    if path and (not isinstance(schema, Mapping) or is_free_form(schema, ctx.root)):
        ctx.note(path, "type", "rewritten", "a free-form value travels as a JSON string")
        return json_string_schema(schema if isinstance(schema, Mapping) else {})
    out: Schema = {}
    moved: dict[str, Any] = {}
    for key, value in open_tuple(schema).items():
        here = child(path, key)
        if key == "properties":
            out[key] = {k: _node(v, ctx, child(here, k), profile) for k, v in value.items()}
        elif key == "items" and isinstance(value, Mapping | bool):
            out[key] = _node(value, ctx, here, profile)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            name = "allOf" if key == "allOf" else "anyOf"
            if key == "oneOf":
                ctx.note(path, key, "rewritten", "oneOf became anyOf")
            out[name] = [_node(v, ctx, child(here, i), profile) for i, v in enumerate(value)]
        elif key == "const":
            ctx.note(path, key, "rewritten", "const became a one-value enum")
            out["enum"] = [value]
        elif key == "additionalProperties" or key in ANNOTATIONS:
            continue
        elif key in profile.keep and _fits(key, value, profile):
            out[key] = value
        else:
            ctx.note(path, key, "moved_to_description", f"{ctx.provider} strict has no {key}")
            moved[key] = value
    if out.get("type") == "object" or "properties" in out:
        _close(schema, out, ctx, path)
    kind = out.get("type")
    if isinstance(kind, list) and "object" in kind and "properties" not in out:
        ctx.fail(path, "type", "strict mode closes every object, so an object of any keys "
                 "beside other types cannot be expressed; list its properties")  # fmt: skip
    append_description(out, moved)
    return out


def _fits(key: str, value: Any, profile: Profile) -> bool:
    if key == "format":
        return profile.formats is None or value in profile.formats
    if key == "minItems":
        return profile.max_min_items is None or value <= profile.max_min_items
    return True


def _close(schema: Mapping[str, Any], out: Schema, ctx: Context, path: Path) -> None:
    out.setdefault("properties", {})
    extra = schema.get("additionalProperties", False)
    if extra is not False and out["properties"]:
        ctx.fail(path, "additionalProperties",
                 "strict mode closes every object, so keys beyond the listed properties "
                 "cannot be expressed")  # fmt: skip
    if extra is not False:
        ctx.fail(path, "additionalProperties",
                 "strict mode closes every object, so an object that takes keys it does not "
                 "list (**kwargs, additionalProperties) would take no keys at all")  # fmt: skip
    elif "additionalProperties" not in schema and schema.get("properties"):
        ctx.note(path, "additionalProperties", "removed",
                 "the object did not forbid other keys; strict mode closes it")  # fmt: skip
    out["additionalProperties"] = False
