"""One-pass compilers for the commonest parameters schemas (Gemini, OpenAI strict, closed strict).

For a schema that `forge.tools.schema._param_table.analyse` reads into a table (a flat
object of primitive leaves, lists of a primitive and ``Optional[...]`` of
those), each compiler's general walk reduces to a few fixed rules, applied here
per row of the table, without reference scans, deep copies or per-node
dispatch. A compiled tool keeps its table, so converting it does no analysis
at all. Anything else returns ``None`` and the caller takes its general path.
Each function gives exactly the output and report lines of the general path
(a property test checks this on random simple schemas). The output is built
read-only (`forge.tools.values.readonly`), so its nodes can be shared between tools.
"""

from __future__ import annotations

from typing import Any

from forge.tools.formats._schema import Context, Schema
from forge.tools.formats.report import ChangeAction, SchemaChange
from forge.tools.schema import ARRAY, LEAF, OPTIONAL, PRIMITIVES, Table, analyse
from forge.tools.values.readonly import ReadOnlyDict, ReadOnlyList, freeze

__all__ = ["UNKNOWN", "closed_strict_simple", "gemini_simple", "openai_strict_simple"]

#: "This schema's table was not looked up": `table_for` analyses the schema.
UNKNOWN: Any = object()

_GEMINI = {"string": "STRING", "number": "NUMBER", "integer": "INTEGER", "boolean": "BOOLEAN",
           "null": "NULL"}  # fmt: skip
_MAX_NOTES = 4096
# Read-only, hence shared by every compiled schema that needs them.
_GEMINI_ITEMS = {kind: ReadOnlyDict(type=wire) for kind, wire in _GEMINI.items()}
_ITEMS = {kind: ReadOnlyDict(type=kind) for kind in PRIMITIVES}
_NULL_BRANCH = ReadOnlyDict(type="null")
_OR_NULL = {kind: ReadOnlyList((kind, "null")) for kind in (*PRIMITIVES, "array")}

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


class _Notes(dict[str, SchemaChange]):
    """The (shared, immutable) report line of one rule, per property pointer."""

    def __init__(self, keyword: str, action: ChangeAction, detail: str) -> None:
        super().__init__()
        self.keyword, self.action, self.detail = keyword, action, detail

    def __missing__(self, pointer: str) -> SchemaChange:
        if len(self) >= _MAX_NOTES:
            self.clear()
        note = self[pointer] = SchemaChange(
            path=pointer, keyword=self.keyword, action=self.action, detail=self.detail
        )
        return note


_NULLABLE_GEMINI = _Notes("type", "rewritten", _NOTE_NULLABLE_GEMINI)
_NULLABLE = _Notes("required", "rewritten", _NOTE_NULLABLE)
_NULL_DEFAULT = _Notes("default", "note", _NOTE_NULL_DEFAULT)
_MOVED: dict[str, _Notes] = {}
_CLOSED = SchemaChange(path="", keyword="additionalProperties", action="note",
                       detail=_NOTE_CLOSED)  # fmt: skip
_OPEN = SchemaChange(path="", keyword="additionalProperties", action="removed", detail=_NOTE_OPEN)


def _moved(provider: str) -> _Notes:
    """The notes of defaults moved into descriptions for ``provider``."""
    found = _MOVED.get(provider)
    if found is None:
        found = _MOVED[provider] = _Notes(
            "default", "moved_to_description", f"{provider} strict has no default"
        )
    return found


# --------------------------------------------------------------------------- Gemini


def gemini_simple(schema: Any, ctx: Context, table: Any = UNKNOWN) -> Schema | None:
    """`compile_gemini` for a simple schema, or ``None``."""
    found = analyse(schema) if table is UNKNOWN else table
    if found is None or found.schema is not schema or not found.plain_names:
        return None  # not simple, or (plain_names) the general path notes an unusual name
    if not found.required_names <= {param[0] for param in found.params}:
        return None  # the general path drops (and notes) a required name Gemini rejects
    changes = ctx.changes
    if found.closed_first:
        changes.append(_CLOSED)
    compiled: Schema = {}
    nullable_notes = _NULLABLE_GEMINI
    for name, shape, kind, item, description, default, _, _, pointer in found.params:
        out: Schema
        if shape == LEAF:
            out = {"type": _GEMINI[kind]}
        elif shape == ARRAY or item:
            out = {"type": "ARRAY", "items": _GEMINI_ITEMS[item]}
        else:
            out = {"type": _GEMINI[kind]}
        if description is not None:
            out["description"] = description
        if default is not None:
            out["default"] = default
        if shape == OPTIONAL:
            out["nullable"] = True
            changes.append(nullable_notes[pointer])
        compiled[name] = ReadOnlyDict(out)
    if found.closed and not found.closed_first:
        changes.append(_CLOSED)
    return _root("OBJECT", found, compiled)


