"""Registry views: filtered, prefixed and renamed, live and composable."""

from __future__ import annotations

import asyncio

import pytest

from forge.core.errors import (
    DuplicateToolError,
    ToolDefinitionError,
    ToolNotFoundError,
    ToolValidationError,
)
from forge.tools import ToolCall, ToolExecutor, ToolRegistry, ToolView, tool


@tool(category="web", tags=["net", "read"])
def fetch(url: str) -> str:
    """Fetch a web page."""
    return f"page {url}"


@tool(category="web", tags=["net"])
def post(url: str, body: str) -> str:
    """Post to a web page."""
    return f"posted {body} to {url}"


@tool(category="utility")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([fetch, post, add])


def _names(definitions: list[dict[str, object]]) -> list[object]:
    return [d["function"]["name"] for d in definitions]  # type: ignore[index]


def test_filtered_by_category_tags_names_and_predicate(registry: ToolRegistry) -> None:
    """Every filter keeps only the tools that pass all of the given tests."""
    assert registry.filtered(category="web").names() == ["fetch", "post"]
    assert registry.filtered(tags="read").names() == ["fetch"]
    assert registry.filtered(names=["add", "post"]).names() == ["post", "add"]
    assert registry.filtered(lambda t: t.name.startswith("p")).names() == ["post"]
    assert registry.filtered(category="web", tags=["net"], names=["post"]).names() == ["post"]


def test_view_has_the_read_api(registry: ToolRegistry) -> None:
    """A view answers lookups like a registry, by its own names."""
    view = registry.prefixed("x_")
    assert isinstance(view, ToolView)
    assert len(view) == 3
    assert "x_add" in view
    assert "add" not in view
    assert view.get("add") is None
    assert view.get_or_raise("x_add").name == "x_add"
    assert [t.name for t in view] == view.names() == ["x_fetch", "x_post", "x_add"]
    assert [t.name for t in view.list_all()] == view.names()
    assert [t.name for t in view.list_by_category("utility")] == ["x_add"]
    assert [t.name for t in view.list_by_tag("read")] == ["x_fetch"]
    assert [d["name"] for d in view.definitions()] == view.names()
    assert view.version == registry.version


def test_views_compose(registry: ToolRegistry) -> None:
    """Filtering, prefixing and renaming stack in the order they are applied."""
    view = registry.filtered(category="web").prefixed("web_").renamed({"web_post": "web_send"})
    assert view.names() == ["web_fetch", "web_send"]
    assert view.execute("web_send", {"url": "u", "body": "b"}).output == "posted b to u"
    assert registry.prefixed("a_").filtered(names=["a_add"]).names() == ["a_add"]


