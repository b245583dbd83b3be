"""One configuration definition (the original configuration schema) to one `Tool`.

A definition holds:

* ``name``, ``description``, ``parameters`` (a JSON Schema object) and
  ``implementation`` (with its ``type``): required.
* ``type`` and ``handler``: optional, kept so the original design's files still load. ``type`` may
  only be ``"function"``. ``handler`` is a label recorded in the tool's
  metadata; what runs is ``implementation.handler`` (``builtin`` and
  ``internal``), the mock response or the HTTP request.
* ``output_schema`` and the options of `forge.tools.model.options.ToolOptions`
  (metadata such as ``category``, ``tags`` and ``examples``, ``annotations``,
  ``title``, ``timeout``, ``max_concurrency``, ``error_details``, ``output_limit``):
  optional.
  Not ``placement``, which follows the implementation (a mock runs inline),
  nor ``extra``, which records the implementation.

A definition is checked completely (every problem is reported at once), its
implementation resolved and the tool compiled before it is returned, so an
invalid one is never half-registered.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from forge.core.errors import ToolDefinitionError
from forge.core.text import article
from forge.tools.config.handlers import HandlerRegistry
from forge.tools.model.options import OPTION_NAMES
from forge.tools.model.tool import Tool
from forge.tools.schema import check_name

if TYPE_CHECKING:
    from forge.tools.config._network import NetworkPolicy
    from forge.tools.config.http import HttpSpec
    from forge.tools.values.results import ToolResult

__all__ = ["IMPLEMENTATION_TYPES", "build_tool"]

IMPLEMENTATION_TYPES = ("mock", "builtin", "internal", "http")
# The implementation decides where a handler runs, and the loader writes ``extra``.
_NOT_IN_FILES = {"placement", "extra"}
_PASSED_ON = (OPTION_NAMES - _NOT_IN_FILES) | {"parameters", "output_schema"}
_KEYS = _PASSED_ON | {"type", "handler", "implementation"}
_REQUIRED = ("description", "parameters", "implementation")
T = TypeVar("T")


class _Problems:
    """Every problem of one definition, collected so that all are reported at once."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def add(self, message: str) -> None:
        self.messages.append(message)

    def attempt(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """Return ``fn(...)``, or record its `ToolDefinitionError` and return ``None``."""
        try:
            return fn(*args, **kwargs)
        except ToolDefinitionError as exc:
            self.add(exc.message)
            return None


def build_tool(
    definition: Any,
    *,
    builtins: HandlerRegistry,
    internal: HandlerRegistry,
    allow_private_network: bool | Iterable[str] = False,
) -> Tool:
    """Build and compile the `Tool` a configuration definition describes.

    Raises:
        ToolDefinitionError: Naming the tool and every problem of the definition
            (separated by ``"; "``).
    """
    if not isinstance(definition, Mapping):
        raise ToolDefinitionError(
            "<definition>", f"a tool definition must be a mapping, got {type(definition).__name__}"
        )
    problems = _Problems()
    name = problems.attempt(check_name, definition.get("name"))
    _check_shape(definition, problems)
    impl = definition.get("implementation")
    kind = impl.get("type") if isinstance(impl, Mapping) else None
    schema = definition.get("parameters")
    found = None
    if isinstance(impl, Mapping) and kind in IMPLEMENTATION_TYPES:
        found = _implementation(
            name or "<invalid>", impl, schema if isinstance(schema, Mapping) else None,
            problems, builtins=builtins, internal=internal, allow_private=allow_private_network,
        )  # fmt: skip
    handler, cheap = found or (_unavailable, False)
    built = problems.attempt(_record_tool, name, definition, handler, cheap)
    if problems.messages or built is None or not isinstance(impl, Mapping):
        raise ToolDefinitionError(
            name or _raw_name(definition), "; ".join(dict.fromkeys(problems.messages))
        )
    extra = {"implementation": kind}
    if "handler" in definition:
        extra["handler"] = definition["handler"]
    if kind in ("builtin", "internal"):
        extra["target"] = impl["handler"]
    result = built.replace(metadata=dataclasses.replace(built.metadata, extra=extra))
    return result.compile()


def _raw_name(definition: Mapping[str, Any]) -> str:
    raw = definition.get("name")
    return raw if isinstance(raw, str) and raw else "<invalid>"


def _check_shape(definition: Mapping[str, Any], problems: _Problems) -> None:
    unknown = sorted(str(k) for k in definition if k not in _KEYS)
    if unknown:
        problems.add(f"unknown key(s) {unknown}; a definition may hold: {', '.join(sorted(_KEYS))}")
    for key in _REQUIRED:
        if key not in definition:
            problems.add(f"the definition has no {key!r}")
    if "type" in definition and definition["type"] != "function":
        problems.add(f"'type' must be \"function\" (or left out), got {definition['type']!r}")
    handler = definition.get("handler")
    if "handler" in definition and (not isinstance(handler, str) or not handler.strip()):
        problems.add("'handler' must be a non-empty string (it is an optional label)")
    if "parameters" in definition and not isinstance(definition["parameters"], Mapping):
        problems.add("'parameters' must be a JSON Schema object")
    if "implementation" not in definition:
        return
    impl = definition["implementation"]
    if not isinstance(impl, Mapping) or impl.get("type") not in IMPLEMENTATION_TYPES:
        got = impl.get("type") if isinstance(impl, Mapping) else impl
        problems.add(
            f"'implementation.type' must be one of {', '.join(IMPLEMENTATION_TYPES)}; got {got!r}"
        )


def _record_tool(
    name: str | None, definition: Mapping[str, Any], handler: Callable[..., Any], cheap: bool
) -> Tool:
    """The tool without its implementation details, checking the record's own fields.

    Parts already reported as missing or malformed are stood in for, so that the
    remaining fields (description, schema, metadata, examples) are checked too.
    """
    from forge.tools.model.records import from_record

    record = {k: v for k, v in definition.items() if k in _PASSED_ON}
    record["name"] = name or "_"
    record.setdefault("description", "-")
    if not isinstance(record.get("parameters"), Mapping):
        record["parameters"] = {"type": "object"}
        record.pop("examples", None)
    placement = record.get("placement") or ("inline" if cheap else "auto")
    return from_record({**record, "handler": handler, "placement": placement})


def _unavailable(_arguments: dict[str, Any], /) -> None:
    """Stands in for an implementation that could not be resolved (never registered)."""


def _implementation(
    name: str,
    impl: Mapping[str, Any],
    schema: Mapping[str, Any] | None,
    problems: _Problems,
    *,
    builtins: HandlerRegistry,
    internal: HandlerRegistry,
    allow_private: bool | Iterable[str],
) -> tuple[Callable[..., Any], bool] | None:
    kind = impl["type"]
    if kind == "mock":
        _only(impl, {"type", "mock_response"}, problems)
        if "mock_response" not in impl:
            problems.add("a mock implementation needs 'mock_response'")
            return None
        mock = problems.attempt(_mock, name, impl["mock_response"])
        return (mock, True) if mock is not None else None
    if kind == "http":
        return _http(name, impl, schema, problems, allow_private)
    _only(impl, {"type", "handler"}, problems)
    handlers = builtins if kind == "builtin" else internal
    target = impl.get("handler")
    if not isinstance(target, str):
        problems.add(
            f"{article(kind)} implementation needs 'handler', the name of a registered {kind} "
            "handler (the definition's top-level 'handler' is only a label)"
        )
        return None
    fn = handlers.get(target)
    if fn is None:
        known = ", ".join(handlers.names()) or "(none registered)"
        problems.add(
            f"unknown {kind} handler {target!r}; handlers are never imported from "
            f"configuration, register it first. Registered {kind} handlers: {known}"
        )
        return None
    return fn, False


def _http(
    name: str,
    impl: Mapping[str, Any],
    schema: Mapping[str, Any] | None,
    problems: _Problems,
    allow_private: bool | Iterable[str],
) -> tuple[Callable[..., Any], bool] | None:
    from forge.tools.config._network import NetworkPolicy
    from forge.tools.config.http import parse_http_spec

    try:
        policy = NetworkPolicy.coerce(allow_private)
    except ValueError as exc:
        problems.add(f"invalid allow_private_network: {exc}")
        return None
    if schema is None:  # the request is checked against the parameters, reported already
        return None
    spec = problems.attempt(parse_http_spec, name, impl, schema)
    return (_http_call(name, spec, policy), False) if spec is not None else None


def _http_call(name: str, spec: HttpSpec, policy: NetworkPolicy) -> Callable[..., Any]:
    """The handler performing ``spec``; the HTTP client code is imported by its first call."""
    handler: Callable[[dict[str, Any]], Awaitable[ToolResult]] | None = None

    async def call(arguments: dict[str, Any], /) -> ToolResult:
        nonlocal handler
        if handler is None:
            from forge.tools.config._http_call import http_handler

            handler = http_handler(name, spec, policy=policy)
        return await handler(arguments)

    return call


def _only(impl: Mapping[str, Any], allowed: set[str], problems: _Problems) -> None:
    unknown = sorted(str(k) for k in impl if k not in allowed)
    if unknown:
        problems.add(
            f"unknown {impl['type']} implementation key(s) {unknown}; allowed: {sorted(allowed)}"
        )


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
