"""The parameter table of a flat parameters schema, read once when a tool compiles.

Most tools take a flat object whose properties are primitive leaves, lists of
a primitive, or ``Optional[...]`` of one of those (``anyOf: [X, {"type": "null"}]``).
`analyse` reads such a schema into a `Table`: per property, its shape, types
and default, everything the provider compilers (Gemini, the strict modes)
would otherwise re-derive on every conversion. Any other schema gives ``None``
and the compilers take their general walk. The table only describes the
schema; it never changes it.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any, Final, NamedTuple

from forge.tools.values.readonly import DICTS, LISTS

__all__ = ["ARRAY", "LEAF", "OPTIONAL", "PRIMITIVES", "Row", "Table", "analyse", "dump_default"]

PRIMITIVES: Final = frozenset({"string", "integer", "number", "boolean", "null"})
LEAF: Final = 0
"""``{"type": P, ...}`` with P primitive."""
ARRAY: Final = 1
"""``{"type": "array", "items": {"type": P}, ...}``."""
OPTIONAL: Final = 2
"""``{"anyOf": [X, {"type": "null"}], ...}`` with X a bare leaf or array."""

MAX_PROPERTIES: Final = 5000
"""OpenAI strict's limit; wider schemas take the compilers' general walks."""

_ROOT_KEYS = frozenset({"type", "properties", "required", "additionalProperties",
                        "description", "title"})  # fmt: skip
_LEAF_KEYS = frozenset({"type", "description", "default", "title"})
_ARRAY_KEYS = frozenset({"type", "items", "description", "default", "title"})
_OPTIONAL_KEYS = frozenset({"anyOf", "default", "description", "title"})
_NULL = {"type": "null"}


Row = tuple[str, int, str, str, "str | None", Any, "str | None", "dict[str, Any] | None", str]
"""One property, as a plain tuple (the compilers unpack it in their inner loop):

- ``name``;
- ``shape``: `LEAF`, `ARRAY` or `OPTIONAL`;
- ``kind``: the primitive type, ``"array"``, or for `OPTIONAL` the non-null branch's type;
- ``item``: the items' primitive type of an array value (or non-null branch), else ``""``;
- ``description``: the property's description, ``None`` when it has none;
- ``default``: the property's default (``None`` also when it has none);
- ``with_default``: when the property has a default, the description followed by
  ``(default: <json>)``, else ``None``;
- ``plain``: the property's schema itself when it has neither default nor title, else ``None``;
- ``pointer``: the property's JSON Pointer (``/properties/<escaped name>``).
"""


class Table(NamedTuple):
    """The properties of a simple parameters schema, in schema order."""

    schema: dict[str, Any]
    """The schema the table describes (compilers check identity before using it)."""
    params: tuple[Row, ...]
    description: str | None
    """The root's description, ``None`` when it has none."""
    required: tuple[Any, ...] | None
    """The root's ``required`` list as written (``None`` when it has none)."""
    required_names: frozenset[Any]
    closed: bool
    """Whether the root says ``additionalProperties: false``."""
    closed_first: bool
    """Whether ``additionalProperties`` comes before ``properties`` in the root."""
    plain_names: bool
    """Whether every property name matches ``[A-Za-z_][A-Za-z0-9_]{0,63}`` (Gemini's form)."""


