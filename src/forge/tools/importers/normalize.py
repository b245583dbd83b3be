"""Normalise real-world tool definitions into canonical ones (BFCL, Java/JS type names).

Definitions found in the wild (the Berkeley Function Calling Leaderboard,
hand-written OpenAPI-ish JSON) use types JSON Schema does not have (``dict``,
``float``, ``tuple``, ``any``, ``String``, ``HashMap``, ``long``...), a
non-standard ``optional`` flag, defaults and enums of the wrong type and
names with dots. `normalize_definition` fixes what has one clear meaning,
records one warning per change, and rejects the rest with the reason.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from forge.core.errors import ToolDefinitionError
from forge.core.logging import get_logger
from forge.core.text import article, shown
from forge.tools.formats.names import NameMap

__all__ = ["TYPE_ALIASES", "NormalizedDefinition", "normalize_definition", "normalize_schema"]

logger = get_logger("tools.importers")

#: Non-standard type names and their JSON Schema type (``None``: any value).
TYPE_ALIASES: dict[str, str | None] = {
    "dict": "object", "HashMap": "object", "Map": "object", "map": "object",
    "Object": "object", "float": "number", "double": "number", "Double": "number",
    "Float": "number", "long": "integer", "Long": "integer", "int": "integer",
    "Integer": "integer", "short": "integer", "byte": "integer", "String": "string",
    "str": "string", "char": "string", "Boolean": "boolean", "bool": "boolean",
    "tuple": "array", "list": "array", "Array": "array", "ArrayList": "array",
    "List": "array", "any": None, "Any": None, "": None,
}  # fmt: skip
JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),),
}  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class NormalizedDefinition:
    """A definition ready to become a `Tool` record, and what normalising it changed."""

    name: str
    """A valid tool name (mapped reversibly when the original breaks the rule)."""
    original_name: str
    """The name as it was given."""
    description: str
    """The description, unchanged."""
    parameters: dict[str, Any]
    """A JSON Schema of ``type: object``."""
    warnings: tuple[str, ...] = ()
    """One line per change, each naming where and what."""

    def to_record(self, handler: Any) -> dict[str, Any]:
        """Return a `forge.tools.from_record` mapping running ``handler``."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "handler": handler,
        }


class _Notes:
    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.lines: list[str] = []

    def warn(self, path: str, message: str) -> None:
        self.lines.append(f"{path}: {message}")

    def reject(self, path: str, message: str) -> Exception:
        return ToolDefinitionError(self.tool, f"cannot normalise the definition: {path}: {message}")


def normalize_definition(
    definition: Mapping[str, Any], *, names: NameMap | None = None
) -> NormalizedDefinition:
    """Normalise one ``{name, description, parameters}`` definition.

    Args:
        definition: The definition as found (``parameters`` may also be spelled
            ``input_schema`` or ``inputSchema``).
        names: Where mapped names are kept, so that several definitions never
            collide and calls can be mapped back (one is made if not given).

    Raises:
        ToolDefinitionError: Saying what cannot be normalised and why.
    """
    original = definition.get("name")
    if not isinstance(original, str) or not original:
        raise ToolDefinitionError("<unnamed>", "cannot normalise a definition without a name")
    notes = _Notes(original)
    name = (names if names is not None else NameMap()).add(original)
    if name != original:
        notes.warn("name", f"{original!r} is not a valid tool name; mapped to {name!r}")
    description = definition.get("description")
    if not isinstance(description, str) or not description.strip():
        raise notes.reject("description", "a description (non-empty string) is required")
    raw = next((definition[k] for k in ("parameters", "input_schema", "inputSchema")
                if k in definition), {"type": "object", "properties": {}})  # fmt: skip
    parameters = _root(raw, notes)
    for line in notes.lines:
        logger.warning("normalised %s: %s", original, line)
    return NormalizedDefinition(
        name=name, original_name=original, description=description,
        parameters=parameters, warnings=tuple(notes.lines),
    )  # fmt: skip


