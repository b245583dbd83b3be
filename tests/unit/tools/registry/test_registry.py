"""ToolRegistry operations."""

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest

from forge.core.errors import (
    DuplicateToolError,
    ToolDefinitionError,
    ToolNotFoundError,
)
from forge.tools import (
    BaseTool,
    ExecutionContext,
    RegistryEvent,
    Tool,
    ToolCategory,
    ToolParameter,
    ToolRegistry,
    ToolResult,
    default_registry,
    tool,
)

EVENT_TYPES = ("registered", "updated", "removed", "cleared")


# -- helpers -----------------------------------------------------------------


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


class EchoTool(BaseTool):
    """A class-based tool (a `BaseTool`)."""

    name = "echo"
    description = "Echo the given text back."
    category = ToolCategory.UTILITY

    @property
    def parameters(self) -> list[ToolParameter]:
        return [ToolParameter("text", "string", "The text to echo")]

    async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(kwargs["text"])


def make_tool(
    name: str,
    value: Any = None,
    *,
    description: str | None = None,
    category: ToolCategory | str | None = None,
    tags: tuple[str, ...] = (),
) -> Tool:
    """Build a no-argument tool called ``name`` whose handler returns ``value``."""
    result = name if value is None else value

    def handler() -> Any:
        return result

    return tool(
        name=name,
        description=description or f"The {name} tool.",
        category=category,
        tags=tags,
    )(handler)


def record(name: str, value: Any = "from record") -> dict[str, Any]:
    """Return a plain tool record (the plain-record style) whose handler returns ``value``."""
    return {
        "name": name,
        "description": f"The {name} record tool.",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer", "description": "A number"}},
            "additionalProperties": False,
        },
        "handler": lambda args: value,
    }


