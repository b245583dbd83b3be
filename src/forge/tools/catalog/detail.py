"""Everything the catalog shows about one tool, as JSON-ready data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.core.errors import ToolDefinitionError
from forge.tools.catalog.errors import needs_confirmation
from forge.tools.catalog.providers import PROVIDER_LABELS, provider_entries
from forge.tools.formats import PROVIDERS
from forge.tools.formats.report import NOTABLE
from forge.tools.model.lint import lint_tool
from forge.tools.values.jsonable import to_jsonable

if TYPE_CHECKING:
    from forge.tools.model.lint import LintFinding
    from forge.tools.model.tool import Tool
    from forge.tools.values.metadata import ToolMetadata

__all__ = ["conversion_entries", "lint_entries", "metadata_dict", "tool_detail"]


def tool_detail(tool: Tool) -> dict[str, Any]:
    """The tool's page without metrics: description, metadata, schemas, providers, lint.

    ``needs_confirmation`` says whether a run asks for ``"confirm": true`` first.

    A tool whose definition cannot be built (types pydantic cannot describe) still has a
    page: no schemas, each provider's entry giving the reason, and the reason as a lint error.
    """
    meta = tool.metadata
    page: dict[str, Any] = {
        "name": tool.name,
        "display_name": meta.display_name or tool.annotations.title or tool.name,
        "description": tool.description,
        "category": meta.category.value,
        "tags": list(meta.tags),
        "metadata": metadata_dict(meta),
        "annotations": tool.annotations.to_mcp(),
        "needs_confirmation": needs_confirmation(tool.annotations),
    }
    try:
        input_schema = to_jsonable(tool.parameters)
        output_schema = tool.output_schema
    except ToolDefinitionError as exc:
        broken: dict[str, Any] = {
            "strict": None,
            "default": None,
            "report": {"strict": [], "default": []},
            "error": exc.message,
        }
        return {
            **page,
            "input_schema": None,
            "output_schema": None,
            "providers": [
                {"id": p, "label": PROVIDER_LABELS.get(p, p), **broken} for p in PROVIDERS
            ],
            "lint": [
                {"code": "definition", "severity": "error", "message": exc.message, "where": "all"}
            ],
        }
    providers = provider_entries(tool)
    return {
        **page,
        "input_schema": input_schema,
        "output_schema": to_jsonable(output_schema) if output_schema is not None else None,
        "providers": providers,
        "lint": lint_entries(lint_tool(tool)) + conversion_entries(providers),
    }


def metadata_dict(meta: ToolMetadata) -> dict[str, Any]:
    """Every field of `ToolMetadata`, JSON-safe, plus a ``deprecation`` sentence (or null)."""
    deprecation = None
    if meta.deprecated:
        deprecation = (
            f"Deprecated: use {meta.replaced_by!r} instead." if meta.replaced_by else "Deprecated."
        )
    return {
        "display_name": meta.display_name,
        "category": meta.category.value,
        "tags": list(meta.tags),
        "version": meta.version,
        "author": meta.author,
        "examples": [to_jsonable(e.to_dict()) for e in meta.examples],
        "notes": meta.usage_notes,
        "limitations": list(meta.limitations),
        "deprecated": meta.deprecated,
        "replaced_by": meta.replaced_by,
        "deprecation": deprecation,
        "extra": to_jsonable(meta.extra),
    }


def lint_entries(findings: list[LintFinding]) -> list[dict[str, str]]:
    """Findings as ``{"code", "severity", "message", "where"}``.

    ``code`` is ``definition`` for a problem of the definition itself (every provider) and
    ``provider`` for one a provider would reject or change; ``where`` names the provider.
    """
    return [
        {
            "code": "definition" if f.provider == "all" else "provider",
            "severity": f.severity,
            "message": f.message,
            "where": f.provider,
        }
        for f in findings
    ]


def conversion_entries(providers: list[dict[str, Any]]) -> list[dict[str, str]]:
    """What the linter says of the conversions: each change a person should look at.

    As ``forge-tools validate`` reports them: a tool left out is an error, a shortened
    description, a dropped keyword or strict mode given up a warning (``code``: ``conversion``).
    """
    out: list[dict[str, str]] = []
    for entry in providers:
        for mode, changes in entry["report"].items():
            where = entry["id"] + (" (strict)" if mode == "strict" else "")
            out.extend(
                {
                    "code": "conversion",
                    "severity": "error" if c["kind"] == "excluded" else "warning",
                    "message": f"{c['path']}: {c['keyword']} {c['kind']}: {c['message']}",
                    "where": where,
                }
                for c in changes
                if c["kind"] in NOTABLE
            )
    return out
