"""OpenAPI schemas to the self-contained JSON Schema (2020-12) of a request.

Refs inside the document are inlined (a recursive one becomes an unconstrained
schema that says so); 3.0's ``nullable`` becomes a ``"null"`` type (or enum
member), its boolean ``exclusiveMinimum``/``exclusiveMaximum`` the numeric
form, and ``example`` an ``examples`` list; 3.1 schemas are JSON Schema already.
Properties marked ``readOnly`` are left out, since a request never sends them.
``allOf`` members that are plain objects are merged; other compositions stay.
OpenAPI-only keywords (``discriminator``, ``xml``, ``externalDocs``, ``x-*``)
are dropped.
"""

from __future__ import annotations

import copy
import urllib.parse
from typing import Any

from forge.tools.config._limits import MAX_ALIAS_NODES
from forge.tools.config.openapi._errors import OpenAPIError

__all__ = ["RefBomb", "SchemaConverter"]

MAX_DEPTH = 40
_DROPPED = {
    "discriminator", "xml", "externalDocs", "nullable", "readOnly", "writeOnly", "$schema",
    "$id", "$anchor", "$dynamicAnchor", "$comment", "example",
}  # fmt: skip
_SUBSCHEMA = {"items", "not", "additionalProperties", "contains", "if", "then", "else",
              "propertyNames", "unevaluatedProperties", "unevaluatedItems"}  # fmt: skip
_SUBSCHEMA_LISTS = {"allOf", "anyOf", "oneOf", "prefixItems"}
_SUBSCHEMA_MAPS = {"properties", "patternProperties", "dependentSchemas", "$defs"}
_MERGEABLE = {"type", "properties", "required", "description", "title"}


class RefBomb(Exception):
    """The document's refs, inlined, grow past `MAX_ALIAS_NODES`: the import stops with
    ``error``, whichever operation was being converted (internal)."""

    def __init__(self, error: OpenAPIError) -> None:
        super().__init__(str(error))
        self.error = error