def test_views_see_registry_changes(registry: ToolRegistry) -> None:
    """A view reads the registry on every call: registrations and removals show at once."""
    view = registry.filtered(category="utility").prefixed("m_")
    before = view.to_provider("openai")
    assert _names(before) == ["m_add"]

    @tool(category="utility")
    def mul(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b

    registry.register(mul)
    assert view.names() == ["m_add", "m_mul"]
    assert _names(view.to_provider("openai")) == ["m_add", "m_mul"]
    assert view.execute("m_mul", {"a": 6, "b": 7}).output == 42
    registry.deregister("add")
    assert view.names() == ["m_mul"]
    assert view.get("m_add") is None


def test_view_caches_per_registry_version(registry: ToolRegistry) -> None:
    """Derived artefacts and renamed tools are built once per registry version."""
    view = registry.prefixed("p_")
    first = view.to_provider("anthropic")
    assert first[0] is view.to_provider("anthropic")[0]
    assert view.get("p_add") is view.get("p_add")
    renamed = view.get("p_add")
    registry.register(tool(lambda x: x, name="echo", description="Echo."))
    assert view.get("p_add") is renamed  # the copy of an unchanged tool is kept


@pytest.mark.parametrize(
    ("provider", "path"),
    [
        ("openai", ("function", "name")),
        ("openai-responses", ("name",)),
        ("anthropic", ("name",)),
        ("mistral", ("function", "name")),
        ("ollama", ("function", "name")),
        ("bedrock", ("toolSpec", "name")),
        ("mcp", ("name",)),
    ],
)
def test_exports_carry_the_new_names(
    registry: ToolRegistry, provider: str, path: tuple[str, ...]
) -> None:
    """Every provider's definitions use the view's names."""
    view = registry.renamed({"add": "plus"}).prefixed("calc_")
    names = []
    for definition in view.to_provider(provider):
        value = definition
        for key in path:
            value = value[key]
        names.append(value)
    assert names == ["calc_fetch", "calc_post", "calc_plus"]


def test_gemini_export_and_prompt_and_search_use_the_new_names(registry: ToolRegistry) -> None:
    """Gemini declarations, prompt text and search results name the view's tools."""
    view = registry.renamed({"fetch": "download"})
    gemini = view.to_provider("gemini")
    declared = [d["name"] for g in gemini for d in g["functionDeclarations"]]
    assert declared == ["download", "post", "add"]
    prompt = view.generate_prompt()
    assert "- download:" in prompt
    assert "- fetch:" not in prompt
    assert [t.name for t in view.search("fetch a web page", limit=1)] == ["download"]


def test_execute_by_the_new_name_through_the_executor(registry: ToolRegistry) -> None:
    """`ToolExecutor(view)` runs the original tool; results report the name the model used."""
    view = registry.renamed({"add": "plus"})
    executor = ToolExecutor(view)
    try:
        result = asyncio.run(executor.execute("plus", a=2, b=3))
        assert (result.success, result.output, result.tool_name) == (True, 5, "plus")
        calls = [ToolCall(name="plus", arguments={"a": 1, "b": 1}, id="c1")]
        (batch,) = asyncio.run(executor.execute_all(calls))
        assert (batch.output, batch.tool_name, batch.call_id) == (2, "plus", "c1")
        missing = asyncio.run(executor.execute("add", a=1, b=1))
        assert missing.error_kind == "unknown_tool"
        assert _names(executor.get_all_schemas("openai"))[-1] == "plus"
    finally:
        executor.close()


def test_view_run_methods_use_the_new_names(registry: ToolRegistry) -> None:
    """The view's own execute, aexecute, execute_all and aexecute_all call by its names."""
    view = registry.prefixed("t_")
    assert view.execute("t_add", {"a": 1, "b": 2}).tool_name == "t_add"
    assert asyncio.run(view.aexecute("t_add", {"a": 1, "b": 2})).output == 3
    calls = [{"name": "t_fetch", "arguments": {"url": "u"}, "id": "1"}, {"name": "add", "id": "2"}]
    ok, unknown = view.execute_all(calls)
    assert (ok.output, ok.tool_name) == ("page u", "t_fetch")
    assert unknown.error_kind == "unknown_tool"
    assert "t_add" in (unknown.error or "")
    results = asyncio.run(view.aexecute_all(calls))
    assert [r.success for r in results] == [True, False]
    view.close()


def test_unknown_and_invalid_calls_raise_like_the_registry(registry: ToolRegistry) -> None:
    """Unknown names raise ToolNotFoundError with the view's names as suggestions."""
    view = registry.filtered(category="web").prefixed("web_")
    with pytest.raises(ToolNotFoundError) as info:
        view.execute("web_fetc", {"url": "u"})
    assert "web_fetch" in info.value.suggestions
    with pytest.raises(ToolNotFoundError):
        view.execute("add", {"a": 1, "b": 2})
    with pytest.raises(ToolNotFoundError):
        view.get_or_raise("fetch")
    with pytest.raises(ToolValidationError):
        view.execute("web_fetch", {"url": 3})


def test_renamed_names_must_pass_the_name_rule(registry: ToolRegistry) -> None:
    """A new name or prefix that breaks the tool-name rule fails at once, naming the rule."""
    with pytest.raises(ToolDefinitionError, match="invalid tool name 'has space'"):
        registry.renamed({"add": "has space"})
    with pytest.raises(ToolDefinitionError, match="must start with a letter"):
        registry.prefixed("1_")
    with pytest.raises(ToolDefinitionError, match="limit is 64"):
        registry.renamed({"add": "a" * 65})


def test_renaming_onto_a_taken_name_is_refused(registry: ToolRegistry) -> None:
    """Two tools may not end up with one name in a view."""
    with pytest.raises(DuplicateToolError):
        registry.renamed({"add": "fetch"})
    with pytest.raises(DuplicateToolError):
        registry.renamed({"add": "x", "post": "x"})
    assert registry.renamed({"add": "fetch", "fetch": "add"}).names() == ["add", "post", "fetch"]


def test_a_view_does_not_change_the_registry(registry: ToolRegistry) -> None:
    """Views are read-only: the registry keeps its tools and names."""
    view = registry.renamed({"add": "plus"})
    assert view.execute("plus", {"a": 1, "b": 1}).output == 2
    assert registry.names() == ["fetch", "post", "add"]
    assert registry.get_or_raise("add").name == "add"
    assert not hasattr(view, "register")


def test_view_events_are_the_registry_events(registry: ToolRegistry) -> None:
    """Listeners on a view hear every change of the registry under it, until removed."""
    view = registry.filtered(category="web").prefixed("w_")
    heard: list[str | None] = []
    view.on("registered", lambda event: heard.append(event.name))
    registry.register(tool(lambda: "pong", name="ping", description="Ping."))
    assert heard == ["ping"]
    view.off("registered", heard.append)  # never subscribed: no error
