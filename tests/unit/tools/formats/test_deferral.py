"""Deferred exports: ``to_provider(defer=...)`` as the providers' SDK types take it."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from pydantic import TypeAdapter

from forge.core.errors import ToolNotFoundError, UnsupportedProviderError
from forge.tools import Defer, Tool, ToolRegistry, tool
from forge.tools.formats.deferral import (
    NATIVE_SEARCH,
    NoNativeSearchError,
    defer_definitions,
    native_search_tool,
    native_search_tool_names,
)
from forge.tools.formats.names import NameMap
from forge.tools.importers.normalize import NormalizedDefinition


def exact(kind: Any, value: Any) -> None:
    """``value`` validates as ``kind`` and loses no key doing so."""
    assert TypeAdapter(kind).validate_python(value) == value


def anthropic_tools(value: Any) -> None:
    from anthropic.types import ToolUnionParam

    exact(list[ToolUnionParam], value)


def responses_tools(value: Any) -> None:
    from openai.types.responses import ToolParam

    exact(list[ToolParam], value)


SDK = {"anthropic": anthropic_tools, "openai-responses": responses_tools}


@pytest.fixture
def registry() -> ToolRegistry:
    """Five small tools with tags and categories."""

    @tool(tags=["weather"], category="web")
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return city

    @tool(tags=["weather"], category="web")
    def get_forecast(city: str, days: int = 3) -> str:
        """Get the weather forecast for the next days."""
        return city

    @tool(tags=["money"])
    def convert_currency(amount: float, to: str) -> float:
        """Convert an amount of money to another currency."""
        return amount

    @tool(tags=["admin", "money"])
    def refund_order(order_id: str) -> str:
        """Refund a customer's order."""
        return order_id

    @tool(category="file_system")
    def read_file(path: str) -> str:
        """Read a text file."""
        return path

    return ToolRegistry([get_weather, get_forecast, convert_currency, refund_order, read_file])


def deferred_names(definitions: list[Any]) -> set[str]:
    return {d["name"] for d in definitions if d.get("defer_loading") is True}


@pytest.mark.parametrize("provider", list(NATIVE_SEARCH))
def test_every_tool_deferred_is_what_the_sdk_accepts(registry: ToolRegistry, provider: str) -> None:
    """defer=True marks every tool and adds the search tool last; the SDK's union takes it."""
    out = registry.to_provider(provider, defer=True)
    SDK[provider](out)
    assert deferred_names(out) == set(registry.names())
    assert out[-1] == native_search_tool(provider)
    assert "defer_loading" not in out[-1]


@pytest.mark.parametrize("provider", list(NATIVE_SEARCH))
def test_strict_deferred_export_is_what_the_sdk_accepts(
    registry: ToolRegistry, provider: str
) -> None:
    """Strict mode and deferral together still validate."""
    out = registry.to_provider(provider, defer=["refund_order"], strict=True)
    SDK[provider](out)
    assert deferred_names(out) == {"refund_order"}


@pytest.mark.parametrize("search", ["bm25", "regex"])
def test_anthropic_search_variants(registry: ToolRegistry, search: str) -> None:
    """Both Anthropic variants are GA SDK types; the name matches the type's tool."""
    out = registry.to_provider("anthropic", defer=True, tool_search=search)
    anthropic_tools(out)
    assert out[-1] == {"type": f"tool_search_tool_{search}_20251119",
                       "name": f"tool_search_tool_{search}"}  # fmt: skip
    assert native_search_tool_names("anthropic") == {"tool_search_tool_bm25",
                                                     "tool_search_tool_regex"}  # fmt: skip


def test_responses_search_tool_is_the_hosted_one(registry: ToolRegistry) -> None:
    """OpenAI Responses gets ``{"type": "tool_search"}`` (run by OpenAI)."""
    out = registry.to_provider("openai-responses", defer=True)
    assert out[-1] == {"type": "tool_search"}


def test_tool_search_false_adds_no_search_tool(registry: ToolRegistry) -> None:
    """A caller sending its own search tool can leave ours out."""
    out = registry.to_provider("anthropic", defer=["read_file"], tool_search=False)
    assert [d["name"] for d in out] == registry.names()
    anthropic_tools(out)


def test_the_plain_export_is_unchanged(registry: ToolRegistry) -> None:
    """Without defer, nothing is deferred and no search tool is added."""
    plain = registry.to_provider("anthropic")
    assert all("defer_loading" not in d for d in plain)
    assert len(plain) == len(registry)


def test_defer_by_tag_category_predicate_and_names(registry: ToolRegistry) -> None:
    """Each selector defers exactly its tools; fields combine (all must hold)."""
    cases = {
        Defer.tagged("weather"): {"get_weather", "get_forecast"},
        Defer.tagged("admin", "money"): {"refund_order"},
        Defer.in_category("file-system"): {"read_file"},
        Defer.where(lambda t: "city" in t.parameters["properties"]): {"get_weather",
                                                                       "get_forecast"},
        Defer.named("convert_currency"): {"convert_currency"},
        Defer(tags=("money",), predicate=lambda t: t.name.startswith("refund")):
            {"refund_order"},
    }  # fmt: skip
    for spec, expected in cases.items():
        assert deferred_names(registry.to_provider("anthropic", defer=spec)) == expected