def _root(kind: str, table: Table, compiled: Schema, *, closed: bool = False) -> Schema:
    """The root object: type, description, properties and the ``required`` list as written."""
    result: Schema = {"type": kind}
    if table.description is not None:
        result["description"] = table.description
    result["properties"] = ReadOnlyDict(compiled)
    if table.required is not None:
        result["required"] = ReadOnlyList(table.required)
    if closed:
        result["additionalProperties"] = False
    return ReadOnlyDict(result)


# --------------------------------------------------------------------------- strict modes


def _strict_properties(
    table: Table, provider: str, close: bool, notes: list[SchemaChange],
    closing: list[SchemaChange],
) -> Schema:  # fmt: skip
    """Compile the properties as the OpenAI / closed strict walks do (the same for both here).

    With ``close`` (OpenAI) every property not required becomes required: ``closing`` gets
    the notes that `_close` makes and non-nullable ones take ``null`` too.
    """
    compiled: Schema = {}
    moved = _MOVED.get(provider)
    if moved is None:
        moved = _moved(provider)
    required = table.required_names
    rows = table.params
    for name, shape, kind, item, description, default, with_default, plain, pointer in rows:
        nullable = shape == OPTIONAL or kind == "null"
        if close and not nullable and name not in required:
            closing.append(_NULLABLE[pointer])
            value: Schema = {"type": _OR_NULL.get(kind) or ReadOnlyList((kind, "null"))}
        elif plain is not None:
            # already in strict form: shared, like the (read-only) schema itself
            compiled[name] = plain if type(plain) is ReadOnlyDict else freeze(plain)
            continue
        else:
            value = {"type": kind}
        if item:
            value["items"] = _ITEMS[item]
        out: Schema = (
            {"anyOf": ReadOnlyList((ReadOnlyDict(value), _NULL_BRANCH))}
            if shape == OPTIONAL else value
        )  # fmt: skip
        if with_default is not None:
            notes.append(moved[pointer])
            out["description"] = with_default
            if close and nullable and default is not None and name not in required:
                closing.append(_NULL_DEFAULT[pointer])
        elif description is not None:
            out["description"] = description
        compiled[name] = ReadOnlyDict(out)
    return compiled


def openai_strict_simple(schema: Any, ctx: Context, table: Any = UNKNOWN) -> Schema | None:
    """`compile_openai_strict` for a simple schema, or ``None``."""
    if table is UNKNOWN:
        table = analyse(schema)
    if table is None or table.schema is not schema:
        return None
    notes = ctx.changes
    closing: list[SchemaChange] = []
    compiled = _strict_properties(table, ctx.provider, True, notes, closing)
    if compiled and not table.closed:
        notes.append(_OPEN)
    if closing:
        notes.extend(closing)
    properties, required = ReadOnlyDict(compiled), ReadOnlyList(compiled)
    if table.description is None:
        return ReadOnlyDict({"type": "object", "properties": properties, "required": required,
                             "additionalProperties": False})  # fmt: skip
    return ReadOnlyDict({"type": "object", "description": table.description,
                         "properties": properties, "required": required,
                         "additionalProperties": False})  # fmt: skip


def closed_strict_simple(schema: Any, ctx: Context, table: Any = UNKNOWN) -> Schema | None:
    """`compile_closed_strict` for a simple schema, or ``None``."""
    if table is UNKNOWN:
        table = analyse(schema)
    if table is None or table.schema is not schema:
        return None
    notes = ctx.changes
    compiled = _strict_properties(table, ctx.provider, False, notes, notes)
    if compiled and not table.closed:
        notes.append(_OPEN)
    return _root("object", table, compiled, closed=True)
