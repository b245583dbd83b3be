"""One-pass compilers for the commonest parameters schemas (Gemini, OpenAI strict, closed strict).

Most tools take a flat object whose properties are primitive leaves, lists of a
primitive, or ``Optional[...]`` of one of those (``anyOf: [X, {"type": "null"}]``).
For such a schema each compiler's general walk reduces to a few fixed rules,
applied here directly in one pass, without reference scans, deep copies or per-node
dispatch. Anything else returns ``None`` and the caller takes its general path.
Each function gives exactly the output and report lines of the general path
(a property test checks this on random simple schemas).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any

from forge.tools.formats._schema import PRIMITIVES, Context, Schema
from forge.tools.formats.report import ChangeAction, SchemaChange

__all__ = ["closed_strict_simple", "gemini_simple", "openai_strict_simple"]

_ROOT_KEYS = frozenset({"type", "properties", "required", "additionalProperties",
                        "description", "title"})  # fmt: skip
_LEAF_KEYS = frozenset({"type", "description", "default", "title"})
_ARRAY_KEYS = frozenset({"type", "items", "description", "default", "title"})
_OPTIONAL_KEYS = frozenset({"anyOf", "default", "description", "title"})
_NULL = {"type": "null"}
_GEMINI = {"string": "STRING", "number": "NUMBER", "integer": "INTEGER", "boolean": "BOOLEAN",
           "null": "NULL"}  # fmt: skip
_MAX_PROPERTIES = 5000  # OpenAI strict's limit; larger schemas take the general path
_MAX_NOTES = 4096

_NOTE_NULLABLE = "optional became required and nullable; null means 'not given'"
_NOTE_NULL_DEFAULT = (
    "this optional parameter already accepts null, so in strict mode the model's "
    "null reaches the handler instead of the default; make the default None "
    "or the type non-nullable to keep the default"
)
_NOTE_OPEN = "the object did not forbid other keys; strict mode closes it"
_NOTE_CLOSED = (
    "Gemini objects cannot be closed; extra keys are still rejected when the call is validated"
)
_NOTE_NULLABLE_GEMINI = "null became nullable: true"

_changes: dict[tuple[str, str], SchemaChange] = {}


def _change(path: str, keyword: str, action: ChangeAction, detail: str) -> SchemaChange:
    """A shared (immutable) `SchemaChange` for a change at the root."""
    return _property_change(path, keyword, action, detail, path)


def _property_change(
    name: str, keyword: str, action: ChangeAction, detail: str, path: str | None = None
) -> SchemaChange:
    """A shared (immutable) `SchemaChange` at ``/properties/{name}`` (``detail`` names the rule)."""
    key = (name, detail)
    found = _changes.get(key)
    if found is None or found.keyword != keyword:
        if len(_changes) >= _MAX_NOTES:
            _changes.clear()
        if path is None:
            path = "/properties/" + name.replace("~", "~0").replace("/", "~1")
        found = SchemaChange(path=path, keyword=keyword, action=action, detail=detail)
        _changes[key] = found
    return found


def _root(schema: Any) -> dict[str, Any] | None:
    """The properties of a simple root object, else ``None``."""
    if type(schema) is not dict or schema.get("type") != "object":
        return None
    if not schema.keys() <= _ROOT_KEYS or type(schema.get("required", [])) is not list:
        return None
    props = schema.get("properties")
    if type(props) is not dict or len(props) > _MAX_PROPERTIES:
        return None
    if "additionalProperties" in schema:
        return props if schema["additionalProperties"] is False else None
    return props if props else None


def _leaf_type(schema: Any) -> Any:
    """``P`` when ``schema`` is exactly ``{"type": P}`` with P primitive, else ``None``."""
    if type(schema) is not dict or len(schema) != 1:
        return None
    kind = schema.get("type")
    return kind if type(kind) is str and kind in PRIMITIVES else None


def _bare(schema: Any) -> Any:
    """``{"type": P}`` or ``{"type": "array", "items": {"type": P}}``: (type, items type)."""
    if type(schema) is not dict:
        return None
    size = len(schema)
    kind = schema.get("type")
    if size == 1:
        return (kind, None) if type(kind) is str and kind in PRIMITIVES else None
    if size == 2 and kind == "array":
        item = _leaf_type(schema.get("items"))
        return None if item is None else (kind, item)
    return None


def _optional_branch(prop: dict[str, Any]) -> Any:
    """The (type, items type) of X in ``anyOf: [X, {"type": "null"}]``, else ``None``."""
    branches = prop.get("anyOf")
    if type(branches) is not list or len(branches) != 2:
        return None
    null = branches[1]
    if type(null) is not dict or null != _NULL:
        return None
    return _bare(branches[0])


def _dump(value: Any) -> str:
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


def _move_default(out: Schema, default: Any) -> None:
    """``append_description(out, {"default": default})``."""
    text = out.get("description")
    part = f"(default: {_dump(default)})"
    out["description"] = f"{text} {part}" if text else part


# --------------------------------------------------------------------------- Gemini


def _gemini_property(prop: Any) -> Schema | None:
    """A property as `compile_gemini` gives it, or ``None`` when it is not simple."""
    if type(prop) is not dict:
        return None
    kind = prop.get("type")
    if kind is None:
        if not prop.keys() <= _OPTIONAL_KEYS:
            return None
        bare = _optional_branch(prop)
        if bare is None:
            return None
        if bare[1] is None:
            out: Schema = {"type": _GEMINI[bare[0]]}
        else:
            out = prop["anyOf"][0].copy()
            out["type"] = "ARRAY"
            out["items"] = {"type": _GEMINI[bare[1]]}
        if "description" in prop:
            out["description"] = prop["description"]
        if prop.get("default") is not None:
            out["default"] = prop["default"]
        out["nullable"] = True
        return out
    if type(kind) is not str:
        return None
    if kind == "array":
        item = _leaf_type(prop.get("items"))
        if item is None or not prop.keys() <= _ARRAY_KEYS:
            return None
        out = prop.copy()
        out["type"] = "ARRAY"
        out["items"] = {"type": _GEMINI[item]}
    else:
        gemini = _GEMINI.get(kind)
        if gemini is None or not prop.keys() <= _LEAF_KEYS:
            return None
        out = prop.copy()
        del out["type"]
        out["type"] = gemini
    if "title" in out:
        del out["title"]
    if "default" in out and out["default"] is None:
        del out["default"]
    return out


_gemini_notes: dict[str, SchemaChange] = {}
#: Property names known to match ``[A-Za-z_][A-Za-z0-9_]{0,63}`` (Gemini's documented form).
_plain_names: set[str] = set()


def gemini_simple(schema: Any, ctx: Context) -> Schema | None:
    """`compile_gemini` for a simple schema, or ``None``."""
    props = _root(schema)
    if props is None:
        return None
    notes: list[SchemaChange] = []
    compiled: Schema = {}
    for name, prop in props.items():
        if name not in _plain_names:
            if not (
                type(name) is str and len(name) <= 64 and name.isascii() and name.isidentifier()
            ):
                return None  # the general path notes an unusual name
            if len(_plain_names) >= _MAX_NOTES:
                _plain_names.clear()
            _plain_names.add(name)
        out = _gemini_property(prop)
        if out is None:
            return None
        if "nullable" in out:
            note = _gemini_notes.get(name)
            if note is None:
                if len(_gemini_notes) >= _MAX_NOTES:
                    _gemini_notes.clear()
                note = _gemini_notes[name] = SchemaChange(
                    path="/properties/" + name, keyword="type", action="rewritten",
                    detail=_NOTE_NULLABLE_GEMINI,
                )  # fmt: skip
            notes.append(note)
        compiled[name] = out
    ctx.root = schema
    result: Schema = {}
    for key, value in schema.items():
        if key == "type":
            result["type"] = "OBJECT"
        elif key == "properties":
            result["properties"] = compiled
            ctx.changes.extend(notes)
        elif key == "required":
            result["required"] = list(value)
        elif key == "additionalProperties":
            ctx.changes.append(_change("", "additionalProperties", "removed", _NOTE_CLOSED))
        elif key == "description":
            result["description"] = value
    return result


# --------------------------------------------------------------------------- strict modes


def _strict_properties(
    props: dict[str, Any], provider: str, required: Any, notes: list[SchemaChange],
    closing: list[SchemaChange],
) -> Schema | None:  # fmt: skip
    """Compile the properties as the OpenAI / closed strict walks do (the same for both here).

    With ``required`` (OpenAI) every property not in it becomes required: ``closing`` gets
    the notes that `_close` makes and non-nullable ones take ``null`` too.
    """
    compiled: Schema = {}
    moved = f"{provider} strict has no default"
    for name, prop in props.items():
        if type(prop) is not dict or type(name) is not str:
            return None
        kind = prop.get("type")
        nullable = False
        if kind is not None:
            if type(kind) is not str:
                return None
            if kind == "array":
                item = _leaf_type(prop.get("items"))
                if item is None or not prop.keys() <= _ARRAY_KEYS:
                    return None
                out = prop.copy()
                out["items"] = {"type": item}
            else:
                if kind not in PRIMITIVES or not prop.keys() <= _LEAF_KEYS:
                    return None
                out = {"type": kind}
                if "description" in prop:
                    out["description"] = prop["description"]
                nullable = kind == "null"
        else:
            bare = _optional_branch(prop)
            if bare is None or not prop.keys() <= _OPTIONAL_KEYS:
                return None
            first = prop["anyOf"][0]
            if bare[1] is None:
                branch = {"type": bare[0]}
            else:
                branch = first.copy()
                branch["items"] = {"type": bare[1]}
            out = prop.copy()
            out["anyOf"] = [branch, {"type": "null"}]
            nullable = True
        if "title" in out:
            del out["title"]
        if "default" in prop:
            notes.append(_property_change(name, "default", "moved_to_description", moved))
            if "default" in out:
                del out["default"]
            _move_default(out, prop["default"])
        if required is not None and name not in required:
            if nullable:
                if prop.get("default") is not None:
                    closing.append(_property_change(name, "default", "note", _NOTE_NULL_DEFAULT))
            else:
                closing.append(_property_change(name, "required", "rewritten", _NOTE_NULLABLE))
                out["type"] = [out["type"], "null"]
        compiled[name] = out
    return compiled


def openai_strict_simple(schema: Any, ctx: Context) -> Schema | None:
    """`compile_openai_strict` for a simple schema, or ``None``."""
    props = _root(schema)
    if props is None:
        return None
    notes: list[SchemaChange] = []
    closing: list[SchemaChange] = []
    required = set(schema.get("required", ()))
    compiled = _strict_properties(props, ctx.provider, required, notes, closing)
    if compiled is None:
        return None
    ctx.root = schema
    result: Schema = {}
    for key, value in schema.items():
        if key == "type":
            result["type"] = "object"
        elif key == "properties":
            result["properties"] = compiled
        elif key == "description":
            result["description"] = value
    ctx.changes.extend(notes)
    if compiled and "additionalProperties" not in schema:
        ctx.changes.append(_change("", "additionalProperties", "removed", _NOTE_OPEN))
    ctx.changes.extend(closing)
    result["required"] = list(compiled)
    result["additionalProperties"] = False
    return result


def closed_strict_simple(schema: Any, ctx: Context) -> Schema | None:
    """`compile_closed_strict` for a simple schema, or ``None``."""
    props = _root(schema)
    if props is None:
        return None
    notes: list[SchemaChange] = []
    compiled = _strict_properties(props, ctx.provider, None, notes, notes)
    if compiled is None:
        return None
    ctx.root = schema
    result: Schema = {}
    for key, value in schema.items():
        if key == "properties":
            result["properties"] = compiled
        elif key in ("type", "required", "description"):
            result[key] = value
    ctx.changes.extend(notes)
    if compiled and "additionalProperties" not in schema:
        ctx.changes.append(_change("", "additionalProperties", "removed", _NOTE_OPEN))
    result["additionalProperties"] = False
    return result
