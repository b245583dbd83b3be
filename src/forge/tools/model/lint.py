"""A linter for tool definitions (SPEC §10, ``forge-tools validate``).

It reports, per tool and per provider, what a provider would reject or what a
conversion would change, so problems surface in CI rather than at the first
API call. Errors are definitions that cannot be used as given; warnings are
changes or risks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["LintFinding", "lint_tool", "lint_tools"]

MAX_DESCRIPTION = 1024
# Keywords Gemini's OpenAPI-subset `Schema` has no field for: a conversion rewrites or drops them.
_GEMINI_REWRITTEN = (
    "$ref", "$defs", "additionalProperties", "patternProperties", "propertyNames", "const",
    "oneOf", "allOf", "not", "if", "prefixItems", "contains", "dependentRequired",
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class LintFinding:
    """One problem or change the linter found."""

    tool: str
    """The tool it is about."""
    provider: str
    """The provider it concerns, or ``all``."""
    severity: Literal["error", "warning"]
    """``error``: unusable as given; ``warning``: changed or risky."""
    message: str
    """What and how to fix it."""

    def to_dict(self) -> dict[str, str]:
        """Return the finding as a JSON-ready dict."""
        return {
            "tool": self.tool, "provider": self.provider,
            "severity": self.severity, "message": self.message,
        }  # fmt: skip


def lint_tools(tools: Iterable[Tool]) -> list[LintFinding]:
    """Lint every tool, in order."""
    return [finding for t in tools for finding in lint_tool(t)]


def lint_tool(tool: Tool) -> list[LintFinding]:
    """Return what providers would reject or change in ``tool``'s definition."""
    out: list[LintFinding] = []

    def add(provider: str, severity: Literal["error", "warning"], message: str) -> None:
        out.append(LintFinding(tool=tool.name, provider=provider, severity=severity,
                               message=message))  # fmt: skip

    if not tool.description.strip():
        add("all", "error", "the description is empty; models choose tools by their description")
    elif len(tool.description) > MAX_DESCRIPTION:
        add("openai", "error", f"the description is {len(tool.description)} characters; "
            f"OpenAI rejects more than {MAX_DESCRIPTION}")  # fmt: skip
    schema = tool.parameters
    for path, prop in _properties(schema):
        if not isinstance(prop, Mapping) or not prop.get("description"):
            add("all", "warning", f"parameter {path!r} has no description")
    optional = _optional(schema)
    if optional:
        add("openai", "warning", _strict_optional_message(schema, optional))
    opened = ", ".join(_open_objects(schema))
    if opened:
        add("openai", "warning", f"strict mode closes objects that allow extra keys ({opened}): "
            "additionalProperties becomes false")  # fmt: skip
    used = sorted({k for k in _keywords(schema) if k in _GEMINI_REWRITTEN})
    if used:
        add("gemini", "warning", f"the schema uses {', '.join(used)}, which Gemini does not "
            "accept as is; the conversion inlines or rewrites them")  # fmt: skip
    return out


def _properties(schema: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if not isinstance(schema, Mapping):
        return
    for name, prop in (schema.get("properties") or {}).items():
        path = f"{prefix}{name}"
        yield path, prop
        if isinstance(prop, Mapping):
            yield from _properties(prop, path + ".")
            yield from _properties(prop.get("items"), path + "[].")


def _strict_optional_message(schema: Mapping[str, Any], optional: list[str]) -> str:
    """What strict mode does to optional parameters, and what execution must do about it."""
    from forge.tools.formats._schema import accepts_null

    properties = schema.get("properties") or {}
    defaulted = [n for n in optional if not accepts_null(properties[n], schema)]
    message = (
        f"strict mode makes the optional parameter(s) {', '.join(optional)} required and nullable"
    )
    if not defaulted:
        return message
    return (
        f"{message}; a null the model sends for {', '.join(defaulted)} counts as left out (the "
        "default applies) on every execution path, with no switch to set"
    )


def _optional(schema: Mapping[str, Any]) -> list[str]:
    required = set(schema.get("required") or ())
    return [name for name in (schema.get("properties") or {}) if name not in required]


def _open_objects(schema: Any, path: str = "(root)") -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    out = []
    if schema.get("type") == "object" and schema.get("additionalProperties", True) is not False:
        out.append(path)
    for name, prop in (schema.get("properties") or {}).items():
        out.extend(_open_objects(prop, name if path == "(root)" else f"{path}.{name}"))
    return out


def _keywords(schema: Any) -> Iterator[str]:
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if key == "additionalProperties" and value is False:
                continue  # closing an object loses nothing when dropped
            yield str(key)
            if key in ("properties", "$defs", "patternProperties") and isinstance(value, Mapping):
                for sub in value.values():
                    yield from _keywords(sub)
            elif key not in {"enum", "const"}:
                yield from _keywords(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _keywords(item)
