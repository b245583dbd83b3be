"""`ToolCall`: one call a model asked for."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

__all__ = ["ToolCall"]

_ids = itertools.count(1)


def _next_id() -> str:
    return f"call_{next(_ids)}"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A request to run one tool with some arguments.

    ``ToolCall(id, name, arguments)`` builds one directly; `forge.tools.parse_tool_calls`
    and `forge.tools.ToolCallAccumulator` build them from provider responses.

    Args:
        id: The provider's call id, used to match results to calls.
        name: The tool to run.
        arguments: The arguments, as a JSON object.
        repaired: The model's arguments were not a valid JSON object and were repaired.
        argument_error: Why the model's arguments could not be decoded. Such a call is
            not run: executing it gives an ``invalid_json`` result quoting this text.
        raw_arguments: The arguments as the model sent them, kept when they were
            repaired or could not be decoded.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    _: KW_ONLY
    repaired: bool = False
    argument_error: str | None = None
    raw_arguments: str | None = None

    @classmethod
    def create(cls, name: str, arguments: Mapping[str, Any] | None = None) -> ToolCall:
        """Make a call with a generated id."""
        return cls(_next_id(), name, arguments if arguments is not None else {})

    @classmethod
    def from_raw(cls, call_id: str, name: str, raw_arguments: Any) -> ToolCall:
        """Make a call from the arguments as a model sent them (JSON text or an object).

        Text is decoded, and repaired where that is safe (see `forge.tools.values._repair`); a
        call whose text cannot be decoded carries the problem in ``argument_error``.
        """
        kind = type(raw_arguments)
        if kind is dict and cls is ToolCall:
            return _clean_call(call_id, name, raw_arguments)
        if kind is str and cls is ToolCall:
            try:
                value = (_loads or _load_loads())(raw_arguments)
            except (ValueError, RecursionError):  # decode_arguments says what is wrong
                pass
            else:
                if type(value) is dict:
                    return _clean_call(call_id, name, value)
        from forge.tools.values._repair import decode_arguments

        decoded = decode_arguments(raw_arguments)
        if not decoded.repaired and decoded.error is None:
            return cls(call_id, name, decoded.arguments)
        return cls(
            call_id,
            name,
            decoded.arguments,
            repaired=decoded.repaired,
            argument_error=decoded.error,
            raw_arguments=raw_arguments if isinstance(raw_arguments, str) else None,
        )

    @classmethod
    def coerce(cls, value: ToolCall | Mapping[str, Any]) -> ToolCall:
        """Accept a `ToolCall` or a mapping with ``name``, ``arguments`` and optional ``id``.

        ``arguments`` may be an object or JSON text (decoded as by `from_raw`).
        """
        if isinstance(value, ToolCall):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(
                f"a tool call must be a ToolCall or a mapping, got {type(value).__name__}"
            )
        if not isinstance(value.get("name"), str):
            raise ValueError(f"a tool call mapping needs a string 'name', got keys {sorted(value)}")
        call_id = value.get("id")
        call_id = str(call_id) if call_id is not None and call_id != "" else _next_id()
        arguments = value.get("arguments")
        if arguments is None or isinstance(arguments, Mapping):
            return cls(call_id, value["name"], arguments if arguments is not None else {})
        return cls.from_raw(call_id, value["name"], arguments)


# Parsing builds one call per tool call a model makes, so the clean path skips the frozen
# dataclass __init__ (one object.__setattr__ per field) and sets the slots directly.
_new = object.__new__
_SET = tuple(
    ToolCall.__dict__[f].__set__
    for f in ("id", "name", "arguments", "repaired", "argument_error", "raw_arguments")
)
_set_id, _set_name, _set_arguments, _set_repaired, _set_error, _set_raw = _SET


def _clean_call(call_id: str, name: str, arguments: dict[str, Any]) -> ToolCall:
    """``ToolCall(call_id, name, arguments)`` for well-formed arguments, faster."""
    call: ToolCall = _new(ToolCall)
    _set_id(call, call_id)
    _set_name(call, name)
    _set_arguments(call, arguments)
    _set_repaired(call, False)
    _set_error(call, None)
    _set_raw(call, None)
    return call


_loads: Callable[[str], Any] | None = None


def _load_loads() -> Callable[[str], Any]:
    """The fastest exact JSON decoder at hand (pydantic-core's, else the standard one).

    pydantic-core is imported on first use, not with `forge.tools`.
    """
    global _loads  # noqa: PLW0603 - one lazily bound function
    from forge.tools.values._repair import fast_loads

    _loads = fast_loads
    return _loads