class EventLog:
    """Subscribes to every registry event and records what it receives."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.events: list[RegistryEvent] = []
        for event in EVENT_TYPES:
            registry.on(event, self.events.append)

    @property
    def kinds(self) -> list[tuple[str, str | None]]:
        return [(e.type, e.name) for e in self.events]


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry()


# -- register ----------------------------------------------------------------


def test_register_tool_returns_the_same_tool(registry: ToolRegistry) -> None:
    """Registering a Tool returns that very Tool and makes it retrievable by name."""
    t = make_tool("alpha")
    assert registry.register(t) is t
    assert registry.get("alpha") is t


def test_register_accepts_a_base_tool_instance(registry: ToolRegistry) -> None:
    """A BaseTool instance is converted to a Tool named after the instance and runs."""
    registered = registry.register(EchoTool())
    assert isinstance(registered, Tool)
    assert registered.name == "echo"
    assert registered.category is ToolCategory.UTILITY
    assert registry.get("echo") is registered
    assert registry.execute("echo", {"text": "hi"}).output == "hi"


def test_register_accepts_a_plain_typed_function(registry: ToolRegistry) -> None:
    """A plain typed function is registered like @tool, named after the function."""
    registered = registry.register(add)
    assert isinstance(registered, Tool)
    assert registered.name == "add"
    assert registered.description == "Add two integers."
    assert set(registered.parameters["properties"]) == {"a", "b"}
    assert registry.execute("add", {"a": 2, "b": 3}).output == 5


def test_register_accepts_a_record_mapping(registry: ToolRegistry) -> None:
    """A plain record mapping is registered with its JSON Schema parameters."""
    registered = registry.register(record("rec", 42))
    assert isinstance(registered, Tool)
    assert registered.name == "rec"
    assert registered.parameters["properties"]["n"]["type"] == "integer"
    assert registry.execute("rec", {"n": 1}).output == 42


def test_register_rejects_a_base_tool_class(registry: ToolRegistry) -> None:
    """Registering a BaseTool subclass itself (not an instance) raises ToolDefinitionError."""
    with pytest.raises(ToolDefinitionError, match="instance"):
        registry.register(EchoTool)
    assert len(registry) == 0
    assert registry.version == 0


@pytest.mark.parametrize("item", [42, "add", None, 3.5])
def test_register_rejects_things_that_are_not_tools(registry: ToolRegistry, item: Any) -> None:
    """Objects that are not tools, functions or records are rejected with ToolDefinitionError."""
    with pytest.raises(ToolDefinitionError):
        registry.register(item)
    assert len(registry) == 0


def test_register_rejects_an_invalid_record(registry: ToolRegistry) -> None:
    """A record with an unknown key is rejected by name and nothing is registered."""
    bad = {**record("rec"), "handlr": None}
    with pytest.raises(ToolDefinitionError, match="handlr"):
        registry.register(bad)
    assert "rec" not in registry


def test_duplicate_register_raises_and_the_first_tool_stays(registry: ToolRegistry) -> None:
    """A second tool with a taken name raises DuplicateToolError and the first stays in place."""
    first = registry.register(make_tool("dup", "first"))
    version = registry.version
    log = EventLog(registry)
    with pytest.raises(DuplicateToolError) as info:
        registry.register(make_tool("dup", "second"))
    assert isinstance(info.value, ValueError)
    assert info.value.tool_name == "dup"
    assert registry.get("dup") is first
    assert registry.execute("dup").output == "first"
    assert registry.version == version
    assert len(registry) == 1
    assert log.events == []


def test_duplicate_register_of_a_function_keeps_the_first(registry: ToolRegistry) -> None:
    """Registering the same function twice raises DuplicateToolError without replacing."""
    first = registry.register(add)
    with pytest.raises(DuplicateToolError):
        registry.register(add)
    assert registry.get("add") is first


def test_register_replace_replaces_and_emits_updated(registry: ToolRegistry) -> None:
    """register(replace=True) swaps in the new tool, keeps the position and emits 'updated'."""
    registry.register(make_tool("a"))
    old = registry.register(make_tool("b", "old"))
    registry.register(make_tool("c"))
    log = EventLog(registry)
    new = make_tool("b", "new")
    assert registry.register(new, replace=True) is new
    assert registry.get("b") is new
    assert registry.execute("b").output == "new"
    assert registry.names() == ["a", "b", "c"]
    assert len(log.events) == 1
    event = log.events[0]
    assert (event.type, event.name) == ("updated", "b")
    assert event.tool is new
    assert event.previous is old
    assert event.version == registry.version


def test_register_replace_of_a_new_name_emits_registered(registry: ToolRegistry) -> None:
    """register(replace=True) for a free name is a plain registration ('registered' event)."""
    log = EventLog(registry)
    t = registry.register(make_tool("fresh"), replace=True)
    assert registry.get("fresh") is t
    assert log.kinds == [("registered", "fresh")]
    assert log.events[0].previous is None


# -- register_many -----------------------------------------------------------


def test_register_many_registers_all_in_order(registry: ToolRegistry) -> None:
    """register_many returns the Tools in batch order and registers all of them."""
    before = registry.version
    log = EventLog(registry)
    tools = registry.register_many([make_tool("x"), add, record("rec"), EchoTool()])
    assert [t.name for t in tools] == ["x", "add", "rec", "echo"]
    assert all(isinstance(t, Tool) for t in tools)
    assert registry.names() == ["x", "add", "rec", "echo"]
    assert [registry.get(t.name) for t in tools] == tools
    assert registry.version > before
    assert log.kinds == [
        ("registered", "x"),
        ("registered", "add"),
        ("registered", "rec"),
        ("registered", "echo"),
    ]


def _batch_with_invalid_record() -> list[Any]:
    return [make_tool("n1"), record("n2"), {"name": "broken", "description": "no handler"}]


def _batch_with_internal_duplicate() -> list[Any]:
    return [make_tool("n1"), make_tool("n2"), make_tool("n1", "again")]


def _batch_with_taken_name() -> list[Any]:
    return [make_tool("n1"), make_tool("n2"), make_tool("existing", "other")]


def _batch_with_base_tool_class() -> list[Any]:
    return [make_tool("n1"), EchoTool]


@pytest.mark.parametrize(
    ("batch", "error"),
    [
        pytest.param(_batch_with_invalid_record, ToolDefinitionError, id="invalid-record"),
        pytest.param(_batch_with_internal_duplicate, DuplicateToolError, id="internal-duplicate"),
        pytest.param(_batch_with_taken_name, DuplicateToolError, id="already-registered"),
        pytest.param(_batch_with_base_tool_class, ToolDefinitionError, id="base-tool-class"),
    ],
)
def test_register_many_is_all_or_nothing(
    registry: ToolRegistry, batch: Callable[[], list[Any]], error: type[Exception]
) -> None:
    """A batch with one bad item adds nothing, changes no version and emits no event."""
    existing = registry.register(make_tool("existing"))
    version = registry.version
    log = EventLog(registry)
    with pytest.raises(error):
        registry.register_many(batch())
    assert registry.names() == ["existing"]
    assert registry.get("existing") is existing
    assert registry.get("n1") is None
    assert registry.get("n2") is None
    assert registry.version == version
    assert log.events == []


def test_register_many_with_replace_replaces_existing(registry: ToolRegistry) -> None:
    """register_many(replace=True) replaces taken names and registers new ones."""
    old = registry.register(make_tool("a", "old"))
    log = EventLog(registry)
    new_a, b = registry.register_many([make_tool("a", "new"), make_tool("b")], replace=True)
    assert registry.get("a") is new_a
    assert registry.execute("a").output == "new"
    assert registry.get("b") is b
    assert log.kinds == [("updated", "a"), ("registered", "b")]
    assert log.events[0].previous is old


def test_register_many_of_an_empty_batch_registers_nothing(registry: ToolRegistry) -> None:
    """An empty batch returns an empty list and leaves the registry empty."""
    assert registry.register_many([]) == []
    assert len(registry) == 0


def test_constructor_registers_the_given_tools(registry: ToolRegistry) -> None:
    """ToolRegistry(tools) registers every given tool, in order."""
    r = ToolRegistry([make_tool("one"), add])
    assert r.names() == ["one", "add"]


def test_constructor_with_a_bad_batch_raises() -> None:
    """ToolRegistry(tools) with a duplicate in the batch raises DuplicateToolError."""
    with pytest.raises(DuplicateToolError):
        ToolRegistry([make_tool("one"), make_tool("one")])


# -- update ------------------------------------------------------------------


def test_update_replaces_and_keeps_position(registry: ToolRegistry) -> None:
    """update() returns True, swaps the tool in place and emits 'updated' with the previous."""
    registry.register_many([make_tool("a"), make_tool("b", "old"), make_tool("c")])
    old = registry.get("b")
    version = registry.version
    log = EventLog(registry)
    new = make_tool("b", "new")
    assert registry.update("b", new) is True
    assert registry.get("b") is new
    assert [t.name for t in registry.list_all()] == ["a", "b", "c"]
    assert registry.execute("b").output == "new"
    assert registry.version > version
    assert log.kinds == [("updated", "b")]
    assert log.events[0].tool is new
    assert log.events[0].previous is old


def test_update_accepts_any_registrable(registry: ToolRegistry) -> None:
    """update() converts functions and records like register() does."""
    registry.register(make_tool("add"))
    registry.register(make_tool("rec"))
    assert registry.update("add", add) is True
    assert registry.execute("add", {"a": 1, "b": 2}).output == 3
    assert registry.update("rec", record("rec", "updated")) is True
    assert registry.execute("rec", {}).output == "updated"


def test_update_of_an_absent_name_returns_false_and_adds_nothing(registry: ToolRegistry) -> None:
    """update() of an unregistered name returns False and changes nothing."""
    registry.register(make_tool("present"))
    version = registry.version
    log = EventLog(registry)
    assert registry.update("ghost", make_tool("ghost")) is False
    assert "ghost" not in registry
    assert registry.names() == ["present"]
    assert registry.version == version
    assert log.events == []


def test_update_with_a_different_name_raises(registry: ToolRegistry) -> None:
    """update(name, tool) with a tool of another name raises ToolDefinitionError."""
    original = registry.register(make_tool("a"))
    registry.register(make_tool("b"))
    version = registry.version
    log = EventLog(registry)
    with pytest.raises(ToolDefinitionError):
        registry.update("a", make_tool("other"))
    assert registry.get("a") is original
    assert registry.names() == ["a", "b"]
    assert registry.version == version
    assert log.events == []


# -- deregister ----------------------------------------------------------------


def test_deregister_removes_and_reports(registry: ToolRegistry) -> None:
    """deregister() returns True once, then False; the tool is gone and 'removed' fires once."""
    t = registry.register(make_tool("gone"))
    registry.register(make_tool("kept"))
    log = EventLog(registry)
    version = registry.version
    assert registry.deregister("gone") is True
    assert registry.get("gone") is None
    assert "gone" not in registry
    assert registry.names() == ["kept"]
    assert registry.version > version
    version = registry.version
    assert registry.deregister("gone") is False
    assert registry.version == version
    assert log.kinds == [("removed", "gone")]
    assert log.events[0].tool is None
    assert log.events[0].previous is t


def test_deregister_of_an_unknown_name_returns_false(registry: ToolRegistry) -> None:
    """deregister() of a name never registered returns False and emits nothing."""
    log = EventLog(registry)
    assert registry.deregister("nobody") is False
    assert registry.version == 0
    assert log.events == []


def test_reregistering_after_deregister_appends_at_the_end(registry: ToolRegistry) -> None:
    """A tool registered again after removal is listed last (registration order)."""
    registry.register_many([make_tool("a"), make_tool("b"), make_tool("c")])
    registry.deregister("a")
    registry.register(make_tool("a"))
    assert registry.names() == ["b", "c", "a"]


def test_tool_names_is_the_set_of_names(registry: ToolRegistry) -> None:
    """``tool_names`` is a frozen set of the names; ``names()`` keeps their order."""
    assert registry.tool_names == frozenset()
    registry.register_many([make_tool("b"), make_tool("a")])
    assert registry.tool_names == frozenset({"a", "b"})
    assert isinstance(registry.tool_names, frozenset)
    assert registry.names() == ["b", "a"]
    registry.deregister("b")
    assert registry.tool_names == {"a"}


# -- get / get_or_raise / get_handler / exists ---------------------------------


def test_get_returns_the_registered_tool_object(registry: ToolRegistry) -> None:
    """get(name) returns the identical Tool object on every call."""
    t = registry.register(make_tool("same"))
    assert registry.get("same") is t
    assert registry.get("same") is registry.get("same")


@pytest.mark.parametrize(
    "name",
    ["", "unknown", "with space", "a.b", "x" * 300, "émoji-🙂", "ADD", " add", "add "],
)
def test_get_never_raises_for_unknown_or_odd_names(registry: ToolRegistry, name: str) -> None:
    """get() returns None for unknown, empty, invalid or near-miss names instead of raising."""
    registry.register(add)
    assert registry.get(name) is None


def test_get_on_an_empty_registry_returns_none(registry: ToolRegistry) -> None:
    """get() on an empty registry returns None."""
    assert registry.get("anything") is None


def test_get_reflects_later_changes_through_a_saved_reference(registry: ToolRegistry) -> None:
    """A saved reference to registry.get sees tools registered and removed afterwards."""
    lookup = registry.get
    t = registry.register(make_tool("later"))
    assert lookup("later") is t
    registry.deregister("later")
    assert lookup("later") is None


def test_subclass_can_override_get() -> None:
    """A ToolRegistry subclass's own get() is the one called on its instances."""

    class CaseInsensitiveRegistry(ToolRegistry):
        def get(self, name: str) -> Tool | None:
            return super().get(name.lower())

    r = CaseInsensitiveRegistry()
    t = r.register(make_tool("lower"))
    assert r.get("LOWER") is t


