"""Each provider's definition of one tool, strict and not, with its conversion report.

Every provider `forge.tools.formats.to_provider` supports gets an entry. A definition
that is not JSON (LangChain's ``StructuredTool``) is shown by what it sends: its name,
description and arguments schema. A provider that cannot take the tool, or whose
integration is not installed, gets ``"error"`` saying why instead of a definition.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from forge.core.logging import get_logger
from forge.tools.formats import PROVIDERS, convert
from forge.tools.values.jsonable import to_jsonable

if TYPE_CHECKING:
    from forge.tools.formats.report import ConversionReport
    from forge.tools.model.tool import Tool

__all__ = ["PROVIDER_LABELS", "provider_entries", "provider_entry"]

logger = get_logger("tools.catalog")

PROVIDER_LABELS: dict[str, str] = {
    "openai": "OpenAI Chat",
    "openai-responses": "OpenAI Responses",
    "anthropic": "Anthropic",
    "gemini": "Gemini",
    "ollama": "Ollama",
    "bedrock": "Amazon Bedrock",
    "mistral": "Mistral",
    "mcp": "MCP",
    "langchain": "LangChain",
}
"""A human label per provider id (an id without one is shown as itself)."""


def provider_entries(tool: Tool) -> list[dict[str, Any]]:
    """One entry per supported provider, in documentation order."""
    return [provider_entry(tool, provider) for provider in PROVIDERS]


def provider_entry(tool: Tool, provider: str) -> dict[str, Any]:
    """``{"id", "label", "strict", "default", "report": {"strict", "default"}}``.

    With ``"error"`` too when the provider cannot take the tool in a mode (its definition
    is then ``None``).
    """
    entry: dict[str, Any] = {"id": provider, "label": PROVIDER_LABELS.get(provider, provider)}
    reports: dict[str, list[dict[str, str]]] = {}
    errors: dict[str, str] = {}
    for mode, strict in (("strict", True), ("default", False)):
        try:
            definition, report = convert(tool, provider, strict=strict)
        except Exception as exc:  # one provider's failure never breaks the page
            logger.debug("converting %r for %s failed", tool.name, provider, exc_info=True)
            entry[mode] = None
            reports[mode] = []
            errors[mode] = str(exc)
            continue
        entry[mode] = json_definition(definition)
        reports[mode] = report_entries(report)
    entry["report"] = reports
    if len(set(errors.values())) == 1:
        entry["error"] = next(iter(errors.values()))
    elif errors:
        entry["error"] = "; ".join(f"{mode}: {why}" for mode, why in errors.items())
    return entry


def report_entries(report: ConversionReport) -> list[dict[str, str]]:
    """The report's changes as ``{"path", "kind", "keyword", "message"}`` (path ``/``: root)."""
    return [
        {"path": c.path or "/", "kind": c.action, "keyword": c.keyword, "message": c.detail}
        for c in report.changes
    ]


def json_definition(definition: Any) -> Any:
    """A definition as plain JSON; an object (a LangChain tool) by what it sends the model."""
    if isinstance(definition, Mapping | list | tuple | str | int | float | bool | None):
        return to_jsonable(definition)
    schema = getattr(definition, "args_schema", None)
    if schema is not None and not isinstance(schema, Mapping):
        schema = schema.model_json_schema() if hasattr(schema, "model_json_schema") else None
    return {
        "type": type(definition).__name__,
        "name": getattr(definition, "name", None),
        "description": getattr(definition, "description", None),
        "args_schema": to_jsonable(schema),
    }
