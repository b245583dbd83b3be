"""A tool's page: metadata, annotations, schemas, every provider's definitions, lint, metrics."""

from __future__ import annotations

import json
from typing import ClassVar

import pytest
from anthropic.types import ToolParam
from openai.types.chat import ChatCompletionFunctionToolParam
from pydantic import TypeAdapter

from forge.catalog import Catalog
from forge.catalog.providers import PROVIDER_LABELS, json_definition, provider_entry
from forge.core.errors import ToolNotFoundError
from forge.tools import ToolRegistry, tool
from forge.tools.formats import PROVIDERS


def test_the_page_holds_metadata_annotations_and_schemas(catalog: Catalog) -> None:
    """Everything about the tool, JSON-safe."""
    page = catalog.tool("echo")
    json.dumps(page, allow_nan=False)
    assert page["description"].startswith("Repeat a text back.")
    assert page["metadata"]["version"] == "1.2.0"
    assert page["metadata"]["notes"] == "Say anything."
    assert page["metadata"]["limitations"] == ["Short texts only"]
    assert page["metadata"]["deprecation"] is None
    assert page["annotations"] == {"readOnlyHint": True}
    assert page["input_schema"]["required"] == ["text"]
    assert page["output_schema"] == {"type": "string"}


def test_every_provider_has_its_strict_and_default_definition(catalog: Catalog) -> None:
    """One entry per provider `to_provider` supports, each definition as that provider takes it."""
    page = catalog.tool("place_order")
    providers = {p["id"]: p for p in page["providers"]}
    assert list(providers) == list(PROVIDERS)
    assert all(p["label"] == PROVIDER_LABELS[i] for i, p in providers.items())
    openai = providers["openai"]
    TypeAdapter(ChatCompletionFunctionToolParam).validate_python(openai["strict"])
    assert openai["strict"]["function"]["strict"] is True
    assert "strict" not in openai["default"]["function"]
    TypeAdapter(ToolParam).validate_python(providers["anthropic"]["default"])
    assert providers["langchain"]["default"]["name"] == "place_order"
    assert "error" not in openai


def test_the_conversion_report_says_what_strict_mode_rewrote(catalog: Catalog) -> None:
    """OpenAI's strict mode moves ``note``'s default into its description: reported."""
    page = catalog.tool("place_order")
    openai = next(p for p in page["providers"] if p["id"] == "openai")
    changes = openai["report"]["strict"]
    assert changes, "strict mode rewrote nothing?"
    assert all(set(c) == {"path", "kind", "keyword", "message"} for c in changes)
    assert {"path": "/properties/note", "kind": "moved_to_description", "keyword": "default",
            "message": "openai strict has no default"} in changes  # fmt: skip
    anthropic = next(p for p in page["providers"] if p["id"] == "anthropic")
    assert any(c["kind"] == "inlined" for c in anthropic["report"]["strict"])
    assert any(f["code"] == "conversion" and f["where"] == "openai (strict)" for f in page["lint"])


def test_a_provider_that_cannot_convert_gives_an_error_not_a_failure(catalog: Catalog) -> None:
    """A conversion that raises becomes ``error`` (both modes alike: said once)."""
    entry = provider_entry(catalog.registry.get_or_raise("echo"), "no-such-provider")
    assert entry["strict"] is None
    assert entry["default"] is None
    assert entry["report"] == {"strict": [], "default": []}
    assert entry["error"].startswith("unsupported provider 'no-such-provider'")
    assert "strict:" not in entry["error"]


def test_lint_findings_and_deprecation() -> None:
    """An undocumented parameter and a deprecated tool show up on the page."""

    @tool(deprecated=True, replaced_by="new_thing")
    def old(x: int, y: dict[str, int] | None = None) -> int:
        """Old."""
        return x

    page = Catalog(ToolRegistry([old])).tool("old")
    assert page["metadata"]["deprecation"] == "Deprecated: use 'new_thing' instead."
    lint = page["lint"]
    assert {"code": "definition", "severity": "warning",
            "message": "parameter 'x' has no description", "where": "all"} in lint  # fmt: skip
    assert all(set(f) == {"code", "severity", "message", "where"} for f in lint)
    assert any(f["code"] == "provider" and f["where"] == "openai" for f in lint)


def test_an_unknown_tool_names_close_ones(catalog: Catalog) -> None:
    """Not found, with suggestions."""
    with pytest.raises(ToolNotFoundError) as caught:
        catalog.tool("ech")
    assert caught.value.suggestions == ("echo",)


def test_metrics_are_null_without_metrics() -> None:
    """An executor without metrics gives ``null``; with them, zeros before any call."""
    registry = ToolRegistry()

    @tool
    def f() -> int:
        """F."""
        return 1

    registry.register(f)
    shelf = Catalog(registry)
    assert shelf.tool("f")["metrics"] is None
    assert shelf.metrics() == {"enabled": False, "tools": {}}
    shelf.close()


def test_a_changed_tool_gets_a_new_page(catalog: Catalog) -> None:
    """The page cache follows the tool object, so an update shows at once."""
    assert catalog.tool("echo")["description"].startswith("Repeat")

    @tool(name="echo")
    def echo2(text: str) -> str:
        """Say it twice."""
        return text * 2

    catalog.registry.update("echo", echo2)  # type: ignore[union-attr]
    assert catalog.tool("echo")["description"] == "Say it twice."


def test_a_definition_object_is_shown_by_what_it_sends() -> None:
    """Non-JSON definitions (LangChain tools) become name, description and schema."""

    class Fake:
        name = "n"
        description = "d"
        args_schema: ClassVar[dict[str, str]] = {"type": "object"}

    assert json_definition(Fake()) == {"type": "Fake", "name": "n", "description": "d",
                                       "args_schema": {"type": "object"}}  # fmt: skip


class Opaque:
    """A type pydantic cannot describe."""


def test_a_tool_whose_definition_cannot_be_built_still_has_a_page() -> None:
    """No schemas, every provider and the lint naming the reason; validation and runs say so."""

    def broken(x: Opaque) -> int:
        """Takes something no schema can describe."""
        return 1

    shelf = Catalog(ToolRegistry([broken]))
    page = shelf.tool("broken")
    json.dumps(page, allow_nan=False)
    assert page["input_schema"] is None
    assert all(p["error"] and "Opaque" in p["error"] for p in page["providers"])
    assert page["lint"][0]["severity"] == "error"
    checked = shelf.validate("broken", {"arguments": {"x": 1}})
    assert checked["ok"] is False
    assert "Opaque" in checked["errors"][0]["message"]
    assert checked["model_message"] == (
        "Error: Tool 'broken' is unavailable: its definition is invalid. Do not retry it."
    )
    shelf.close()
