"""One configuration definition (seed 000's schema, CF-2..CF-5) to one `Tool`.

A definition is checked completely, its implementation resolved and the tool
compiled before it is returned, so an invalid one is never half-registered.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from forge.core.errors import ToolDefinitionError
from forge.tools._names import check_name
from forge.tools.config.handlers import HandlerRegistry
from forge.tools.tool import Tool

__all__ = ["IMPLEMENTATION_TYPES", "build_tool"]

IMPLEMENTATION_TYPES = ("mock", "builtin", "internal", "http")
_METADATA = {
    "display_name", "category", "tags", "examples", "usage_notes", "limitations",
    "version", "author", "deprecated", "replaced_by",
}  # fmt: skip
_PASSED_ON = _METADATA | {"name", "description", "parameters", "annotations", "timeout",
                          "output_schema"}  # fmt: skip
_KEYS = _PASSED_ON | {"type", "handler", "implementation"}


def build_tool(
    definition: Any,
    *,
    builtins: HandlerRegistry,
    internal: HandlerRegistry,
    allow_private_network: bool | Iterable[str] = False,
) -> Tool:
    """Build and compile the `Tool` a configuration definition describes.

    Raises:
        ToolDefinitionError: Naming the tool and the reason.
    """
    if not isinstance(definition, Mapping):
        raise ToolDefinitionError(
            "<definition>", f"a tool definition must be a mapping, got {type(definition).__name__}"
        )
    name = check_name(definition.get("name"))
    _check_shape(name, definition)
    impl = definition["implementation"]
    kind = impl["type"]
    schema = definition["parameters"]
    handler, cheap = _handler(
        name,
        kind,
        impl,
        schema,
        builtins=builtins,
        internal=internal,
        allow_private=allow_private_network,
    )
    from forge.tools.records import from_record

    record = {k: v for k, v in definition.items() if k in _PASSED_ON}
    built = from_record({**record, "handler": handler, "cheap": cheap})
    extra = {"implementation": kind, "handler": definition["handler"]}
    if kind in ("builtin", "internal"):
        extra["target"] = impl["handler"]
    result = built.replace(metadata=dataclasses.replace(built.metadata, extra=extra))
    return result.compile()


def _check_shape(name: str, definition: Mapping[str, Any]) -> None:
    unknown = sorted(str(k) for k in definition if k not in _KEYS)
    if unknown:
        raise ToolDefinitionError(
            name, f"unknown key(s) {unknown}; a definition may hold: {', '.join(sorted(_KEYS))}"
        )
    for key in ("description", "handler", "parameters", "implementation"):
        if key not in definition:
            raise ToolDefinitionError(name, f"the definition has no {key!r}")
    if definition.get("type") != "function":
        raise ToolDefinitionError(
            name, f"'type' must be \"function\", got {definition.get('type')!r}"
        )
    if not isinstance(definition["handler"], str) or not definition["handler"].strip():
        raise ToolDefinitionError(name, "'handler' must be a non-empty string")
    if not isinstance(definition["parameters"], Mapping):
        raise ToolDefinitionError(name, "'parameters' must be a JSON Schema object")
    impl = definition["implementation"]
    if not isinstance(impl, Mapping) or impl.get("type") not in IMPLEMENTATION_TYPES:
        got = impl.get("type") if isinstance(impl, Mapping) else impl
        raise ToolDefinitionError(
            name, f"'implementation.type' must be one of {', '.join(IMPLEMENTATION_TYPES)}; "
            f"got {got!r}",
        )  # fmt: skip


def _handler(
    name: str,
    kind: str,
    impl: Mapping[str, Any],
    schema: Mapping[str, Any],
    *,
    builtins: HandlerRegistry,
    internal: HandlerRegistry,
    allow_private: bool | Iterable[str],
) -> tuple[Callable[..., Any], bool]:
    if kind == "mock":
        _only(name, impl, {"type", "mock_response"})
        if "mock_response" not in impl:
            raise ToolDefinitionError(name, "a mock implementation needs 'mock_response'")
        return _mock(name, impl["mock_response"]), True
    if kind == "http":
        from forge.tools.config._http_call import http_handler
        from forge.tools.config.http import parse_http_spec

        spec = parse_http_spec(name, impl, schema)
        from forge.tools.config._network import NetworkPolicy

        try:
            policy = NetworkPolicy.coerce(allow_private)
        except ValueError as exc:
            raise ToolDefinitionError(name, f"invalid allow_private_network: {exc}") from None
        return http_handler(name, spec, policy=policy), False
    _only(name, impl, {"type", "handler"})
    handlers = builtins if kind == "builtin" else internal
    target = impl.get("handler")
    if not isinstance(target, str):
        raise ToolDefinitionError(name, f"a {kind} implementation needs a 'handler' name")
    fn = handlers.get(target)
    if fn is None:
        known = ", ".join(handlers.names()) or "(none registered)"
        raise ToolDefinitionError(
            name, f"unknown {kind} handler {target!r}; handlers are never imported from "
            f"configuration, register it first. Registered {kind} handlers: {known}",
        )  # fmt: skip
    return fn, False


def _only(name: str, impl: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(str(k) for k in impl if k not in allowed)
    if unknown:
        raise ToolDefinitionError(
            name, f"unknown {impl['type']} implementation key(s) {unknown}; "
            f"allowed: {sorted(allowed)}",
        )  # fmt: skip


def _mock(name: str, response: Any) -> Callable[..., Any]:
    _check_json(name, response)

    def mock(_arguments: dict[str, Any], /) -> Any:
        return copy.deepcopy(response)

    return mock


def _check_json(name: str, value: Any) -> None:
    import json

    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(name, f"mock_response must be a JSON value: {exc}") from None
