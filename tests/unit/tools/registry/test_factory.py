"""Tool factories: lazy instances, lifetimes, dependency injection, setup and teardown."""

import asyncio
import threading
from typing import Any

import pytest

from forge.core.errors import ToolDefinitionError
from forge.tools import (
    BaseTool,
    ErrorKind,
    ExecutionContext,
    ToolCategory,
    ToolParameter,
    ToolRegistry,
    ToolResult,
)
from forge.tools.execution.executor import ToolExecutor
from forge.tools.registry import ToolFactory


class Database:
    """A dependency injected by type."""

    def __init__(self) -> None:
        self.rows = {"alice": 1, "bob": 2}


class Events:
    """Records lifecycle events for the tests."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.lock = threading.Lock()

    def add(self, event: str) -> None:
        with self.lock:
            self.log.append(event)

    def count(self, event: str) -> int:
        return self.log.count(event)


class Lookup:
    """Look a user up."""

    name = "lookup"

    def __init__(self, db: Database, events: Events, prefix: str = "") -> None:
        events.add("init")
        self.db, self.events, self.prefix = db, events, prefix

    def setup(self) -> None:
        self.events.add("setup")

    def teardown(self) -> None:
        self.events.add("teardown")

    def __call__(self, user: str) -> int:
        """Return the user's id.

        Args:
            user: The user name.
        """
        return self.db.rows.get(self.prefix + user, -1)


class AsyncLookup:
    """Look a user up, asynchronously, with async setup and teardown."""

    def __init__(self, db: Database, events: Events) -> None:
        events.add("init")
        self.db, self.events = db, events

    async def setup(self) -> None:
        await asyncio.sleep(0.01)
        self.events.add("setup")

    async def teardown(self) -> None:
        await asyncio.sleep(0)
        self.events.add("teardown")

    async def __call__(self, user: str, ctx: ExecutionContext) -> dict[str, Any]:
        """Return the user's id and the session."""
        await asyncio.sleep(0)
        return {"id": self.db.rows[user], "session": ctx.session_id}


class Greeter(BaseTool):
    """A `BaseTool` class built per request."""

    name = "greet"
    description = "Greet someone."
    category = ToolCategory.OTHER
    parameters = [ToolParameter("who", "string", "Who to greet")]  # noqa: RUF012 - the original design's class-attribute style

    def __init__(self, greeting: str, events: Events) -> None:
        events.add("init")
        self.greeting, self.events = greeting, events

    def teardown(self) -> None:
        self.events.add("teardown")

    async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(f"{self.greeting}, {kwargs['who']}")


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture
def deps(events: Events) -> dict[Any, Any]:
    return {Database: Database(), "events": events}


def test_singleton_is_created_once_and_lazily(events: Events, deps: dict[Any, Any]) -> None:
    """A singleton is created on first use, not on register/list/convert, and only once."""
    registry = ToolRegistry()
    registry.register_factory(Lookup, dependencies=deps)
    assert registry.names() == ["lookup"]
    registry.to_provider("openai")
    registry.to_provider("anthropic")
    registry.search("user")
    assert (
        registry.get("lookup").parameters["properties"]["user"]["description"] == "The user name."
    )  # type: ignore[union-attr]
    assert events.log == []
    ex = ToolExecutor(registry)

    async def go() -> list[Any]:
        return await asyncio.gather(*(ex.run("lookup", {"user": "bob"}) for _ in range(20)))

    results = asyncio.run(go())
    assert [r.output for r in results] == [2] * 20
    assert ex.run_sync("lookup", {"user": "alice"}).output == 1
    assert events.log == ["init", "setup"]


def test_concurrent_first_calls_share_one_async_singleton(
    events: Events, deps: dict[Any, Any]
) -> None:
    """Many first calls at once wait for the same instance (async setup runs once)."""
    registry = ToolRegistry()
    registry.register_factory(AsyncLookup, dependencies=deps)
    ex = ToolExecutor(registry)
    ctx = ExecutionContext(session_id="s")

    async def go() -> list[Any]:
        return await asyncio.gather(
            *(ex.run("async_lookup", {"user": "bob"}, ctx) for _ in range(10))
        )

    results = asyncio.run(go())
    assert [r.output for r in results] == [{"id": 2, "session": "s"}] * 10
    assert events.log == ["init", "setup"]


