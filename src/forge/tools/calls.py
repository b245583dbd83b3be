"""`ToolCall`: one call a model asked for."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolCall"]

_ids = itertools.count(1)


def _next_id() -> str:
    return f"call_{next(_ids)}"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A request to run one tool with some arguments.

    Args:
        id: The provider's call id, used to match results to calls.
        name: The tool to run.
        arguments: The arguments, as a JSON object.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, name: str, arguments: Mapping[str, Any] | None = None) -> ToolCall:
        """Make a call with a generated id."""
        return cls(_next_id(), name, arguments if arguments is not None else {})

    @classmethod
    def coerce(cls, value: ToolCall | Mapping[str, Any]) -> ToolCall:
        """Accept a `ToolCall` or a mapping with ``name``, ``arguments`` and optional ``id``."""
        if isinstance(value, ToolCall):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(
                f"a tool call must be a ToolCall or a mapping, got {type(value).__name__}"
            )
        if not isinstance(value.get("name"), str):
            raise ValueError(f"a tool call mapping needs a string 'name', got keys {sorted(value)}")
        call_id = value.get("id")
        arguments = value.get("arguments")
        return cls(
            str(call_id) if call_id is not None and call_id != "" else _next_id(),
            value["name"],
            arguments if arguments is not None else {},
        )