def test_get_or_raise_returns_the_tool(registry: ToolRegistry) -> None:
    """get_or_raise(name) returns the same Tool as get(name)."""
    t = registry.register(make_tool("here"))
    assert registry.get_or_raise("here") is t


def test_get_or_raise_suggests_near_misses(registry: ToolRegistry) -> None:
    """An unknown name raises ToolNotFoundError (a LookupError) suggesting close names."""
    registry.register_many(
        [make_tool("search_web"), make_tool("read_file"), make_tool("write_file")]
    )
    with pytest.raises(ToolNotFoundError) as info:
        registry.get_or_raise("serch_web")
    exc = info.value
    assert isinstance(exc, LookupError)
    assert exc.tool_name == "serch_web"
    assert "search_web" in exc.suggestions
    assert "read_file" not in exc.suggestions
    assert "serch_web" in str(exc)
    assert "search_web" in str(exc)


def test_get_or_raise_on_an_empty_registry_has_no_suggestions(registry: ToolRegistry) -> None:
    """On an empty registry ToolNotFoundError carries no suggestions."""
    with pytest.raises(ToolNotFoundError) as info:
        registry.get_or_raise("anything")
    assert info.value.suggestions == ()


@pytest.mark.parametrize("name", ["", "with space"])
def test_get_or_raise_handles_odd_names(registry: ToolRegistry, name: str) -> None:
    """get_or_raise() raises ToolNotFoundError (not another error) for odd names."""
    registry.register(add)
    with pytest.raises(ToolNotFoundError):
        registry.get_or_raise(name)


