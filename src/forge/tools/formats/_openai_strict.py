"""OpenAI strict mode (Structured Outputs) schema compiler.

Every object is closed and lists every property as required; a property that
was optional becomes nullable, and `forge.tools.formats.strict_arguments`
turns the model's ``null`` back into "not given" so the Python default applies.
Keywords outside the strict subset move into the description; what cannot be
said at all (``allOf`` of several schemas, an object with both listed and open
keys) fails with `SchemaConversionError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from forge.tools.formats._schema import (
    ANNOTATIONS,
    Context,
    Path,
    Schema,
    accepts_null,
    append_description,
    child,
    inline_refs,
    is_free_form,
    json_size,
    json_string_schema,
    open_tuple,
    resolve,
    simple_leaf,
    strict_leaf,
)
from forge.tools.formats._simple import UNKNOWN, openai_strict_simple
from forge.tools.formats.limits import OPENAI_STRICT

__all__ = ["compile_openai_strict"]

FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4",
                     "ipv6", "uuid"})  # fmt: skip
KEEP = frozenset({"type", "description", "properties", "required", "additionalProperties",
                  "items", "enum", "anyOf", "$ref", "pattern", "format", "multipleOf", "maximum",
                  "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems",
                  "minLength", "maxLength"})  # fmt: skip
LOOKAROUND = re.compile(r"\(\?<?[=!]|\\[1-9]")


def compile_openai_strict(schema: Mapping[str, Any], ctx: Context, table: Any = UNKNOWN) -> Schema:
    """Return the strict-mode form of a parameters schema (root ``type: object``).

    ``table`` is the schema's parameter table when the caller has it (a compiled tool keeps it).
    """
    simple = openai_strict_simple(schema, ctx, table)
    return simple if simple is not None else compile_openai_strict_general(schema, ctx)


def compile_openai_strict_general(schema: Mapping[str, Any], ctx: Context) -> Schema:
    """`compile_openai_strict` without the one-pass path for simple schemas."""
    ctx.root = schema
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    body = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    out = _node(body, ctx, ())
    if out.get("type") != "object":
        ctx.fail((), "type", "the root of a strict schema must be an object")
    if defs:
        out["$defs"] = {k: _node(v, ctx, ("$defs", k)) for k, v in defs.items()}
    _check_sizes(out, ctx)
    return out


def _node(schema: Any, ctx: Context, path: Path) -> Schema:
    ctx.visited += 1
    kind = simple_leaf(schema)
    if kind is not None:
        return strict_leaf(schema, kind, ctx, path)
    if schema is False:
        ctx.fail(path, "false", "strict mode has no schema that admits no value")
    if not isinstance(schema, Mapping) or is_free_form(schema, ctx.root):
        if path:  # the root stays an object (closed below)
            ctx.note(path, "type", "rewritten", "a free-form value travels as a JSON string")
            return json_string_schema(schema if isinstance(schema, Mapping) else {})
        schema = {"type": "object", **(schema if isinstance(schema, Mapping) else {})}
    if "$ref" in schema:
        return _ref(schema, ctx, path)
    schema = open_tuple(_flatten_all_of(schema, ctx, path))
    out: Schema = {}
    moved: dict[str, Any] = {}
    for key, value in schema.items():
        _keyword(key, value, schema, out, moved=moved, ctx=ctx, path=path)
    if out.get("type") == "object" or "properties" in out:
        _close(schema, out, ctx, path)
    kind = out.get("type")
    if isinstance(kind, list) and "object" in kind and "properties" not in out:
        ctx.fail(path, "type", "strict mode closes every object, so an object of any keys "
                 "beside other types cannot be expressed; list its properties")  # fmt: skip
    if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and "items" not in out:
        ctx.note(path, "items", "added", "untyped array items travel as JSON strings")
        out["items"] = json_string_schema({})
    if not out.keys() & {"type", "anyOf", "enum"}:
        ctx.fail(path, next(iter(moved), "type"), "strict mode needs a type, and nothing "
                 "it can express is left of this schema")  # fmt: skip
    append_description(out, moved)
    return out


def _keyword(
    key: str, value: Any, schema: Mapping[str, Any], out: Schema, *,
    moved: dict[str, Any], ctx: Context, path: Path,
) -> None:  # fmt: skip
    here = child(path, key)
    if key == "properties":
        out[key] = {k: _node(v, ctx, child(here, k)) for k, v in value.items()}
    elif key == "items" and isinstance(value, Mapping | bool):
        out[key] = _node(value, ctx, here)
    elif key in ("anyOf", "oneOf"):
        if key == "oneOf":
            ctx.note(path, key, "rewritten", "oneOf became anyOf (strict mode has no oneOf)")
        out["anyOf"] = [_node(v, ctx, child(here, i)) for i, v in enumerate(value)]
    elif key == "const":
        ctx.note(path, key, "rewritten", "const became a one-value enum")
        out["enum"] = [value]
    elif key == "prefixItems" and "items" not in schema:
        _tuple(value, out, ctx, path)
    elif key in ("required", "additionalProperties") or key in ANNOTATIONS:
        return
    elif key in KEEP and _supported(key, value):
        out[key] = value
        if key == "enum":
            ctx.enum_values += len(value)
    else:
        ctx.note(path, key, "moved_to_description", f"{ctx.provider} strict has no {key}")
        moved[key] = value


def _supported(key: str, value: Any) -> bool:
    if key == "format":
        return value in FORMATS
    if key == "pattern":
        return isinstance(value, str) and not LOOKAROUND.search(value)
    return True


def _ref(schema: Mapping[str, Any], ctx: Context, path: Path) -> Schema:
    ref = schema["$ref"]
    if isinstance(ref, str) and ref.startswith("#/definitions/"):
        ref = "#/$defs/" + ref[len("#/definitions/") :]
    elif not (ref == "#" or (isinstance(ref, str) and ref.startswith("#/$defs/"))):
        return _node(inline_refs(schema, ctx, path), ctx, path)
    try:
        resolve(ctx.root, schema["$ref"])
    except LookupError as exc:
        ctx.fail(path, "$ref", str(exc))
    if _only_refers_to_itself(schema["$ref"], ctx.root):
        ctx.fail(path, "$ref", f"the reference {ref!r} leads only to references, back to "
                 "itself, never to a schema; give one of them a type")  # fmt: skip
    siblings = {k: v for k, v in schema.items() if k != "$ref" and k not in ANNOTATIONS}
    if not siblings:
        return {"$ref": ref}
    if siblings.keys() <= {"description", "default"}:
        ctx.note(path, "$ref", "rewritten", "a $ref with sibling keywords was wrapped in anyOf")
        out: Schema = {"anyOf": [{"$ref": ref}]}
        if "description" in siblings:
            out["description"] = siblings["description"]
        if "default" in siblings:
            ctx.note(path, "default", "moved_to_description",
                     f"{ctx.provider} strict has no default")  # fmt: skip
            append_description(out, {"default": siblings["default"]})
        return out
    return _node(_merge_ref(schema["$ref"], siblings, ctx, path), ctx, path)


def _merge_ref(ref: str, siblings: Mapping[str, Any], ctx: Context, path: Path) -> Schema:
    """The target of ``ref`` and the keywords beside it, as one schema (both must hold)."""
    try:
        target = resolve(ctx.root, ref)
    except LookupError as exc:
        ctx.fail(path, "$ref", str(exc))
    if not isinstance(target, Mapping):
        ctx.fail(path, "$ref", f"the reference {ref!r} is not an object schema")
    body = {k: v for k, v in target.items() if k not in ("$defs", "definitions")}
    for key, value in siblings.items():
        if key in body and body[key] != value and key not in ("description", "default"):
            ctx.fail(path, "$ref", f"the keywords beside the reference {ref!r} and its target "
                     f"disagree on {key!r}; strict mode has no allOf to keep both")  # fmt: skip
    ctx.grow(path, json_size(body))  # compiled again here, so it counts as built again
    ctx.note(path, "$ref", "inlined", f"inlined {ref} to merge the keywords beside it")
    return {**body, **siblings}


def _flatten_all_of(schema: Mapping[str, Any], ctx: Context, path: Path) -> Mapping[str, Any]:
    parts = schema.get("allOf")
    if parts is None:
        return schema
    if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], Mapping):
        ctx.note(path, "allOf", "rewritten", "a one-schema allOf was merged into its parent")
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        return {**parts[0], **rest}
    return ctx.fail(path, "allOf", "strict mode has no allOf, and these schemas cannot be merged")


def _tuple(items: list[Any], out: Schema, ctx: Context, path: Path) -> None:
    ctx.note(path, "prefixItems", "rewritten", "tuple positions became one item type + length")
    compiled = [_node(v, ctx, child(path, "prefixItems", i)) for i, v in enumerate(items)]
    unique = [c for i, c in enumerate(compiled) if c not in compiled[:i]]
    out["items"] = unique[0] if len(unique) == 1 else {"anyOf": unique}
    out["minItems"] = out["maxItems"] = len(items)


def _close(schema: Mapping[str, Any], out: Schema, ctx: Context, path: Path) -> None:
    props: Schema = out.setdefault("properties", {})
    extra = schema.get("additionalProperties", False)
    if extra is not False and props:
        ctx.fail(
            path,
            "additionalProperties",
            "strict mode closes every object, so keys beyond the listed properties cannot "
            "be expressed; list them or make the value a separate dict parameter",
        )
    if extra is not False:
        ctx.fail(path, "additionalProperties",
                 "strict mode closes every object, so an object that takes keys it does not "
                 "list (**kwargs, additionalProperties) would take no keys at all")  # fmt: skip
    elif "additionalProperties" not in schema and schema.get("properties"):
        ctx.note(path, "additionalProperties", "removed",
                 "the object did not forbid other keys; strict mode closes it")  # fmt: skip
    required = set(schema.get("required", ()))
    canonical = schema.get("properties", {})
    for name, prop in props.items():
        original = canonical.get(name, {})
        if name in required:
            continue
        if accepts_null(original, ctx.root):
            _null_default(original, ctx, child(path, "properties", name))
        else:
            ctx.note(child(path, "properties", name), "required", "rewritten",
                     "optional became required and nullable; null means 'not given'")  # fmt: skip
            props[name] = nullable(prop)
    out["required"] = list(props)
    out["additionalProperties"] = False


def _null_default(schema: Any, ctx: Context, path: Path) -> None:
    if isinstance(schema, Mapping) and schema.get("default") is not None:
        ctx.note(path, "default", "note",
                 "this optional parameter already accepts null, so in strict mode the model's "
                 "null reaches the handler instead of the default; make the default None "
                 "or the type non-nullable to keep the default")  # fmt: skip


def nullable(schema: Schema) -> Schema:
    """Return ``schema`` also accepting ``null``."""
    out = dict(schema)
    kind = out.get("type")
    if "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    elif isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list):
        out["type"] = [*kind, "null"]
    elif "$ref" in out:
        return {"anyOf": [{"$ref": out["$ref"]}, {"type": "null"}]}
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _check_sizes(schema: Schema, ctx: Context) -> None:
    limits = OPENAI_STRICT
    if ctx.visited <= limits.max_depth and ctx.enum_values <= min(
        limits.max_enum_values, limits.large_enum
    ):
        return  # too few nodes and values to break any size limit
    counts = {"properties": 0, "enum": 0, "depth": 0, "chars": 0, "big_enum": 0}
    _measure(schema, counts, 0, limits.large_enum)
    checks = (
        ("properties", counts["depth"], limits.max_depth,
         f"objects nest {counts['depth']} levels; the limit is {limits.max_depth}"),
        ("properties", counts["properties"], limits.max_properties,
         f"{counts['properties']} properties; the limit is {limits.max_properties}"),
        ("enum", counts["enum"], limits.max_enum_values,
         f"{counts['enum']} enum values; the limit is {limits.max_enum_values}"),
        ("enum", counts["big_enum"], limits.max_enum_chars,
         f"a string enum of over {limits.large_enum} values has {counts['big_enum']} "
         f"characters; the limit is {limits.max_enum_chars}"),
        ("properties", counts["chars"], limits.max_schema_chars,
         f"names and enum values total {counts['chars']} characters; "
         f"the limit is {limits.max_schema_chars}"),
    )  # fmt: skip
    for keyword, found, limit, reason in checks:
        if found > limit:
            ctx.fail((), keyword, reason)


def _measure(node: Any, counts: dict[str, int], depth: int, large_enum: int) -> None:
    if isinstance(node, list):
        for item in node:
            _measure(item, counts, depth, large_enum)
        return
    if not isinstance(node, dict):
        return
    if "properties" in node:
        depth += 1
        counts["depth"] = max(counts["depth"], depth)
        counts["properties"] += len(node["properties"])
        counts["chars"] += sum(len(name) for name in node["properties"])
    values = node.get("enum", ())
    counts["enum"] += len(values)
    size = sum(len(v) if isinstance(v, str) else len(str(v)) for v in values)
    counts["chars"] += size
    if len(values) > large_enum and all(isinstance(v, str) for v in values):
        counts["big_enum"] = max(counts["big_enum"], size)
    counts["chars"] += sum(len(name) for name in node.get("$defs", {}))
    for key in ("properties", "$defs"):
        for sub in node.get(key, {}).values():
            _measure(sub, counts, depth, large_enum)
    for key in ("items", "anyOf"):
        if key in node:
            _measure(node[key], counts, depth, large_enum)


def _only_refers_to_itself(ref: str, root: Mapping[str, Any]) -> bool:
    """Whether following ``ref`` through schemas that are only a ``$ref`` comes back round."""
    seen: set[str] = set()
    while ref not in seen:
        seen.add(ref)
        try:
            target = resolve(root, ref)
        except LookupError:
            return False
        if not isinstance(target, Mapping) or not isinstance(target.get("$ref"), str):
            return False
        if any(k != "$ref" and k not in ANNOTATIONS for k in target):
            return False
        ref = target["$ref"]
    return True
