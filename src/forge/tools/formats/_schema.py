"""Helpers shared by the provider schema compilers: context, references, free-form values."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NoReturn

from forge.core.errors import SchemaConversionError
from forge.tools.formats.limits import MAX_BUILT_SCHEMA
from forge.tools.formats.report import ChangeAction, ConversionReport, Errors, SchemaChange
from forge.tools.schema import PRIMITIVES
from forge.tools.values.readonly import DICTS

Schema = dict[str, Any]
#: A location in a schema, as the keys and indexes leading to it.
Path = tuple[str | int, ...]

#: Keywords whose value is a map of name -> subschema.
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
#: Keywords whose value is a list of subschemas.
SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
#: Keywords whose value is one subschema.
SCHEMA_ONE = (
    "items", "additionalProperties", "not", "if", "then", "else", "contains",
    "propertyNames", "unevaluatedProperties", "unevaluatedItems",
)  # fmt: skip
#: Keywords that only annotate (safe to drop for a provider that does not take them).
ANNOTATIONS = ("title", "$schema", "$id", "$comment", "examples", "readOnly", "writeOnly",
               "deprecated", "$anchor", "contentMediaType", "contentEncoding")  # fmt: skip

#: Keys of the commonest leaf schema (``{"type": "string", "description": ...}``).
LEAF_KEYS = frozenset({"type", "description", "default", "title"})

JSON_STRING_NOTE = "A JSON value, encoded as a string."


_NO_ROOT: Mapping[str, Any] = MappingProxyType({})


class Context:
    """The state of one conversion: who, for whom, and what changed."""

    __slots__ = (
        "built", "changes", "enum_values", "errors", "provider", "root", "strict", "tool",
        "visited",
    )  # fmt: skip

    def __init__(self, tool: str, provider: str, strict: bool, errors: Errors = "report") -> None:
        self.tool = tool
        self.provider = provider
        self.strict = strict
        self.errors: Errors = errors
        """``report``: shorten or fall back and say so; ``raise``: fail instead."""
        self.root: Mapping[str, Any] = _NO_ROOT
        """The schema being compiled (references resolve against it)."""
        self.changes: list[SchemaChange] = []
        self.visited = 0
        """How many schema nodes a compiler walked (a cheap bound on sizes)."""
        self.enum_values = 0
        """How many enum values a compiler kept."""
        self.built = 0
        """The size (characters, about) of what inlining built so far, and of the report."""

    def note(self, path: Path, keyword: str, action: ChangeAction, detail: str) -> None:
        """Record a change (its line counts as built: see `grow`)."""
        where = pointer(path)
        self.built += len(where) + len(detail)
        self.changes.append(SchemaChange(path=where, keyword=keyword, action=action, detail=detail))

    def grow(self, path: Path, size: int) -> None:
        """Count ``size`` more characters built; past `MAX_BUILT_SCHEMA`, fail.

        Every walk that builds a schema out of references (where definitions that
        refer to each other twice over grow exponentially) counts here, so one
        tool's schema never costs more than this bound, whatever it refers to.
        """
        self.built += size
        if self.built > MAX_BUILT_SCHEMA:
            self.fail(
                path, "$ref",
                f"inlining every reference would build a schema of over {MAX_BUILT_SCHEMA:,} "
                "characters (the definitions refer to each other over and over); keep the "
                "references, or define the repeated parts once",
            )  # fmt: skip

    def fail(self, path: Path, keyword: str, reason: str) -> NoReturn:
        """Raise `SchemaConversionError` naming the tool, keyword and provider."""
        raise SchemaConversionError(
            self.tool, provider=self.provider, keyword=keyword, path=pointer(path), reason=reason
        )

    def report(self) -> ConversionReport:
        """Return the report of this conversion."""
        if not self.changes:
            return _unchanged(self.tool, self.provider, self.strict)
        return ConversionReport(
            tool=self.tool, provider=self.provider, strict=self.strict,
            changes=tuple(self.changes),
        )  # fmt: skip


@functools.lru_cache(maxsize=16384)
def _unchanged(tool: str, provider: str, strict: bool) -> ConversionReport:
    """The (immutable, hence shared) report of a conversion that changed nothing."""
    return ConversionReport(tool=tool, provider=provider, strict=strict)


def simple_leaf(schema: Any) -> str | None:
    """The primitive type of a leaf with only type/description/default/title, else ``None``."""
    if type(schema) in DICTS:
        kind = schema.get("type")
        if type(kind) is str and kind in PRIMITIVES and schema.keys() <= LEAF_KEYS:
            return kind
    return None


def strict_leaf(schema: Mapping[str, Any], kind: str, ctx: Context, path: Path) -> Schema:
    """Compile a simple leaf for a strict mode: the default moves into the description."""
    out: Schema = {"type": kind}
    if "description" in schema:
        out["description"] = schema["description"]
    if "default" in schema:
        ctx.note(path, "default", "moved_to_description", f"{ctx.provider} strict has no default")
        append_description(out, {"default": schema["default"]})
    return out


def open_tuple(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` without ``items: false`` after ``prefixItems`` (the compilers pin the length)."""
    if schema.get("items") is False and "prefixItems" in schema:
        return {k: v for k, v in schema.items() if k != "items"}
    return schema