def test_get_handler_returns_the_python_callable(registry: ToolRegistry) -> None:
    """get_handler(name) returns the tool's handler, and None for an unknown name."""
    registry.register(add)
    handler = registry.get_handler("add")
    assert handler is add
    assert registry.get_handler("missing") is None


def test_get_handler_of_a_record_is_its_handler(registry: ToolRegistry) -> None:
    """get_handler() of a record tool returns the record's handler callable."""
    rec = record("rec", "value")
    registry.register(rec)
    assert registry.get_handler("rec") is rec["handler"]


def test_exists_and_in(registry: ToolRegistry) -> None:
    """exists(name) and `name in registry` agree and follow registration and removal."""
    assert not registry.exists("add")
    assert "add" not in registry
    registry.register(add)
    assert registry.exists("add")
    assert "add" in registry
    assert not registry.exists("")
    assert "with space" not in registry
    registry.deregister("add")
    assert not registry.exists("add")
    assert "add" not in registry


# -- listing -------------------------------------------------------------------


def test_list_all_names_and_len_follow_registration_order(registry: ToolRegistry) -> None:
    """list_all(), names() and len() report tools in registration order."""
    assert registry.list_all() == []
    assert registry.names() == []
    assert len(registry) == 0
    c, a, b = make_tool("c"), make_tool("a"), make_tool("b")
    for t in (c, a, b):
        registry.register(t)
    assert registry.list_all() == [c, a, b]
    assert all(x is y for x, y in zip(registry.list_all(), [c, a, b], strict=True))
    assert registry.names() == ["c", "a", "b"]
    assert len(registry) == 3


