"""Helpers shared by the per-provider parsers: field access, ids, errors."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from forge.core.errors import ForgeError
from forge.core.text import shown
from forge.tools.values.calls import ToolCall

__all__ = [
    "GENERATED_ID_PREFIX",
    "ToolCallFormatError",
    "cut_off_call",
    "field",
    "generated_id",
    "given_id",
    "is_generated_id",
    "items",
    "to_plain",
]

#: Ids that forge-tools made up for a call that came without one (Gemini before ids,
#: Ollama, MCP params) start with this; `format_results` leaves them out of the wire
#: messages of providers that match results by name and order.
GENERATED_ID_PREFIX = "forge-call-"


class ToolCallFormatError(ForgeError, ValueError):
    """A response, chunk or result is not in the shape a provider uses for tool calls."""


def field(obj: Any, key: str, alt: str | None = None) -> Any:
    """``obj[key]`` for a mapping or ``obj.key`` for an SDK object; ``alt`` is tried next.

    ``alt`` is the other spelling of the key (``function_call`` for ``functionCall``):
    wire JSON and SDK attributes spell some keys differently.
    """
    if type(obj) is dict or isinstance(obj, Mapping):
        value = obj.get(key)
        if value is None and alt is not None:
            value = obj.get(alt)
        return value
    value = getattr(obj, key, None)
    if value is None and alt is not None:
        value = getattr(obj, alt, None)
    if value is not None and type(value).__name__ in _SENTINELS:
        return None
    return value


# How SDKs spell "not set" on their objects (mistralai's UNSET, openai's NOT_GIVEN, ...).
_SENTINELS = frozenset({"Unset", "NotGiven", "Omit", "_NotGiven", "UnsetType"})


def items(value: Any) -> list[Any]:
    """A list of the elements of ``value`` (``None`` gives ``[]``)."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, tuple):
        return list(value)
    raise ToolCallFormatError(f"expected a list, got {type(value).__name__}")


def given_id(value: Any, where: str) -> str | None:
    """The id a provider gave a call (``None`` when it gave none).

    Providers send ids as strings; anything else is malformed output, not an id.

    Raises:
        ToolCallFormatError: ``value`` is not a string.
    """
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    raise ToolCallFormatError(
        f"{where} has an id that is {type(value).__name__} {shown(value, 80)}, not a string; "
        "tool call ids are strings"
    )


def generated_id(index: int, name: str, arguments: Any) -> str:
    """A stable id for a call that came without one.

    The same call at the same position always gets the same id, so parsing a response
    twice gives equal calls; the digest keeps calls of different turns apart.
    """
    import hashlib

    try:
        text = json.dumps(arguments, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):  # mixed keys, huge integers, deep nesting
        text = type(arguments).__name__
    seed = f"{name}\0{text}".encode("utf-8", "surrogatepass")  # a model may send lone surrogates
    digest = hashlib.blake2b(seed, digest_size=5).hexdigest()
    return f"{GENERATED_ID_PREFIX}{index}-{digest}"


def cut_off_call(call_id: str, name: str) -> ToolCall:
    """A call whose output ended before any of its arguments arrived (not run: ``{}`` is
    not what the model meant to send)."""
    problem = (
        "The arguments are incomplete: the output ended before any of them arrived (the "
        "call was cut off). Received: nothing"
    )
    return ToolCall(call_id, name, {}, argument_error=problem, raw_arguments="")


def is_generated_id(call_id: str | None) -> bool:
    """Whether ``call_id`` was made by `generated_id`."""
    return call_id is None or call_id.startswith(GENERATED_ID_PREFIX)


def to_plain(obj: Any) -> Any:
    """A JSON-like copy of an SDK object (pydantic models are dumped, wire names kept).

    Fields the SDK itself leaves out of a request (``__api_exclude__``: the ``parsed`` and
    ``parsed_arguments`` of openai's parsed responses) are left out too.
    """
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        exclude = getattr(obj, "__api_exclude__", None)
        return dump(mode="json", by_alias=True, exclude_none=True, exclude=exclude or None)
    return obj