def child(path: Path, *parts: str | int) -> Path:
    """Return the path one or more steps below ``path``."""
    return path + parts


def pointer(path: Path) -> str:
    """Return ``path`` as a JSON pointer (``""`` for the root)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def resolve(root: Mapping[str, Any], ref: str) -> Any:
    """Return the schema a local ``$ref`` points at, or raise `LookupError`."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        raise LookupError(f"only local references ('#/...') are supported, got {ref!r}")
    node: Any = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise LookupError(f"the reference {ref!r} points at nothing")
    return node


def has_ref(node: Any) -> bool:
    """Whether ``node`` may hold a ``$ref`` (a quick text scan; false positives are harmless)."""
    try:
        return '"$ref"' in json.dumps(node, default=str)
    except (TypeError, ValueError):
        return True


def without_refs(schema: Mapping[str, Any], ctx: Context) -> Any:
    """Return ``schema`` with references inlined and definitions dropped (fast if none)."""
    if has_ref(schema):
        return inline_refs(schema, ctx)
    if "$defs" in schema or "definitions" in schema:
        return {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    return schema


def inline_refs(schema: Any, ctx: Context, path: Path = (), stack: tuple[str, ...] = ()) -> Any:
    """Return ``schema`` with every local ``$ref`` replaced by its target.

    A recursive reference cannot be inlined and fails with the reference named.
    ``$defs`` and ``definitions`` are dropped once everything is inlined.
    """
    if isinstance(schema, list):
        return [inline_refs(s, ctx, child(path, i), stack) for i, s in enumerate(schema)]
    if not isinstance(schema, Mapping):
        return schema
    if "$ref" in schema and isinstance(schema["$ref"], str):
        ref = schema["$ref"]
        if ref in stack:
            ctx.fail(path, "$ref", f"the schema is recursive through {ref!r}; "
                     f"{ctx.provider} needs every reference inlined, which never ends")  # fmt: skip
        try:
            target = resolve(ctx.root, ref)
        except LookupError as exc:
            ctx.fail(path, "$ref", str(exc))
        ctx.note(path, "$ref", "inlined", f"inlined {ref}")
        merged = {k: v for k, v in schema.items() if k != "$ref"}
        body = inline_refs(target, ctx, path, (*stack, ref))
        if isinstance(body, dict):
            body = {k: v for k, v in body.items() if k not in ("$defs", "definitions")}
            for key, value in merged.items():
                ctx.grow(path, len(key) + 4 + _leaf_size(key, value))
            return {**body, **{k: _inline_value(k, v, ctx, child(path, k), stack)
                               for k, v in merged.items()}}  # fmt: skip
        return body
    out: Schema = {}
    ctx.grow(path, 2)
    for key, value in schema.items():
        if key in ("$defs", "definitions"):
            continue
        ctx.grow(path, len(key) + 4 + _leaf_size(key, value))
        out[key] = _inline_value(key, value, ctx, child(path, key), stack)
    return out


def _leaf_size(key: str, value: Any) -> int:
    """The characters of JSON ``value`` adds, not counting the subschemas in it."""
    if key in SCHEMA_MAPS and isinstance(value, Mapping):
        return sum(len(str(k)) + 4 for k in value)
    if key in SCHEMA_LISTS or key in SCHEMA_ONE:
        return len(value) + 2 if isinstance(value, list) else 0
    if isinstance(value, str):
        return len(value) + 2
    if value is None or isinstance(value, bool | int | float):
        return 5
    return json_size(value)


def json_size(value: Any) -> int:
    """The length of ``value`` as JSON (of its text where JSON cannot hold it)."""
    try:
        return len(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return len(str(value))


def _inline_value(key: str, value: Any, ctx: Context, path: Path, stack: tuple[str, ...]) -> Any:
    if key in SCHEMA_MAPS and isinstance(value, Mapping):
        return {k: inline_refs(v, ctx, child(path, k), stack) for k, v in value.items()}
    if key in SCHEMA_LISTS or key in SCHEMA_ONE:
        return inline_refs(value, ctx, path, stack)
    return value


def accepts_null(schema: Any, root: Mapping[str, Any]) -> bool:
    """Return whether ``null`` is (obviously) a valid value for ``schema``.

    Each reference is followed once (its answer is remembered), so definitions that
    refer to each other over and over cost one look each.
    """
    return _accepts_null(schema, root, {})


def _accepts_null(schema: Any, root: Mapping[str, Any], known: dict[str, bool]) -> bool:
    if schema is True or (isinstance(schema, Mapping) and not _constrains(schema)):
        return True
    if not isinstance(schema, Mapping):
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref not in known:
            known[ref] = False  # while it is being looked at: a cycle adds nothing
            with contextlib.suppress(LookupError):
                known[ref] = _accepts_null(resolve(root, ref), root, known)
        return known[ref]
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return "enum" not in schema or None in schema["enum"]
    if "const" in schema:
        return schema["const"] is None
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        return any(_accepts_null(b, root, known) for b in branches)
    return kind is None and "enum" in schema and None in schema["enum"]


def _constrains(schema: Mapping[str, Any]) -> bool:
    return any(k not in ANNOTATIONS and k not in ("description", "default") for k in schema)


def is_free_form(schema: Any, root: Mapping[str, Any]) -> bool:
    """Whether a closed-object (strict) format must carry this value as a JSON string.

    True for an untyped value (``{}``, BFCL's ``any``) and for an object whose
    keys are not listed (``dict``, ``dict[str, int]``): strict modes close every
    object, which would only admit ``{}``.
    """
    seen: set[str] = set()
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen:  # a cycle of references that never reaches a schema
            return False
        seen.add(ref)
        try:
            schema = resolve(root, ref)
        except LookupError:
            return False
    if schema is True:
        return True
    if not isinstance(schema, Mapping):
        return False
    if not _typed(schema):
        return True
    return (
        _object_or_null(schema.get("type"))
        and not schema.get("properties")
        and schema.get("additionalProperties", True) is not False
    )


def _object_or_null(kind: Any) -> bool:
    """Whether ``kind`` is ``"object"``, or a type list of ``"object"`` and ``"null"``."""
    if isinstance(kind, list):
        return "object" in kind and set(kind) <= {"object", "null"}
    return bool(kind == "object")


def _typed(schema: Mapping[str, Any]) -> bool:
    return any(k in schema for k in ("type", "anyOf", "oneOf", "allOf", "enum", "const",
                                     "properties", "items", "$ref", "not"))  # fmt: skip


def json_string_schema(schema: Mapping[str, Any]) -> Schema:
    """Return the schema of a free-form value carried as a JSON-encoded string."""
    shown = {k: v for k, v in schema.items() if k not in ("description", *ANNOTATIONS)}
    text = schema.get("description", "")
    hint = JSON_STRING_NOTE
    if shown:
        hint += f" Schema: {json.dumps(shown, sort_keys=True, default=str)}"
    kind = schema.get("type")
    string: Any = ["string", "null"] if isinstance(kind, list) and "null" in kind else "string"
    return {"type": string, "description": f"{text} ({hint})" if text else hint}


def append_description(schema: Schema, moved: Mapping[str, Any]) -> None:
    """Append keywords that a provider cannot take to the schema's description."""
    if not moved:
        return
    parts = ", ".join(f"{k}: {json.dumps(v, default=str)}" for k, v in moved.items())
    text = schema.get("description")
    schema["description"] = f"{text} ({parts})" if text else f"({parts})"