def test_teardown_runs_once_on_close(events: Events, deps: dict[Any, Any]) -> None:
    """Closing the registry tears each singleton down exactly once, even if closed twice."""
    registry = ToolRegistry()
    registry.register_factory(Lookup, dependencies=deps)
    registry.register_factory(AsyncLookup, dependencies=deps)
    ex = ToolExecutor(registry)
    ex.run_sync("lookup", {"user": "bob"})
    asyncio.run(ex.run("async_lookup", {"user": "bob"}))
    registry.close()
    registry.close()
    assert events.count("teardown") == 2
    assert events.count("init") == 2


def test_async_close_and_context_manager(events: Events, deps: dict[Any, Any]) -> None:
    """aclose() awaits async teardowns; the registry is also an (async) context manager."""

    async def go() -> None:
        async with ToolRegistry() as registry:
            registry.register_factory(AsyncLookup, dependencies=deps)
            await ToolExecutor(registry).run("async_lookup", {"user": "bob"})

    asyncio.run(go())
    with ToolRegistry() as registry:
        registry.register_factory(Lookup, dependencies=deps)
        ToolExecutor(registry).run_sync("lookup", {"user": "bob"})
    assert events.count("teardown") == 2


def test_a_never_used_singleton_is_never_created(events: Events, deps: dict[Any, Any]) -> None:
    """Closing a registry whose factory tools never ran creates nothing and tears nothing down."""
    registry = ToolRegistry()
    registry.register_factory(Lookup, dependencies=deps)
    registry.close()
    assert events.log == []


def test_removed_factory_tools_are_still_torn_down(events: Events, deps: dict[Any, Any]) -> None:
    """A factory tool deregistered after use is torn down when the registry closes."""
    registry = ToolRegistry()
    registry.register_factory(Lookup, dependencies=deps)
    ToolExecutor(registry).run_sync("lookup", {"user": "bob"})
    registry.deregister("lookup")
    registry.close()
    assert events.log == ["init", "setup", "teardown"]


def test_per_request_creates_an_instance_per_call(events: Events) -> None:
    """per_request builds, sets up and tears down one instance per call."""
    registry = ToolRegistry()
    registry.register_factory(
        Greeter,
        lifetime="per_request",
        config={"greeting": "Hello"},
        dependencies={"events": events},
    )
    ex = ToolExecutor(registry)
    assert asyncio.run(ex.run("greet", {"who": "Ada"})).output == "Hello, Ada"
    assert ex.run_sync("greet", {"who": "Bob"}).output == "Hello, Bob"
    assert events.log == ["init", "teardown"] * 2
    registry.close()
    assert events.count("teardown") == 2


def test_a_factory_function_annotated_with_its_class(events: Events) -> None:
    """A factory function is called with injected arguments; the class describes the tool."""

    def make_lookup(events: Events) -> Lookup:
        return Lookup(Database(), events, prefix="")

    factory = ToolFactory({Events: events})
    made = factory.tool(make_lookup, name="find_user", description="Find a user.")
    assert (made.name, made.description) == ("find_user", "Find a user.")
    registry = ToolRegistry([made])
    assert ToolExecutor(registry).run_sync("find_user", {"user": "alice"}).output == 1
    factory.close()
    assert events.log == ["init", "setup", "teardown"]


def test_dependencies_by_name_type_subclass_and_config(events: Events) -> None:
    """Config wins over dependencies; names beat types; a subclass satisfies its base type."""

    class TestDatabase(Database):
        def __init__(self) -> None:
            super().__init__()
            self.rows = {"x-carol": 3}

    factory = ToolFactory({TestDatabase: TestDatabase(), "events": events})
    made = factory.tool(Lookup, config={"prefix": "x-"})
    assert ToolExecutor(ToolRegistry([made])).run_sync("lookup", {"user": "carol"}).output == 3