def normalize_schema(schema: Any, tool: str = "<schema>") -> tuple[dict[str, Any], list[str]]:
    """Normalise one parameters schema; return it and the warnings.

    Raises:
        ToolDefinitionError: Saying what cannot be normalised and why.
    """
    notes = _Notes(tool)
    return _root(schema, notes), notes.lines


def _root(schema: Any, notes: _Notes) -> dict[str, Any]:
    if not isinstance(schema, Mapping):
        raise notes.reject("parameters", f"must be a JSON object, got {type(schema).__name__}")
    try:
        out = _node(copy.deepcopy(dict(schema)), "parameters", notes)
    except RecursionError:
        raise notes.reject("parameters", "nests too deeply; flatten it") from None
    if "type" not in out and "properties" in out:
        notes.warn("parameters.type", "missing; set to 'object'")
        out["type"] = "object"
    if out.get("type") != "object":
        got = out.get("type")
        raise notes.reject("parameters.type", f"the parameters must be an object, got {shown(got)}")
    out.setdefault("properties", {})
    from forge.tools.schema import check_json_schema

    rewrites: list[str] = []
    checked = check_json_schema(notes.tool, out, rewrites)
    notes.lines.extend(rewrites)
    return checked


def _node(node: Any, path: str, notes: _Notes) -> dict[str, Any]:
    if not isinstance(node, dict):
        raise notes.reject(path, f"a schema must be a JSON object, got {shown(node)}")
    if "type" in node:
        _type(node, path, notes)
    if "properties" in node:
        _object(node, path, notes)
    items = node.get("items")
    if isinstance(items, list):
        notes.warn(f"{path}.items", "a list of item schemas became prefixItems")
        node["prefixItems"] = [_node(s, f"{path}.items[{i}]", notes) for i, s in enumerate(items)]
        del node["items"]
    elif items is not None:
        node["items"] = _node(items, f"{path}.items", notes)
    if isinstance(node.get("additionalProperties"), dict):
        node["additionalProperties"] = _node(node["additionalProperties"],
                                             f"{path}.additionalProperties", notes)  # fmt: skip
    if "enum" in node:
        _enum(node, path, notes)
    if "default" in node:
        _default(node, path, notes)
    if "optional" in node:
        notes.warn(
            f"{path}.optional", f"non-standard 'optional': {shown(node['optional'])} removed"
        )
        del node["optional"]
    return node


def _type(node: dict[str, Any], path: str, notes: _Notes) -> None:
    kinds = node["type"]
    listed = kinds if isinstance(kinds, list) else [kinds]
    mapped: list[str] = []
    for kind in listed:
        if not isinstance(kind, str):
            raise notes.reject(f"{path}.type", f"a type must be a string, got {shown(kind)}")
        if kind in JSON_TYPES:
            mapped.append(kind)
        elif kind in TYPE_ALIASES:
            target = TYPE_ALIASES[kind]
            notes.warn(f"{path}.type", f"{shown(kind)} -> {target or 'any value'!r}")
            if target is None:
                del node["type"]
                return
            mapped.append(target)
        else:
            known = ", ".join(sorted(JSON_TYPES | set(TYPE_ALIASES) - {""}))
            raise notes.reject(f"{path}.type", f"unknown type {shown(kind)}; known: {known}")
    node["type"] = mapped if isinstance(kinds, list) else mapped[0]


def _object(node: dict[str, Any], path: str, notes: _Notes) -> None:
    props = node["properties"]
    if not isinstance(props, dict):
        raise notes.reject(f"{path}.properties", "must map names to schemas")
    required = node.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise notes.reject(f"{path}.required", f"must be a list of names, got {shown(required)}")
    for key, sub in props.items():
        if isinstance(sub, dict) and _truthy(sub.get("optional")) and key in required:
            notes.warn(f"{path}.required", f"{shown(key)} is marked optional; no longer required")
            required = [r for r in required if r != key]
        props[key] = _node(sub, f"{path}.properties.{key}", notes)
    kept = [r for r in dict.fromkeys(required) if r in props]
    for gone in [r for r in required if r not in props]:
        notes.warn(f"{path}.required", f"{shown(gone)} is not a property; removed from required")
    if "required" in node or kept:
        node["required"] = kept


