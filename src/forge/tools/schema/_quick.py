"""The parameters schema of a plainly typed function, without pydantic (what an export needs).

Exporting a tool needs only its parameters schema. Building it through
pydantic's arguments schema (`forge.tools.schema._python`) also builds the
validator, which only a call needs, and costs about a millisecond a tool. For a
function whose parameters use only the plain JSON types -- ``str``, ``int``,
``float``, ``bool``, ``None``, ``Any``, lists, dicts with ``str`` keys, unions
of these, and ``Literal`` strings or integers -- with plain defaults,
`quick_parameters` writes the schema pydantic gives, key for key and in the same
order, in a few microseconds. For anything else it answers ``None`` and the tool
is compiled as before. The tests compare the two on generated signatures.
"""

from __future__ import annotations

import inspect
import math
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["quick_parameters"]

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
}
_LISTS = (list, typing.List)  # noqa: UP006 - the old alias is a distinct object
_DICTS = (dict, typing.Dict)  # noqa: UP006
_UNIONS = (typing.Union, types.UnionType)
_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_NO_DEFAULT = inspect.Parameter.empty


def quick_parameters(
    fn: Callable[..., Any], descriptions: Mapping[str, str]
) -> dict[str, Any] | None:
    """The parameters schema of ``fn`` as pydantic writes it, or ``None`` when it is not plain."""
    if not _resolvable_as_pydantic_does(fn):
        return None
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # the full compile reports it, with advice
        return None
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in signature.parameters.items():
        if parameter.kind not in _BY_NAME or name not in hints:
            return None
        node = _node(hints[name])
        if node is None:
            return None
        default = parameter.default
        if default is _NO_DEFAULT:
            required.append(name)
        elif _plain_default(default):
            node = dict(sorted({**node, "default": default}.items()))
        else:
            return None
        properties[name] = node
    for name, text in descriptions.items():
        prop = properties.get(name)
        if prop is not None:
            prop["description"] = text
    schema: dict[str, Any] = {"additionalProperties": False, "properties": properties}
    if required:
        schema["required"] = required
    schema["type"] = "object"
    return schema


def _resolvable_as_pydantic_does(fn: Callable[..., Any]) -> bool:
    """Whether text annotations resolve here as in pydantic, which reads the module by name."""
    annotations = getattr(fn, "__annotations__", None)
    if not isinstance(annotations, dict):
        return False
    if not any(isinstance(a, str) for a in annotations.values()):
        return True
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    return module is not None and vars(module) is getattr(fn, "__globals__", None)


def _node(hint: Any) -> dict[str, Any] | None:
    """The JSON Schema of one annotation (keys sorted, as pydantic sorts them), if plain."""
    scalar = _SCALARS.get(hint) if type(hint) is type else None
    if scalar is not None:
        return dict(scalar)
    if hint is Any:
        return {}
    if hint in _LISTS:
        return {"items": {}, "type": "array"}
    if hint in _DICTS:
        return {"additionalProperties": True, "type": "object"}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in _LISTS and len(args) == 1:
        items = _node(args[0])
        return None if items is None else {"items": items, "type": "array"}
    if origin in _DICTS and len(args) == 2 and args[0] is str:
        values = _node(args[1])
        if values is None:
            return None
        return {"additionalProperties": values or True, "type": "object"}  # any value: true
    if origin in _UNIONS:
        return _union(args)
    if origin is typing.Literal:
        return _literal(args)
    return None


def _union(members: tuple[Any, ...]) -> dict[str, Any] | None:
    """``anyOf`` the distinct members in order, ``null`` last (pydantic makes it nullable)."""
    none = type(None)
    kept = [m for m in members if m is not none]
    if any(m is Any for m in kept):
        return None
    nodes: list[dict[str, Any]] = []
    for member in kept:
        node = _node(member)
        if node is None:
            return None
        if node not in nodes:  # pydantic writes a choice once (``list | List``)
            nodes.append(node)
    if len(kept) < len(members):
        nodes.append({"type": "null"})
    if len(nodes) == 1:
        return nodes[0]
    return {"anyOf": nodes}


def _literal(values: tuple[Any, ...]) -> dict[str, Any] | None:
    if len(values) < 2:
        return None
    if all(type(v) is str for v in values):
        return {"enum": list(values), "type": "string"}
    if all(type(v) is int for v in values):
        return {"enum": list(values), "type": "integer"}
    return None


def _plain_default(value: Any) -> bool:
    """A default pydantic writes as it is (finite numbers, text, booleans, None)."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    return value is None or kind in {str, int, bool}