def test_list_all_returns_a_copy(registry: ToolRegistry) -> None:
    """Mutating the list returned by list_all() or names() does not change the registry."""
    registry.register(make_tool("a"))
    registry.list_all().clear()
    registry.names().append("b")
    assert registry.names() == ["a"]


@pytest.fixture
def categorised() -> ToolRegistry:
    r = ToolRegistry()
    r.register_many(
        [
            make_tool("read_file", category=ToolCategory.FILE, tags=("io", "read")),
            make_tool("fetch_url", category="web", tags=("network", "read")),
            make_tool("write_file", category="file-system", tags=("io", "write")),
            make_tool("plain"),
        ]
    )
    return r


@pytest.mark.parametrize(
    "category",
    [ToolCategory.FILE, ToolCategory.FILE_SYSTEM, "file", "file-system", "FILE_SYSTEM", "File"],
)
def test_list_by_category_accepts_enum_and_aliases(
    categorised: ToolRegistry, category: ToolCategory | str
) -> None:
    """list_by_category accepts the enum and alias strings and keeps registration order."""
    assert [t.name for t in categorised.list_by_category(category)] == ["read_file", "write_file"]


def test_list_by_category_of_an_unused_category_is_empty(categorised: ToolRegistry) -> None:
    """A valid category with no tools gives an empty list."""
    assert categorised.list_by_category(ToolCategory.DATABASE) == []
    assert [t.name for t in categorised.list_by_category("other")] == ["plain"]


def test_list_by_category_rejects_an_unknown_category(categorised: ToolRegistry) -> None:
    """An unknown category name raises ValueError naming it."""
    with pytest.raises(ValueError, match="nonsense"):
        categorised.list_by_category("nonsense")


def test_list_by_tag(categorised: ToolRegistry) -> None:
    """list_by_tag returns the tools carrying the tag, in registration order."""
    assert [t.name for t in categorised.list_by_tag("read")] == ["read_file", "fetch_url"]
    assert [t.name for t in categorised.list_by_tag("io")] == ["read_file", "write_file"]
    assert categorised.list_by_tag("missing") == []


# -- search --------------------------------------------------------------------


@pytest.fixture
def searchable() -> ToolRegistry:
    r = ToolRegistry()
    r.register_many(
        [
            make_tool(
                "get_weather",
                description="Get the current weather forecast for a city.",
                category="web",
                tags=("weather", "forecast"),
            ),
            make_tool(
                "read_file",
                description="Read a text file from the local disk.",
                category="file",
                tags=("io",),
            ),
            make_tool(
                "write_file",
                description="Write text to a file on the local disk.",
                category="file",
                tags=("io", "dangerous"),
            ),
            make_tool(
                "send_email",
                description="Send an email message to a recipient.",
                category="api",
                tags=("email",),
            ),
            make_tool(
                "query_database",
                description="Run a SQL query against the database.",
                category="database",
                tags=("sql",),
            ),
        ]
    )
    return r


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("what is the weather forecast in Paris", "get_weather"),
        ("send an email to my boss", "send_email"),
        ("run a sql query", "query_database"),
        ("read a file from disk", "read_file"),
    ],
)
def test_search_ranks_the_relevant_tool_first(
    searchable: ToolRegistry, query: str, best: str
) -> None:
    """search() returns the most relevant tool first."""
    results = searchable.search(query)
    assert results
    assert results[0].name == best
    assert len({t.name for t in results}) == len(results)


def test_search_respects_limit(searchable: ToolRegistry) -> None:
    """search(limit=n) returns at most n tools."""
    assert len(searchable.search("file disk", limit=10)) == 2
    assert [t.name for t in searchable.search("read file disk", limit=1)] == ["read_file"]


def test_search_respects_category_filter(searchable: ToolRegistry) -> None:
    """search(category=...) keeps only tools of that category (aliases accepted).

    A question finds the category's tools nearest in meaning even when none matches its words,
    and nothing only when the category has no tools.
    """
    results = searchable.search("local disk weather email", category="file-system")
    assert {t.name for t in results} == {"read_file", "write_file"}
    found = searchable.search("weather forecast", category=ToolCategory.DATABASE)
    assert [t.name for t in found] == ["query_database"]
    assert searchable.search("weather forecast", category=ToolCategory.CODE) == []


def test_search_respects_tags_filter(searchable: ToolRegistry) -> None:
    """search(tags=...) keeps only tools carrying all of the given tags."""
    assert [t.name for t in searchable.search("file disk", tags=["dangerous"])] == ["write_file"]
    assert searchable.search("file disk", tags=["io", "email"]) == []


@pytest.mark.parametrize("query", ["", "   ", "?!"])
def test_search_without_a_question_is_empty(searchable: ToolRegistry, query: str) -> None:
    """A blank query (no letter or digit) gives []."""
    assert searchable.search(query) == []


