"""A linter for tool definitions (``forge-tools validate``).

It reports, per tool and per provider, what a provider would reject or what a
conversion would change, so problems surface in CI rather than at the first
API call. Errors are definitions that cannot be used as given; warnings are
changes or risks. What an export would change or leave out comes from the
export's own reports (`conversion_findings` over ``registry.conversion(...)``),
so ``validate`` and ``export`` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from forge.tools.formats.report import NOTABLE

if TYPE_CHECKING:
    from forge.tools.formats.report import Conversion
    from forge.tools.model.tool import Tool

__all__ = ["LintFinding", "conversion_findings", "lint_tool", "lint_tools"]


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
    for line in tool.schema_rewrites:
        add("all", "warning", f"the schema was rewritten to JSON Schema 2020-12: {line}")
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
    return out


def conversion_findings(
    conversions: Iterable[Conversion], *, actions: Collection[str] = NOTABLE
) -> list[LintFinding]:
    """One finding per change of each export whose action is in ``actions``.

    A tool left out is an error. By default the warnings are what was shortened,
    moved into a description, dropped or sent without strict mode; notes and
    faithful rewrites (inlined references, ``nullable``) are not findings: the
    reports hold them.
    """
    out: list[LintFinding] = []
    for conversion in conversions:
        provider = conversion.provider + (" (strict)" if conversion.strict else "")
        for report in conversion.reports:
            for change in (c for c in report.changes if c.action in actions):
                severity: Literal["error", "warning"] = (
                    "error" if change.action == "excluded" else "warning"
                )
                out.append(LintFinding(tool=report.tool, provider=provider, severity=severity,
                                       message=str(change)))  # fmt: skip
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
    from forge.tools.formats import accepts_null

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