def _truthy(flag: Any) -> bool:
    return flag is True or (isinstance(flag, str) and flag.strip().lower() in ("true", "yes"))


def _matches(value: Any, kind: Any) -> bool:
    kinds = kind if isinstance(kind, list) else [kind]
    for k in kinds:
        types = _PY_TYPES.get(k, ())
        if isinstance(value, bool) and k in ("integer", "number"):
            continue
        if isinstance(value, types):
            return True
    return False


def _coerce(value: Any, kind: Any) -> tuple[bool, Any]:
    if not isinstance(value, str) or not isinstance(kind, str):
        return False, value
    text = value.strip()
    try:
        if kind == "integer":
            return True, int(text)
        if kind == "number":
            return True, float(text)
    except ValueError:
        return False, value
    if kind == "boolean" and text.lower() in ("true", "false"):
        return True, text.lower() == "true"
    return False, value


def _enum(node: dict[str, Any], path: str, notes: _Notes) -> None:
    values, kind = node["enum"], node.get("type")
    if not isinstance(values, list) or not values:
        raise notes.reject(f"{path}.enum", f"must be a non-empty list, got {shown(values)}")
    if kind is None or all(_matches(v, kind) for v in values):
        return
    if kind == "array":
        notes.warn(f"{path}.enum", "an enum on an array moved to its items")
        items = node.setdefault("items", {})
        items["enum"] = node.pop("enum")
        _enum(items, f"{path}.items", notes)
        return
    converted = [v if _matches(v, kind) else _coerce(v, kind)[1] for v in values]
    leftovers = [v for v in converted if not _matches(v, kind)]
    if len(leftovers) < len(values) and converted != values:
        notes.warn(
            f"{path}.enum", f"values that spell {article(kind)} were converted: {shown(converted)}"
        )
        node["enum"] = converted
    if not leftovers:
        return
    if all(isinstance(v, str) for v in leftovers) and isinstance(kind, str):
        widened = "string" if len(leftovers) == len(values) else [kind, "string"]
        notes.warn(
            f"{path}.type",
            f"{shown(kind)} -> {shown(widened)} to admit the enum {shown(leftovers)}",
        )
        node["type"] = widened
    else:
        notes.warn(f"{path}.type", f"{shown(kind)} removed: the enum {shown(values)} mixes types")
        del node["type"]


def _default(node: dict[str, Any], path: str, notes: _Notes) -> None:
    value, kind = node["default"], node.get("type")
    enum = node.get("enum")
    if isinstance(enum, list) and value not in enum and (kind is None or _matches(value, kind)):
        notes.warn(f"{path}.enum", f"the default {shown(value)} was added to the enum")
        node["enum"] = [*enum, value]
    if kind is None or _matches(value, kind):
        return
    if value is None:
        notes.warn(f"{path}.type", f"{shown(kind)} also allows null: the default is null")
        node["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
        if "enum" in node and None not in node["enum"]:
            node["enum"] = [*node["enum"], None]
        return
    ok, coerced = _coerce(value, kind)
    if ok:
        notes.warn(f"{path}.default", f"{shown(value)} converted to {shown(coerced)}")
        node["default"] = coerced
        return
    if isinstance(value, str) and kind in ("integer", "number", "boolean"):
        notes.warn(
            f"{path}.type",
            f"{shown(kind)} -> [{shown(kind)}, 'string'] to admit the default {shown(value)}",
        )
        node["type"] = [kind, "string"]
        if isinstance(enum, list) and value not in enum:
            node["enum"] = [*enum, value]
        return
    notes.warn(f"{path}.default", f"{shown(value)} is not of type {kind}; removed")
    del node["default"]