def dump_default(value: Any) -> str:
    """``json.dumps(value, default=str)``, quicker for the usual scalar defaults."""
    kind = type(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is str:
        return encode_basestring_ascii(value)
    if kind is float and value - value == 0.0:
        return float.__repr__(value)
    return json.dumps(value, default=str)


def _leaf_type(schema: Any) -> str | None:
    """``P`` when ``schema`` is exactly ``{"type": P}`` with P primitive, else ``None``."""
    if type(schema) not in DICTS or len(schema) != 1:
        return None
    kind = schema.get("type")
    return kind if type(kind) is str and kind in PRIMITIVES else None


def _bare(schema: Any) -> tuple[str, str | None] | None:
    """``{"type": P}`` or ``{"type": "array", "items": {"type": P}}``: (type, items type)."""
    if type(schema) not in DICTS:
        return None
    size = len(schema)
    kind = schema.get("type")
    if size == 1:
        return (kind, None) if type(kind) is str and kind in PRIMITIVES else None
    if size == 2 and kind == "array":
        item = _leaf_type(schema.get("items"))
        return None if item is None else (kind, item)
    return None


def _shape(prop: Any) -> tuple[int, str, str] | None:
    """(shape, type, items type) of a simple property, else ``None``."""
    if type(prop) not in DICTS:
        return None
    kind = prop.get("type")
    if kind is None:
        branches = prop.get("anyOf")
        if not prop.keys() <= _OPTIONAL_KEYS or type(branches) not in LISTS or len(branches) != 2:
            return None
        null = branches[1]
        if type(null) not in DICTS or null != _NULL:
            return None
        bare = _bare(branches[0])
        return None if bare is None else (OPTIONAL, bare[0], bare[1] or "")
    if type(kind) is not str:
        return None
    if kind == "array":
        item = _leaf_type(prop.get("items"))
        if item is None or not prop.keys() <= _ARRAY_KEYS:
            return None
        return ARRAY, kind, item
    if kind not in PRIMITIVES or not prop.keys() <= _LEAF_KEYS:
        return None
    return LEAF, kind, ""


def analyse(schema: Any) -> Table | None:
    """The parameter table of a simple parameters schema, else ``None``.

    Simple means: ``type: object`` with only properties, required, description,
    title and (``False``) additionalProperties at the root, and every property
    one of the `LEAF`, `ARRAY` or `OPTIONAL` shapes, each with only a
    description, a default and a title besides. A schema with no properties
    must be closed.
    """
    if type(schema) not in DICTS or schema.get("type") != "object":
        return None
    required = schema.get("required", [])
    if not schema.keys() <= _ROOT_KEYS or type(required) not in LISTS:
        return None
    description = schema.get("description")
    if "description" in schema and type(description) is not str:
        return None
    props = schema.get("properties")
    if type(props) not in DICTS or len(props) > MAX_PROPERTIES:
        return None
    if "additionalProperties" in schema:
        if schema["additionalProperties"] is not False:
            return None
    elif not props:
        return None
    try:
        required_names = frozenset(required)
    except TypeError:  # an unhashable entry: not a simple schema
        return None
    params: list[Row] = []
    plain_names = True
    for name, prop in props.items():
        shape = _shape(prop)
        if shape is None or type(name) is not str:
            return None
        text = prop.get("description")
        if type(text) is not str and (text is not None or "description" in prop):
            return None
        if "default" in prop:
            default = prop["default"]
            shown = f"(default: {dump_default(default)})"
            params.append((name, *shape, text, default, f"{text} {shown}" if text else shown,
                           None, _pointer(name)))  # fmt: skip
        else:
            plain = None if "title" in prop else prop
            params.append((name, *shape, text, None, None, plain, _pointer(name)))
        if plain_names and not (len(name) <= 64 and name.isascii() and name.isidentifier()):
            plain_names = False
    closed = "additionalProperties" in schema
    return Table(
        schema=schema,
        params=tuple(params),
        description=description,
        required=tuple(required) if "required" in schema else None,
        required_names=required_names,
        closed=closed,
        closed_first=closed and _before(schema, "additionalProperties", "properties"),
        plain_names=plain_names,
    )


def _pointer(name: str) -> str:
    if "~" in name or "/" in name:
        name = name.replace("~", "~0").replace("/", "~1")
    return "/properties/" + name


def _before(schema: dict[str, Any], first: str, second: str) -> bool:
    """Whether key ``first`` comes before key ``second`` in ``schema``."""
    for key in schema:
        if key == first:
            return True
        if key == second:
            return False
    return False