def test_dependencies_provided_later_are_used(events: Events) -> None:
    """provide() after definition replaces a dependency for instances created afterwards."""
    factory = ToolFactory({Database: Database(), "events": events})
    made = factory.tool(Lookup, lifetime="per_request")
    replacement = Database()
    replacement.rows = {"bob": 99}
    factory.provide(Database, replacement)
    assert ToolExecutor(ToolRegistry([made])).run_sync("lookup", {"user": "bob"}).output == 99


def test_missing_dependencies_fail_at_definition(events: Events) -> None:
    """A constructor parameter nothing provides is a ToolDefinitionError when defining the tool."""
    with pytest.raises(ToolDefinitionError, match="'db'"):
        ToolFactory({"events": events}).tool(Lookup)
    with pytest.raises(ToolDefinitionError, match="does not take"):
        ToolFactory({Database: Database(), "events": events}).tool(Lookup, config={"colour": 1})
    with pytest.raises(ToolDefinitionError, match="lifetime"):
        ToolFactory().tool(Lookup, lifetime="forever")  # type: ignore[arg-type]


def test_classes_that_are_not_tools_are_rejected() -> None:
    """A class with no __call__ and not a BaseTool, or an unannotated factory, is rejected."""

    class Plain:
        pass

    def make() -> Any:
        return Plain()

    with pytest.raises(ToolDefinitionError, match="neither a BaseTool"):
        ToolFactory().tool(Plain)
    with pytest.raises(ToolDefinitionError, match="annotated"):
        ToolFactory().tool(make)


def test_base_tool_definitions_that_need_an_instance_are_reported() -> None:
    """A BaseTool whose name needs __init__ state cannot be described lazily: say so."""

    class Stateful(BaseTool):
        def __init__(self, name: str) -> None:
            self._name = name

        @property
        def name(self) -> str:
            return self._name

        description = "d"
        category = ToolCategory.OTHER
        parameters: list[ToolParameter] = []  # noqa: RUF012 - the original design's class-attribute style

        async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
            return ToolResult.ok(None)

    with pytest.raises(ToolDefinitionError, match="without creating an instance"):
        ToolFactory().tool(Stateful, config={"name": "x"})


def test_a_failing_constructor_fails_the_call_and_is_retried(events: Events) -> None:
    """A singleton whose creation fails gives a tool_error; the next call tries again."""
    attempts: list[int] = []

    class Flaky:
        """Fails to start the first time."""

        def __init__(self) -> None:
            attempts.append(1)
            if len(attempts) == 1:
                raise ConnectionError("database not up yet")

        def __call__(self) -> str:
            """Answer."""
            return "up"

    registry = ToolRegistry()
    registry.register_factory(Flaky)
    ex = ToolExecutor(registry)
    first = ex.run_sync("flaky")
    assert first.error_kind is ErrorKind.TOOL_ERROR
    assert "database not up yet" in (first.error or "")
    assert asyncio.run(ex.run("flaky")).output == "up"
    assert len(attempts) == 2


def test_teardown_errors_are_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    """An exception in teardown is logged and closing goes on."""

    class Messy:
        """Breaks on teardown."""

        def teardown(self) -> None:
            raise RuntimeError("could not close")

        def __call__(self) -> str:
            """Answer."""
            return "ok"

    registry = ToolRegistry()
    registry.register_factory(Messy)
    ToolExecutor(registry).run_sync("messy")
    registry.close()
    assert "teardown of tool 'messy' failed" in caplog.text


def test_a_single_tag_string_on_a_factory_tool_is_one_tag(deps: dict[Any, Any]) -> None:
    """A class tool's ``tags = "people"`` is the one tag "people", not its letters."""

    class Tagged(Greeter):
        tags = "people"  # type: ignore[assignment]

    registry = ToolRegistry()
    made = registry.register_factory(Tagged, config={"greeting": "Hi"}, dependencies=deps)
    assert made.tags == ("people",)
    assert registry.list_by_tag("people") == [made]