@pytest.mark.parametrize("query", ["zzzqqxx", "the of and"])
def test_search_matching_no_word_gets_the_nearest_tools(
    searchable: ToolRegistry, query: str
) -> None:
    """Stop words only, or no word any tool has: the tools nearest in meaning, never []."""
    assert searchable.search(query)


def test_search_on_an_empty_registry_is_empty(registry: ToolRegistry) -> None:
    """search() on an empty registry returns []."""
    assert registry.search("weather") == []


def test_search_follows_registry_changes(searchable: ToolRegistry) -> None:
    """search() reflects registrations and removals made after an earlier search."""
    assert searchable.search("weather")[0].name == "get_weather"
    searchable.deregister("get_weather")
    assert all(t.name != "get_weather" for t in searchable.search("weather"))
    searchable.register(make_tool("weather_alerts", description="Severe weather alerts."))
    assert searchable.search("weather")[0].name == "weather_alerts"


def test_search_returns_registered_tool_objects(searchable: ToolRegistry) -> None:
    """search() returns the very Tool objects held by the registry."""
    for t in searchable.search("file"):
        assert searchable.get(t.name) is t


# -- clear ---------------------------------------------------------------------


def test_clear_removes_everything_and_emits_cleared(registry: ToolRegistry) -> None:
    """clear() empties the registry, bumps the version and emits one 'cleared' event."""
    registry.register_many([make_tool("a"), make_tool("b")])
    version = registry.version
    log = EventLog(registry)
    registry.clear()
    assert len(registry) == 0
    assert registry.list_all() == []
    assert registry.get("a") is None
    assert registry.version > version
    assert log.kinds == [("cleared", None)]
    assert log.events[0].tool is None
    assert log.events[0].version == registry.version
    registry.register(make_tool("a"))
    assert registry.names() == ["a"]


# -- events --------------------------------------------------------------------


def test_events_carry_what_changed(registry: ToolRegistry) -> None:
    """Each mutation emits one event with its type, name, tool, previous tool and version."""
    log = EventLog(registry)
    t1 = registry.register(make_tool("t", 1))
    t2 = registry.register(make_tool("t", 2), replace=True)
    t3 = make_tool("t", 3)
    registry.update("t", t3)
    registry.deregister("t")
    registry.clear()
    assert [(e.type, e.name, e.tool, e.previous) for e in log.events] == [
        ("registered", "t", t1, None),
        ("updated", "t", t2, t1),
        ("updated", "t", t3, t2),
        ("removed", "t", None, t3),
        ("cleared", None, None, None),
    ]
    versions = [e.version for e in log.events]
    assert versions == sorted(versions)
    assert len(set(versions)) == len(versions)
    assert versions[-1] == registry.version


def test_events_fire_after_the_change_is_visible(registry: ToolRegistry) -> None:
    """Inside a listener the registry already shows the new state."""
    seen: list[tuple[str, Any, bool, int, int]] = []

    def check(event: RegistryEvent) -> None:
        current = registry.get(event.name) if event.name is not None else None
        seen.append((event.type, current, event.name in registry, len(registry), registry.version))
        assert registry.version == event.version

    for event in EVENT_TYPES:
        registry.on(event, check)
    first = registry.register(make_tool("v", 1))
    second = registry.register(make_tool("v", 2), replace=True)
    third = make_tool("v", 3)
    registry.update("v", third)
    registry.deregister("v")
    fourth = registry.register(make_tool("w"))
    registry.clear()
    assert [(kind, current, present, size) for kind, current, present, size, _ in seen] == [
        ("registered", first, True, 1),
        ("updated", second, True, 1),
        ("updated", third, True, 1),
        ("removed", None, False, 0),
        ("registered", fourth, True, 1),
        ("cleared", None, False, 0),
    ]


def test_register_many_events_fire_after_the_whole_batch_is_visible(
    registry: ToolRegistry,
) -> None:
    """During register_many's events every tool of the batch is already registered."""
    sizes: list[int] = []
    registry.on("registered", lambda _event: sizes.append(len(registry)))
    registry.register_many([make_tool("a"), make_tool("b"), make_tool("c")])
    assert sizes == [3, 3, 3]


