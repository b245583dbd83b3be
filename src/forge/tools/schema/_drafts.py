"""Schemas written in older JSON Schema drafts, rewritten to draft 2020-12.

Real MCP servers and hand-written configurations still use draft 4 to 2019-09
forms. Each has one 2020-12 spelling with the same meaning, so a tool is
rewritten, not refused, and every rewrite is listed (``forge-tools validate``
shows them; `forge.tools.Tool.schema_rewrites` keeps them):

- ``"exclusiveMinimum": true`` with ``"minimum": m`` (draft 4) → ``"exclusiveMinimum": m``
  (``false`` is dropped), and the same for the maximum;
- ``"items": [...]`` (a tuple) → ``"prefixItems": [...]``, and ``additionalItems`` → ``items``;
- ``"dependencies"`` → ``dependentRequired`` (lists of names) and ``dependentSchemas``;
- ``"definitions"`` → ``"$defs"``, with every ``#/definitions/...`` reference rewritten;
- ``"id"`` → ``"$id"`` in a schema that declares draft 4 (or 3);
- ``"required": true`` / ``false`` inside a property (draft 3) → the parent's ``required`` list;
- ``"$schema"`` naming an older draft is removed (2020-12 is the default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forge.core.text import shown

__all__ = ["upgrade_schema"]

_OLD_DRAFTS = ("draft-03", "draft-04", "draft-06", "draft-07", "2019-09")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalItems", "additionalProperties", "not", "if", "then",
               "else", "contains", "propertyNames", "unevaluatedProperties",
               "unevaluatedItems")  # fmt: skip


def upgrade_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Rewrite ``schema`` (a plain, unshared dict, changed in place) to draft 2020-12.

    Returns the schema and one line per rewrite, naming where (a JSON pointer) and what.
    """
    notes: list[str] = []
    declared = schema.get("$schema")
    draft4 = isinstance(declared, str) and ("draft-04" in declared or "draft-03" in declared)
    if isinstance(declared, str) and any(d in declared for d in _OLD_DRAFTS):
        del schema["$schema"]
        notes.append(f"/: $schema {declared!r} removed: the schema now follows draft 2020-12")
    renamed = _rename_definitions(schema, notes)
    _node(schema, "", notes, draft4=draft4)
    if renamed:
        _rewrite_refs(schema)
    return schema, notes


def _rename_definitions(schema: dict[str, Any], notes: list[str]) -> bool:
    defs = schema.get("definitions")
    if not isinstance(defs, dict) or "$defs" in schema:
        return False
    schema["$defs"] = schema.pop("definitions")
    notes.append("/: definitions became $defs (references to #/definitions/ follow)")
    return True


def _rewrite_refs(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _rewrite_refs(item)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/definitions/"):
            node["$ref"] = "#/$defs/" + ref[len("#/definitions/") :]
        for value in node.values():
            _rewrite_refs(value)


def _node(node: Any, path: str, notes: list[str], *, draft4: bool) -> None:
    if not isinstance(node, dict):
        return
    where = path or "/"
    for bound in ("Minimum", "Maximum"):
        _exclusive(node, bound, where, notes)
    _tuple(node, where, notes)
    _dependencies(node, where, notes)
    if draft4 and isinstance(node.get("id"), str) and "$id" not in node:
        node["$id"] = node.pop("id")
        notes.append(f"{where}: id became $id")
    _required_flags(node, path, notes)
    for key in _SCHEMA_MAPS:
        value = node.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                _node(sub, f"{path}/{key}/{_escape(name)}", notes, draft4=draft4)
    for key in _SCHEMA_LISTS:
        value = node.get(key)
        if isinstance(value, list):
            for i, sub in enumerate(value):
                _node(sub, f"{path}/{key}/{i}", notes, draft4=draft4)
    for key in _SCHEMA_ONE:
        _node(node.get(key), f"{path}/{key}", notes, draft4=draft4)


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _exclusive(node: dict[str, Any], bound: str, where: str, notes: list[str]) -> None:
    key, plain = f"exclusive{bound}", bound.lower()
    flag = node.get(key)
    if not isinstance(flag, bool):
        return
    if flag and isinstance(node.get(plain), int | float) and not isinstance(node[plain], bool):
        node[key] = node.pop(plain)
        value = shown(node[key])
        notes.append(f"{where}: {key}: true with {plain} {value} became {key}: {value}")
    else:
        del node[key]
        notes.append(f"{where}: {key}: {str(flag).lower()} (draft 4) removed: it bounds nothing")


def _tuple(node: dict[str, Any], where: str, notes: list[str]) -> None:
    if isinstance(node.get("items"), list) and "prefixItems" not in node:
        node["prefixItems"] = node.pop("items")
        notes.append(f"{where}: items as a list (a tuple) became prefixItems")
    if "additionalItems" not in node:
        return
    if "prefixItems" in node and "items" not in node:
        node["items"] = node.pop("additionalItems")
        notes.append(f"{where}: additionalItems became items (after prefixItems)")
    else:
        del node["additionalItems"]
        notes.append(f"{where}: additionalItems without a tuple removed: it applied to nothing")


def _dependencies(node: dict[str, Any], where: str, notes: list[str]) -> None:
    deps = node.get("dependencies")
    if not isinstance(deps, Mapping):
        return
    del node["dependencies"]
    names = {k: v for k, v in deps.items() if isinstance(v, list)}
    schemas = {k: v for k, v in deps.items() if not isinstance(v, list)}
    if names:
        node.setdefault("dependentRequired", {}).update(names)
    if schemas:
        node.setdefault("dependentSchemas", {}).update(schemas)
    kinds = " and ".join(k for k, v in (("dependentRequired", names),
                                       ("dependentSchemas", schemas)) if v)  # fmt: skip
    notes.append(f"{where}: dependencies became {kinds or 'nothing (it was empty)'}")


def _required_flags(node: dict[str, Any], path: str, notes: list[str]) -> None:
    props = node.get("properties")
    if not isinstance(props, dict):
        return
    wanted: list[str] = []
    for name, sub in props.items():
        if isinstance(sub, dict) and isinstance(sub.get("required"), bool):
            if sub.pop("required"):
                wanted.append(name)
            notes.append(f"{path}/properties/{_escape(name)}: required as a flag (draft 3) "
                         "moved to the object's required list")  # fmt: skip
    if wanted:
        required = node.get("required")
        listed = list(required) if isinstance(required, list) else []
        node["required"] = listed + [n for n in wanted if n not in listed]
