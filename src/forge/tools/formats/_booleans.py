"""Boolean schemas as parameters (``"someProp": true``), for providers whose types reject them.

JSON Schema allows ``true`` (any value) and ``false`` (no value) wherever a
schema goes. Ollama's client validates every parameter as an object, so there
``true`` becomes ``{}`` and a ``false`` parameter, which no call may give, is
left out (and out of ``required``). Both are reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forge.tools.formats._schema import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE, Context, Path, child

__all__ = ["boolean_parameters"]


def boolean_parameters(schema: Mapping[str, Any], ctx: Context, table: Any = None) -> Any:
    """Return ``schema`` with every boolean property schema replaced as described above.

    ``schema`` itself comes back when it has none (always so with a parameter ``table``).
    """
    if table is not None or not _has_boolean_property(schema):
        return schema
    return _node(schema, ctx, ())


def _has_boolean_property(node: Any) -> bool:
    if isinstance(node, list):
        return any(_has_boolean_property(n) for n in node)
    if not isinstance(node, Mapping):
        return False
    props = node.get("properties")
    if isinstance(props, Mapping) and any(isinstance(p, bool) for p in props.values()):
        return True
    return any(_has_boolean_property(v) for k, v in node.items() if _is_schema_key(k))


def _is_schema_key(key: str) -> bool:
    return key in SCHEMA_MAPS or key in SCHEMA_LISTS or key in SCHEMA_ONE


def _node(node: Any, ctx: Context, path: Path) -> Any:
    if isinstance(node, list):
        return [_node(n, ctx, child(path, i)) for i, n in enumerate(node)]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        here = child(path, key)
        if key == "properties" and isinstance(value, Mapping):
            out[key] = _properties(value, ctx, here)
        elif key in SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {k: _node(v, ctx, child(here, k)) for k, v in value.items()}
        elif key in SCHEMA_LISTS or key in SCHEMA_ONE:
            out[key] = _node(value, ctx, here)
        else:
            out[key] = value
    gone = [name for name, prop in (node.get("properties") or {}).items() if prop is False]
    if gone and isinstance(node.get("required"), list):
        out["required"] = [r for r in node["required"] if r not in gone]
    return out


def _properties(props: Mapping[str, Any], ctx: Context, path: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, prop in props.items():
        here = child(path, name)
        if prop is True:
            ctx.note(here, "true", "rewritten", f"{ctx.provider} takes no boolean schema: "
                     "'true' (any value) became {}")  # fmt: skip
            out[name] = {}
        elif prop is False:
            ctx.note(here, "false", "removed", f"{ctx.provider} takes no boolean schema: "
                     "the parameter 'false' admits no value, so it was left out")  # fmt: skip
        else:
            out[name] = _node(prop, ctx, here)
    return out