def test_listener_errors_are_logged_and_do_not_break_registration(
    registry: ToolRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    """A listener that raises is logged; the change stands and later listeners still run."""
    received: list[str | None] = []

    def broken(event: RegistryEvent) -> None:
        raise RuntimeError("listener exploded")

    registry.on("registered", broken)
    registry.on("registered", lambda event: received.append(event.name))
    with caplog.at_level(logging.ERROR, logger="forge"):
        t = registry.register(make_tool("ok"))
    assert registry.get("ok") is t
    assert received == ["ok"]
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures
    assert any(r.exc_info and "listener exploded" in str(r.exc_info[1]) for r in failures)
    registry.register(make_tool("ok2"))
    assert received == ["ok", "ok2"]


def test_off_stops_delivery(registry: ToolRegistry) -> None:
    """off() unsubscribes a listener; other listeners keep receiving events."""
    first: list[str | None] = []
    second: list[str | None] = []

    def one(event: RegistryEvent) -> None:
        first.append(event.name)

    def two(event: RegistryEvent) -> None:
        second.append(event.name)

    registry.on("registered", one)
    registry.on("registered", two)
    registry.register(make_tool("a"))
    registry.off("registered", one)
    registry.register(make_tool("b"))
    assert first == ["a"]
    assert second == ["a", "b"]


def test_off_of_an_unsubscribed_listener_is_a_no_op(registry: ToolRegistry) -> None:
    """off() for a listener that was never subscribed does not raise."""
    registry.off("removed", print)
    registry.register(make_tool("a"))
    assert registry.deregister("a") is True


def test_listeners_only_receive_their_event_type(registry: ToolRegistry) -> None:
    """A listener subscribed to one event type never receives other types."""
    removed: list[RegistryEvent] = []
    registry.on("removed", removed.append)
    registry.register(make_tool("a"))
    registry.register(make_tool("a"), replace=True)
    registry.clear()
    assert removed == []
    registry.register(make_tool("b"))
    registry.deregister("b")
    assert [(e.type, e.name) for e in removed] == [("removed", "b")]


@pytest.mark.parametrize("event", ["register", "deleted", "", "REGISTERED", "*"])
def test_unknown_event_names_raise_value_error(registry: ToolRegistry, event: str) -> None:
    """on() and off() reject unknown event names with ValueError."""
    with pytest.raises(ValueError, match="event"):
        registry.on(event, print)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="event"):
        registry.off(event, print)  # type: ignore[arg-type]


# -- version -------------------------------------------------------------------


def test_version_changes_on_every_mutation(registry: ToolRegistry) -> None:
    """Every successful mutation increases the version."""
    versions = [registry.version]

    def step() -> None:
        assert registry.version > versions[-1]
        versions.append(registry.version)

    registry.register(make_tool("a"))
    step()
    registry.register(make_tool("a"), replace=True)
    step()
    registry.register_many([make_tool("b"), make_tool("c")])
    step()
    registry.update("b", make_tool("b", "new"))
    step()
    registry.deregister("c")
    step()
    registry.clear()
    step()
    registry.clear()
    step()


def test_version_is_unchanged_by_failed_mutations_and_reads(registry: ToolRegistry) -> None:
    """Failed mutations and read-only calls leave the version unchanged."""
    registry.register_many([make_tool("a"), make_tool("b")])
    version = registry.version
    with pytest.raises(DuplicateToolError):
        registry.register(make_tool("a"))
    with pytest.raises(ToolDefinitionError):
        registry.register(EchoTool)
    with pytest.raises(DuplicateToolError):
        registry.register_many([make_tool("c"), make_tool("b")])
    with pytest.raises(ToolDefinitionError):
        registry.update("a", make_tool("z"))
    assert registry.update("nope", make_tool("nope")) is False
    assert registry.deregister("nope") is False
    registry.get("a")
    registry.list_all()
    registry.search("a")
    registry.definitions()
    registry.execute("a")
    assert registry.version == version


class Opaque:
    """A type pydantic cannot build a schema for."""


def needs_opaque(thing: Opaque) -> str:
    """A tool whose parameter types cannot be turned into a schema."""
    return "never"


def test_compile_all_builds_every_schema(registry: ToolRegistry) -> None:
    """compile_all() compiles every registered tool without changing the registry."""
    registry.register_many([add, record("rec"), EchoTool()])
    version = registry.version
    registry.compile_all()
    assert registry.version == version
    assert [t.parameters["type"] for t in registry] == ["object"] * 3


def test_compile_all_reports_a_tool_that_cannot_compile(registry: ToolRegistry) -> None:
    """compile_all() raises ToolDefinitionError naming a tool whose types cannot be compiled."""
    registry.register_many([add, needs_opaque])
    with pytest.raises(ToolDefinitionError) as info:
        registry.compile_all()
    assert info.value.tool_name == "needs_opaque"


# -- definitions, iteration, instances -------------------------------------------


def test_definitions_have_no_handlers(registry: ToolRegistry) -> None:
    """definitions() gives JSON-ready dicts with name, description and parameters only."""
    registry.register_many([add, record("rec"), EchoTool()])
    defs = registry.definitions()
    assert [d["name"] for d in defs] == ["add", "rec", "echo"]
    for d in defs:
        assert "handler" not in d
        assert {"name", "description", "parameters"} <= d.keys()
        assert d["parameters"]["type"] == "object"
    json.dumps(defs)
    assert defs[0]["parameters"]["required"] == ["a", "b"]