class SchemaConverter:
    """Inlines refs and rewrites one document's schemas for requests.

    Every node a ``$ref`` brings in counts, across the whole import, against
    `MAX_ALIAS_NODES`: the bound YAML aliases have in configuration files, since
    an inlined ref is expanded as an alias is. Refs that fan out (each schema
    using the next one twice) would otherwise grow the tools exponentially.
    """

    def __init__(self, document: dict[str, Any], *, version: str, source: str) -> None:
        self.document = document
        self.version = version
        self.source = source
        self.inlined = 0

    def lookup(self, ref: str) -> Any:
        """The value ``ref`` (``#/components/...``) points at.

        Raises:
            OpenAPIError: The ref does not resolve.
        """
        if not ref.startswith("#/"):
            raise OpenAPIError(self.source, "", f"$ref {ref!r} is not a JSON pointer ('#/...')")
        node: Any = self.document
        for raw in ref[2:].split("/"):
            part = urllib.parse.unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise OpenAPIError(self.source, ref[1:], f"$ref {ref!r} does not resolve")
        return node

    def resolve(self, node: Any) -> Any:
        """Follow a chain of refs (a parameter, a request body, ...) to the object itself."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen:
                raise OpenAPIError(self.source, ref[1:], f"$ref {ref!r} refers to itself")
            seen.add(ref)
            node = self.lookup(ref)
        return node

    def request_schema(self, schema: Any) -> Any:
        """The request's JSON Schema for an OpenAPI schema (a new object)."""
        return self._convert(schema, (), 0)

    def _convert(self, node: Any, stack: tuple[str, ...], depth: int) -> Any:
        if stack:
            self._count(1, stack[0])
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            return {}
        if depth > MAX_DEPTH:
            return {"description": "(nested too deeply to be expanded)"}
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in stack:
                name = ref.rsplit("/", 1)[-1]
                return {"description": f"(a {name}, recursive: not expanded further)"}
            target = self._convert(self.lookup(ref), (*stack, ref), depth + 1)
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if not siblings or not isinstance(target, dict):
                return target
            return {**target, **self._convert(siblings, stack, depth)}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED or key.startswith("x-"):
                continue
            out[key] = self._keyword(key, value, stack, depth)
        self._openapi30(node, out)
        if "example" in node and "examples" not in out:
            out["examples"] = [copy.deepcopy(node["example"])]
        if isinstance(out.get("properties"), dict):
            self._drop_read_only(node, out, stack, depth)
        if isinstance(out.get("allOf"), list):
            _merge_all_of(out)
        _drop_bad_default(out)
        return out

    def _keyword(self, key: str, value: Any, stack: tuple[str, ...], depth: int) -> Any:
        if key in _SUBSCHEMA and isinstance(value, dict | bool):
            return self._convert(value, stack, depth + 1)
        if key in _SUBSCHEMA_LISTS and isinstance(value, list):
            return [self._convert(item, stack, depth + 1) for item in value]
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            return {k: self._convert(v, stack, depth + 1) for k, v in value.items()}
        if stack:
            self._count(_size(value), stack[0])
        return copy.deepcopy(value)

    def _count(self, nodes: int, ref: str) -> None:
        self.inlined += nodes
        if self.inlined > MAX_ALIAS_NODES:
            raise RefBomb(OpenAPIError(
                self.source, ref[1:], f"the $refs expand to more than {MAX_ALIAS_NODES:,} schema "
                f"nodes when inlined into the tools (the limit), by {ref!r}; refs that use "
                "each other several times grow exponentially: "
                "simplify them, or import fewer operations (include=/--include)",
            ))  # fmt: skip

    def _drop_read_only(
        self, node: dict[str, Any], out: dict[str, Any], stack: tuple[str, ...], depth: int
    ) -> None:
        hidden = [name for name, prop in node["properties"].items() if self._read_only(prop)]
        for name in hidden:
            out["properties"].pop(name, None)
        if hidden and isinstance(out.get("required"), list):
            out["required"] = [r for r in out["required"] if r not in hidden]
            if not out["required"]:
                del out["required"]

    def _read_only(self, prop: Any) -> bool:
        try:
            resolved = self.resolve(prop)
        except OpenAPIError:
            return False
        return any(isinstance(n, dict) and n.get("readOnly") is True for n in (prop, resolved))

    def _openapi30(self, node: dict[str, Any], out: dict[str, Any]) -> None:
        if self.version != "3.0":
            return
        for bound in ("Minimum", "Maximum"):
            flag = out.get(f"exclusive{bound}")
            if isinstance(flag, bool):
                limit = out.get(bound.lower())
                if flag and limit is not None:
                    out[f"exclusive{bound}"] = out.pop(bound.lower())
                else:
                    del out[f"exclusive{bound}"]
        if node.get("nullable") is True:
            _make_nullable(out)


def _size(value: Any) -> int:
    """Nodes in a JSON value; a string counts one more per KiB of text."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            count += len(item) // 1024
    return count


def _make_nullable(out: dict[str, Any]) -> None:
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    if kind is None and "enum" not in out:
        inner = dict(out)
        out.clear()
        out["anyOf"] = [inner, {"type": "null"}]


def _merge_all_of(out: dict[str, Any]) -> None:
    """Merge ``allOf`` members that are plain objects into the schema holding them."""
    members = out["allOf"]
    plain = all(
        isinstance(m, dict) and set(m) <= _MERGEABLE and m.get("type", "object") == "object"
        for m in members
    )
    clash = set(out) & {"properties", "required"} - {"allOf"}
    if not plain or clash:
        return
    properties: dict[str, Any] = {}
    required: list[str] = []
    for member in members:
        properties.update(member.get("properties") or {})
        required.extend(r for r in member.get("required") or [] if r not in required)
        for key in ("description", "title"):
            if key in member and key not in out:
                out[key] = member[key]
    del out["allOf"]
    out.setdefault("type", "object")
    out["properties"] = properties
    if required:
        out["required"] = [r for r in required if r in properties]


def _drop_bad_default(out: dict[str, Any]) -> None:
    """A default outside the schema's own enum is dropped (real documents carry such slips)."""
    enum = out.get("enum")
    if "default" in out and isinstance(enum, list) and out["default"] not in enum:
        del out["default"]
