"""Descriptive metadata and behavioural annotations of a tool."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from forge.tools.values.categories import ToolCategory
from forge.tools.values.readonly import freeze, thaw

__all__ = ["ToolAnnotations", "ToolExample", "ToolMetadata"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExample:
    """One example call of a tool, validated against the tool's parameters."""

    description: str
    """What this example demonstrates."""
    input: Mapping[str, Any]
    """The arguments of the example call (kept as a read-only copy)."""
    output: Any = None
    """The expected output, if worth showing (JSON values kept as a read-only copy)."""
    explanation: str | None = None
    """Why this works, if not obvious."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "input", freeze(self.input))
        object.__setattr__(self, "output", freeze(self.output))

    @classmethod
    def coerce(cls, value: ToolExample | Mapping[str, Any]) -> ToolExample:
        """Accept a `ToolExample` or a mapping with the same keys."""
        if isinstance(value, ToolExample):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(
                f"an example must be a mapping or ToolExample, got {type(value).__name__}"
            )
        unknown = set(value) - {"description", "input", "output", "explanation"}
        if unknown:
            raise ValueError(f"unknown example key(s): {', '.join(sorted(unknown))}")
        if not isinstance(value.get("input"), Mapping):
            raise ValueError("an example needs an 'input' mapping of arguments")
        return cls(
            description=str(value.get("description", "")),
            input=dict(value["input"]),
            output=value.get("output"),
            explanation=value.get("explanation"),
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the example as a plain (mutable) JSON-ready dict, omitting empty fields."""
        out: dict[str, Any] = {"description": self.description, "input": thaw(self.input)}
        if self.output is not None:
            out["output"] = thaw(self.output)
        if self.explanation:
            out["explanation"] = self.explanation
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolMetadata:
    """Information for people, prompts and search; never changes how a tool runs."""

    display_name: str | None = None
    """A human-readable name."""
    category: ToolCategory = ToolCategory.OTHER
    """The primary category."""
    tags: tuple[str, ...] = ()
    """Extra keywords for search and filtering."""
    examples: tuple[ToolExample, ...] = ()
    """Example calls, each valid against the tool's parameters."""
    usage_notes: str | None = None
    """Guidance on how to use the tool."""
    limitations: tuple[str, ...] = ()
    """Known limitations."""
    version: str | None = None
    """The tool's version."""
    author: str | None = None
    """Who wrote the tool."""
    deprecated: bool = False
    """Whether the tool should no longer be used."""
    replaced_by: str | None = None
    """The tool to use instead, when deprecated."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Free-form application data (JSON values kept as a read-only copy)."""

    @classmethod
    def build(
        cls,
        *,
        category: ToolCategory | str | None = None,
        tags: Iterable[str] | str = (),
        examples: Iterable[ToolExample | Mapping[str, Any]] = (),
        limitations: Iterable[str] | str = (),
        **fields: Any,
    ) -> ToolMetadata:
        """Build metadata from loosely typed values (strings for categories, lists, dicts).

        A single string for ``tags`` or ``limitations`` is one tag or one limitation.
        """
        return cls(
            category=ToolCategory.parse(category) if category is not None else ToolCategory.OTHER,
            tags=string_tuple(tags, "tags"),
            examples=tuple(ToolExample.coerce(e) for e in examples),
            limitations=string_tuple(limitations, "limitations"),
            **fields,
        )

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", freeze(self.extra))


def string_tuple(values: Iterable[str] | str, what: str) -> tuple[str, ...]:
    """``values`` as a tuple of strings; one string is one value (not its characters).

    Raises:
        TypeError: A value is not a string.
    """
    out = (values,) if isinstance(values, str) else tuple(values)
    for v in out:
        if not isinstance(v, str):
            raise TypeError(f"{what} must contain only strings, got {type(v).__name__}")
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolAnnotations:
    """Behaviour hints (MCP tool annotations); ``None`` means unspecified."""

    title: str | None = None
    """A human-readable title."""
    read_only: bool | None = None
    """The tool does not modify its environment (MCP ``readOnlyHint``)."""
    destructive: bool | None = None
    """The tool may perform destructive updates (MCP ``destructiveHint``)."""
    idempotent: bool | None = None
    """Repeated calls with the same arguments have no additional effect (``idempotentHint``)."""
    open_world: bool | None = None
    """The tool interacts with an open world of external entities (``openWorldHint``)."""

    @classmethod
    def coerce(cls, value: ToolAnnotations | Mapping[str, Any] | None) -> ToolAnnotations:
        """Accept annotations, or a mapping in snake_case or MCP's camelCase spelling."""
        if value is None:
            return _NO_ANNOTATIONS
        if isinstance(value, ToolAnnotations):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(f"annotations must be a mapping, got {type(value).__name__}")
        kwargs: dict[str, Any] = {}
        for key, val in value.items():
            name = _MCP_KEYS.get(key, key)
            if name not in {"title", "read_only", "destructive", "idempotent", "open_world"}:
                raise ValueError(f"unknown annotation {key!r}")
            if name != "title" and val is not None and not isinstance(val, bool):
                raise TypeError(f"annotation {key!r} must be true, false or null")
            kwargs[name] = val
        return cls(**kwargs)

    def to_mcp(self) -> dict[str, Any]:
        """Return the MCP ``annotations`` object, omitting unspecified hints."""
        reverse = {v: k for k, v in _MCP_KEYS.items()}
        values = {
            "title": self.title,
            "read_only": self.read_only,
            "destructive": self.destructive,
            "idempotent": self.idempotent,
            "open_world": self.open_world,
        }
        return {reverse[k]: v for k, v in values.items() if v is not None}


_MCP_KEYS = {
    "title": "title",
    "readOnlyHint": "read_only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open_world",
}
_NO_ANNOTATIONS = ToolAnnotations()