def test_iteration_yields_a_snapshot(registry: ToolRegistry) -> None:
    """Iterating while mutating yields the tools present when iteration began, without error."""
    originals = registry.register_many([make_tool(f"t{i}") for i in range(5)])
    seen = []
    for i, t in enumerate(registry):
        seen.append(t)
        registry.register(make_tool(f"new{i}"))
        registry.deregister(f"t{4 - i}")
    assert seen == originals
    assert all(a is b for a, b in zip(seen, originals, strict=True))
    assert registry.names() == [f"new{i}" for i in range(5)]


def test_iteration_matches_list_all(registry: ToolRegistry) -> None:
    """list(registry) equals list_all()."""
    registry.register_many([make_tool("a"), add, make_tool("z")])
    assert list(registry) == registry.list_all()


def test_registries_are_independent() -> None:
    """Two ToolRegistry() instances share neither tools, versions nor listeners."""
    r1, r2 = ToolRegistry(), ToolRegistry()
    events: list[RegistryEvent] = []
    r2.on("registered", events.append)
    r1.register(add)
    assert "add" in r1
    assert "add" not in r2
    assert r2.get("add") is None
    assert len(r2) == 0
    assert r2.version == 0
    assert events == []
    r2.register(make_tool("add", "other"))
    assert r1.execute("add", {"a": 1, "b": 1}).output == 2
    assert r2.execute("add").output == "other"


def test_default_registry_is_one_shared_instance() -> None:
    """default_registry() returns the same ToolRegistry every call, distinct from new ones."""
    first = default_registry()
    assert isinstance(first, ToolRegistry)
    assert default_registry() is first
    assert ToolRegistry() is not first


def test_default_registry_is_the_same_across_threads() -> None:
    """default_registry() called from many threads returns one instance."""
    found: list[ToolRegistry] = []
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        found.append(default_registry())

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(found) == 8
    assert all(r is default_registry() for r in found)


def test_repr_mentions_size_and_version(registry: ToolRegistry) -> None:
    """repr(registry) shows the tool count and version."""
    registry.register(add)
    text = repr(registry)
    assert "tools=1" in text
    assert f"version={registry.version}" in text


# -- other libraries' tool objects ------------------------------------------


def test_registering_a_langchain_tool_names_from_langchain() -> None:
    """A LangChain tool is refused with the adapter to use, not a generic type error."""
    from langchain_core.tools import tool as lc_tool

    @lc_tool
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    with pytest.raises(ToolDefinitionError, match=r"from_langchain\(tool\)") as info:
        ToolRegistry().register(shout)
    assert "forge.tools.integrations.langchain" in str(info.value)
    assert info.value.tool_name == "shout"


def test_registering_an_mcp_tool_definition_names_import_tools() -> None:
    """An MCP tool definition is refused with the MCP client's import path."""
    import mcp.types

    spec = mcp.types.Tool(name="remote", inputSchema={"type": "object"})
    with pytest.raises(ToolDefinitionError, match=r"forge\.mcp\.import_tools"):
        ToolRegistry().register(spec)


def _foreign(module: str, name: str) -> Any:
    """An instance of a class that looks like another library's (nothing is imported)."""
    return type(name, (), {"__module__": module, "name": "other"})()


@pytest.mark.parametrize(
    ("module", "name", "hint"),
    [
        ("pydantic_ai.tools", "Tool", r"from_pydantic_ai\(tool\)"),
        ("agents.tool", "FunctionTool", r"from_openai_agents\(tool\)"),
        ("mcp.server.mcpserver.tools.base", "Tool", r"register\(tool\.fn\)"),
        ("mcp.types", "Tool", r"import_tools"),
    ],
)
def test_other_libraries_tools_get_a_hint(module: str, name: str, hint: str) -> None:
    """pydantic-ai, OpenAI Agents and MCP server tools are refused with what to register."""
    with pytest.raises(ToolDefinitionError, match=hint):
        ToolRegistry().register(_foreign(module, name))


def test_unknown_objects_are_refused_with_the_accepted_kinds() -> None:
    """Anything else lists what register accepts, with the right article."""
    with pytest.raises(ToolDefinitionError, match="cannot register an int: expected a Tool"):
        ToolRegistry().register(3)


def test_search_takes_a_single_tag_string_as_one_tag() -> None:
    """search(tags="maps") filters on the tag "maps", not on "m", "a", "p" and "s"."""

    @tool(tags=["maps"])
    def find_places(query: str) -> list[str]:
        """Find places on a map."""
        return [query]

    @tool(tags=["m", "a", "p", "s"])
    def find_letters(query: str) -> list[str]:
        """Find places by letters."""
        return [query]

    registry = ToolRegistry([find_places, find_letters])
    assert [t.name for t in registry.search("find places", tags="maps")] == ["find_places"]
