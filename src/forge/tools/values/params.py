"""`ToolParameter`: how a `BaseTool` declares one parameter."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ToolParameter", "parameters_schema"]

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object")
_PARAM_KEYS = {"name", "type", "description", "required", "default", "enum", "items"}


@dataclass(frozen=True, slots=True)
class ToolParameter:
    """One parameter of a tool.

    Args:
        name: The argument name.
        type: A JSON Schema type: string, integer, number, boolean, array or object.
        description: What the parameter means, for the model.
        required: Whether the model must supply it.
        default: The value used when it is omitted (shown in the schema; ``None`` = no default).
        enum: The allowed values, if restricted.
        items: The JSON Schema of array items (only for ``type="array"``).
    """

    name: str
    type: str
    description: str = ""
    required: bool = True
    default: Any = None
    enum: Sequence[Any] | None = None
    items: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"a parameter name must be a non-empty string, got {self.name!r}")
        if self.type not in JSON_TYPES:
            raise ValueError(
                f"parameter {self.name!r} has type {self.type!r}; "
                f"use one of: {', '.join(JSON_TYPES)}"
            )
        if self.items is not None and self.type != "array":
            raise ValueError(f"parameter {self.name!r}: 'items' is only valid for type 'array'")
        if self.enum is not None and (isinstance(self.enum, str) or not self.enum):
            raise ValueError(f"parameter {self.name!r}: 'enum' must be a non-empty list")

    def to_json_schema(self) -> dict[str, Any]:
        """Return the JSON Schema of this parameter."""
        schema: dict[str, Any] = {"type": self.type}
        if self.description:
            schema["description"] = self.description
        if self.enum:
            schema["enum"] = list(self.enum)
        if self.items is not None:
            schema["items"] = dict(self.items)
        if self.default is not None:
            schema["default"] = self.default
        return schema

    @classmethod
    def from_mapping(cls, value: Mapping[str, Any]) -> ToolParameter:
        """Build a parameter from a parameter-list mapping (``{name, type, required, ...}``)."""
        if not isinstance(value, Mapping):
            raise TypeError(
                "each parameter must be a mapping such as {name: city, type: string}, "
                f"got {type(value).__name__} {value!r:.60}"
            )
        unknown = set(value) - _PARAM_KEYS
        if unknown:
            raise ValueError(
                f"parameter {value.get('name')!r} has unknown key(s) {sorted(unknown)}; "
                f"allowed: {sorted(_PARAM_KEYS)}"
            )
        if "name" not in value or "type" not in value:
            raise ValueError(f"a parameter needs 'name' and 'type', got keys {sorted(value)}")
        return cls(**value)


def parameters_schema(params: Iterable[ToolParameter]) -> dict[str, Any]:
    """Return the closed object schema for a list of parameters."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in params:
        if p.name in properties:
            raise ValueError(f"parameter {p.name!r} is declared twice")
        properties[p.name] = p.to_json_schema()
        if p.required:
            required.append(p.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema
