"""Strict mode keeps its meaning: map strict-mode arguments back to canonical ones.

Strict schemas (OpenAI, Mistral, Anthropic and Bedrock with ``strict=True``)
change two things a model's arguments then reflect:

* an optional parameter became required and nullable, so the model sends
  ``null`` meaning "not given": the key is dropped, so the Python default
  applies (only where the canonical schema does not itself accept ``null``);
* a free-form value (``dict``, an untyped value) travels as a JSON string: it
  is decoded.

Both are undone at every depth (nested objects, array items, ``$ref``s and
``anyOf`` branches), before validation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from forge.tools.formats._schema import accepts_null, is_free_form, resolve

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition

__all__ = ["restore_arguments", "strict_arguments"]


def strict_arguments(tool: ToolDefinition) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """Return a function turning ``tool``'s strict-mode arguments into canonical ones.

    The returned function never raises: what it cannot map it leaves as it
    is, for validation to report.
    """
    schema = tool.parameters

    def restore(arguments: Mapping[str, Any]) -> dict[str, Any]:
        return restore_arguments(schema, arguments)

    return restore


def restore_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Map strict-mode ``arguments`` back to what the canonical ``schema`` means."""
    out = _value(schema, dict(arguments), schema, 0)
    return out if isinstance(out, dict) else dict(arguments)


def _value(schema: Any, value: Any, root: Mapping[str, Any], depth: int) -> Any:
    schema = _deref(schema, root)
    if depth > 64 or not isinstance(schema, Mapping):
        return value
    if isinstance(value, str) and depth and is_free_form(schema, root):
        try:
            return json.loads(value)
        except ValueError:
            return value
    if isinstance(value, dict) and isinstance(schema.get("properties"), Mapping):
        return _object(schema, value, root, depth)
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [_value(schema["items"], v, root, depth + 1) for v in value]
    branch = _branch(schema, value, root)
    return value if branch is None else _value(branch, value, root, depth + 1)


def _object(schema: Mapping[str, Any], value: dict[str, Any], root: Mapping[str, Any],
            depth: int) -> dict[str, Any]:  # fmt: skip
    props: Mapping[str, Any] = schema["properties"]
    required = set(schema.get("required", ()))
    out: dict[str, Any] = {}
    for key, item in value.items():
        sub = props.get(key)
        if sub is None:
            out[key] = item
        elif item is None and key not in required and _droppable(sub, root):
            continue
        else:
            out[key] = _value(sub, item, root, depth + 1)
    return out


def _droppable(schema: Any, root: Mapping[str, Any]) -> bool:
    """Whether a ``null`` for this optional property means "not given"."""
    return not accepts_null(schema, root)


def _branch(schema: Mapping[str, Any], value: Any, root: Mapping[str, Any]) -> Any:
    branches = schema.get("anyOf") or schema.get("oneOf") or schema.get("allOf")
    if not isinstance(branches, list):
        return None
    targets = [_deref(b, root) for b in branches]
    fits = [t for t in targets if isinstance(t, Mapping) and _matches(t, value, root)]
    if isinstance(value, dict):  # prefer the object branch that lists every key sent
        for target in fits:
            if set(value) <= set(target.get("properties", ())):
                return target
    return fits[0] if fits else None


def _matches(schema: Mapping[str, Any], value: Any, root: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if isinstance(value, dict):
        return kind == "object" or isinstance(schema.get("properties"), Mapping)
    if isinstance(value, list):
        return kind == "array" or "items" in schema
    if isinstance(value, str):
        return is_free_form(schema, root)
    return False


def _deref(schema: Any, root: Mapping[str, Any]) -> Any:
    for _ in range(32):
        if not (isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str)):
            return schema
        try:
            target = resolve(root, schema["$ref"])
        except LookupError:
            return schema
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **rest} if isinstance(target, Mapping) and rest else target
    return schema