def test_defer_fields_take_plain_values(registry: ToolRegistry) -> None:
    """Lists, one string and category names work in the fields too."""
    spec = Defer(names=["get_weather", "read_file"], tags="weather", category="web")  # type: ignore[arg-type]
    assert spec.names == frozenset({"get_weather", "read_file"})
    assert spec.tags == ("weather",)
    assert deferred_names(registry.to_provider("anthropic", defer=spec)) == {"get_weather"}


def test_plain_values_are_accepted_as_defer(registry: ToolRegistry) -> None:
    """Names, one name, a predicate and False work without building a Defer."""
    assert deferred_names(registry.to_provider("anthropic", defer={"read_file"})) == {"read_file"}
    assert deferred_names(registry.to_provider("anthropic", defer="read_file")) == {"read_file"}
    by_name = registry.to_provider("anthropic", defer=lambda t: t.name == "read_file")
    assert deferred_names(by_name) == {"read_file"}
    assert deferred_names(registry.to_provider("anthropic", defer=False)) == set()


def test_all_but_the_most_relevant_keeps_the_search_hits(registry: ToolRegistry) -> None:
    """Defer.all_but(n, query) keeps exactly registry.search(query, limit=n) loaded."""
    query = "weather forecast for a city"
    kept = {t.name for t in registry.search(query, limit=2)}
    out = registry.to_provider("openai-responses", defer=Defer.all_but(2, query=query))
    responses_tools(out)
    assert kept == {"get_weather", "get_forecast"}
    assert deferred_names(out) == set(registry.names()) - kept


def test_a_deferred_export_follows_registry_changes(registry: ToolRegistry) -> None:
    """Tools registered later are deferred by a tag selector on the next export."""

    @tool(tags=["weather"])
    def get_rain(city: str) -> float:
        """Rain in millimetres."""
        return 0.0

    registry.register(get_rain)
    out = registry.to_provider("anthropic", defer=Defer.tagged("weather"))
    assert "get_rain" in deferred_names(out)


def test_views_export_deferred_under_their_names(registry: ToolRegistry) -> None:
    """A prefixed view defers by its own names."""
    view = registry.prefixed("w_")
    out = view.to_provider("anthropic", defer=["w_read_file"])
    assert deferred_names(out) == {"w_read_file"}
    anthropic_tools(out)


def test_the_shared_definitions_stay_untouched(registry: ToolRegistry) -> None:
    """Marking a copy: the cached plain export never gains defer_loading."""
    registry.to_provider("anthropic", defer=True)
    assert all("defer_loading" not in d for d in registry.to_provider("anthropic"))


@pytest.mark.parametrize("provider", ["openai", "gemini", "bedrock", "mistral", "ollama", "mcp"])
def test_providers_without_native_search_say_what_to_use(
    registry: ToolRegistry, provider: str
) -> None:
    """The error names the provider and the search-tool session to use instead."""
    with pytest.raises(NoNativeSearchError, match=r"registry\.deferred") as raised:
        registry.to_provider(provider, defer=True)
    assert isinstance(raised.value, UnsupportedProviderError)
    assert provider in str(raised.value)
    again = pickle.loads(pickle.dumps(raised.value))
    assert str(again) == str(raised.value)


def test_unknown_variant_lists_the_variants(registry: ToolRegistry) -> None:
    """A search variant the provider lacks is named with the ones it has."""
    with pytest.raises(NoNativeSearchError, match="'bm25', 'regex'"):
        registry.to_provider("anthropic", defer=True, tool_search="server")
    with pytest.raises(TypeError, match="tool_search"):
        registry.to_provider("anthropic", defer=True, tool_search=3)  # type: ignore[arg-type]


def test_bad_defer_values_are_named(registry: ToolRegistry) -> None:
    """Unknown names get suggestions; wrong kinds and a keep without query are refused."""
    with pytest.raises(ToolNotFoundError, match="read_fil") as raised:
        registry.to_provider("anthropic", defer=["read_fil"])
    assert "read_file" in raised.value.suggestions
    with pytest.raises(TypeError, match="defer= takes"):
        registry.to_provider("anthropic", defer=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="strings"):
        registry.to_provider("anthropic", defer=[1])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="needs the query"):
        Defer(keep=2)
    with pytest.raises(ValueError, match="whole number"):
        Defer.all_but(-1, query="x")
    with pytest.raises(TypeError, match="function of a Tool"):
        Defer.where("read_file")  # type: ignore[arg-type]


def test_defer_definitions_needs_a_native_provider() -> None:
    """The formats-level helper refuses a provider without native search."""
    with pytest.raises(NoNativeSearchError):
        defer_definitions([], [], "openai", add_search=False)
    with pytest.raises(NoNativeSearchError):
        native_search_tool("gemini")


@pytest.mark.slow  # the whole BFCL corpus
def test_bfcl_catalogue_deferred_validates(
    bfcl: tuple[NameMap, tuple[NormalizedDefinition, ...], tuple[Tool, ...]],
) -> None:
    """Every BFCL definition deferred, both providers: the SDK unions take the whole export."""
    tools = bfcl[2]
    registry = ToolRegistry(list({t.name: t for t in tools}.values()))
    for provider in NATIVE_SEARCH:
        out = registry.to_provider(provider, defer=Defer.all_but(5, query="weather in a city"))
        SDK[provider](out)
        assert len(deferred_names(out)) == len(registry) - 5
