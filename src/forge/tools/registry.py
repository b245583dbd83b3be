"""`ToolRegistry`: a fast, thread-safe collection of tools (RG-1..RG-6).

Readers never lock. The registry publishes an immutable snapshot (a dict and
a version number) and every mutation builds a new one under a writer lock, so
a reader always sees one consistent state and iteration never races a writer.

The constructor is not a singleton: tests and multi-tenant servers need
independent registries. `default_registry()` returns the process-wide one.

Reads are safe to change. Lists a read returns are new on each call; what
every caller shares (tool schemas, cached provider definitions, LangChain
tools) is read-only and raises ``TypeError`` on change, naming how to get a
copy (`forge.tools._readonly`: dict and list subclasses, so JSON encoders,
httpx and the provider SDKs take them as they are).
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Unpack

from forge.core._text import article
from forge.core.errors import (
    DuplicateToolError,
    ToolDefinitionError,
    ToolNotFoundError,
    ToolValidationError,
)
from forge.core.logging import get_logger
from forge.tools._run import _cancelled, failure, finish
from forge.tools.calls import ToolCall
from forge.tools.categories import ToolCategory
from forge.tools.context import ExecutionContext
from forge.tools.results import ToolResult, _ok_for
from forge.tools.tool import Tool

if TYPE_CHECKING:
    from forge.tools.executor import ToolExecutor
    from forge.tools.options import ToolOptions
    from forge.tools.prompt import PromptKeywords, PromptOptions

__all__ = ["RegistryEvent", "ToolRegistry", "default_registry", "to_tool"]

logger = get_logger("tools.registry")

EventType = Literal["registered", "updated", "removed", "cleared"]
EVENTS: tuple[EventType, ...] = ("registered", "updated", "removed", "cleared")
Listener = Callable[["RegistryEvent"], Any]
Registrable = Tool | Callable[..., Any] | Mapping[str, Any] | Any


@dataclass(frozen=True, slots=True)
class RegistryEvent:
    """What changed in a registry; delivered to listeners after the change is visible."""

    type: EventType
    """``registered``, ``updated``, ``removed`` or ``cleared``."""
    name: str | None
    """The tool's name (``None`` for ``cleared``)."""
    tool: Tool | None
    """The tool now registered (``None`` for ``removed`` and ``cleared``)."""
    previous: Tool | None
    """The tool that was replaced or removed, if any."""
    version: int
    """The registry version after the change."""


@dataclass(slots=True)
class _State:
    tools: dict[str, Tool]
    version: int
    derived: dict[Any, Any] = field(default_factory=dict)


def to_tool(item: Registrable) -> Tool:
    """Turn anything `ToolRegistry.register` accepts into a `Tool`."""
    from forge.tools.base import BaseTool

    if isinstance(item, Tool):
        return item
    if isinstance(item, BaseTool):
        return item.to_tool()
    if isinstance(item, type) and issubclass(item, BaseTool):
        raise ToolDefinitionError(
            item.__name__, "register an instance of this BaseTool subclass, not the class itself"
        )
    if isinstance(item, Mapping):
        from forge.tools.records import from_record

        return from_record(item)
    if not inspect.isfunction(item):
        from forge.tools._foreign import foreign_tool_hint

        hint = foreign_tool_hint(item)
        if hint is not None:
            name = getattr(item, "name", None)
            raise ToolDefinitionError(
                name if isinstance(name, str) else "<unknown>", f"cannot register {hint}"
            )
    if callable(item):
        from forge.tools.tool import function_tool

        return function_tool(item)
    raise ToolDefinitionError(
        "<unknown>",
        f"cannot register {article(type(item).__name__)}: expected a Tool, a "
        "forge.tools.BaseTool instance, a typed function or a record mapping",
    )


class ToolRegistry:
    """A thread-safe registry of tools with O(1) lookup by name.

    Args:
        tools: Tools to register at once (all or nothing).
    """

    get: Callable[[str], Tool | None]

    def __init__(self, tools: Iterable[Registrable] = ()) -> None:
        self._lock = threading.RLock()
        self._listeners: dict[str, tuple[Listener, ...]] = dict.fromkeys(EVENTS, ())
        # Lookups are the hottest read: `registry.get` is the bound `get` of one
        # dict that lives as long as the registry (writers update it in place,
        # under the lock, right after publishing each snapshot). It costs what a
        # dict lookup costs, and a saved `registry.get` never goes stale.
        self._lookup: dict[str, Tool] = {}
        if type(self).get is ToolRegistry.get:  # do not shadow a subclass's get()
            self.__dict__["get"] = self._lookup.get
        self._publish({}, 0)
        if tools:
            self.register_many(tools)

    def _publish(self, tools: dict[str, Tool], version: int) -> None:
        self._state = _State(tools, version)

    # -- reading -------------------------------------------------------------

    def get(self, name: str) -> Tool | None:  # type: ignore[no-redef]
        """Return the tool called ``name``, or ``None``; never raises."""
        return self._state.tools.get(name)

    def get_or_raise(self, name: str) -> Tool:
        """Return the tool called ``name``.

        Raises:
            ToolNotFoundError: With close matches as suggestions.
        """
        found = self._state.tools.get(name)
        if found is None:
            raise self._not_found(name)
        return found

    def get_handler(self, name: str) -> Callable[..., Any] | None:
        """Return the Python handler of the tool called ``name``, or ``None``."""
        found = self._state.tools.get(name)
        return found.handler if found is not None else None

    def exists(self, name: str) -> bool:
        """Return whether a tool called ``name`` is registered."""
        return name in self._state.tools

    def __contains__(self, name: object) -> bool:
        return name in self._state.tools

    def __len__(self) -> int:
        return len(self._state.tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(tuple(self._state.tools.values()))

    def __repr__(self) -> str:
        return f"<ToolRegistry tools={len(self)} version={self.version}>"

    @property
    def version(self) -> int:
        """A counter that changes on every mutation (for caching derived artefacts)."""
        return self._state.version

    def list_all(self) -> list[Tool]:
        """Return every tool in registration order."""
        return list(self._state.tools.values())

    def names(self) -> list[str]:
        """Return every tool name in registration order."""
        return list(self._state.tools)

    def definitions(self) -> list[dict[str, Any]]:
        """Return every tool's provider-neutral definition (no handlers; schemas read-only)."""
        return [t.to_dict() for t in self._state.tools.values()]

    def to_provider(
        self, provider: str, *, allowed: Iterable[str] | None = None, strict: bool = False
    ) -> list[Any]:
        """Return the tools in a provider's wire format, in registration order.

        Args:
            provider: A provider name (see `forge.tools.formats.PROVIDERS`).
            allowed: Keep only these tool names (registration order is kept).
            strict: Compile schemas to the provider's strict mode (OpenAI,
                Mistral, Anthropic, Bedrock); arguments the model sends back
                are mapped to canonical ones by `forge.tools.formats.strict_arguments`.

        The definitions are cached per registry version and read-only (shared by every
        caller; ``copy.deepcopy`` gives a mutable copy); the list is new on each call.

        Raises:
            UnsupportedProviderError: Listing the supported providers.
            SchemaConversionError: A schema cannot be expressed for ``provider``.
        """
        from forge.tools.formats import to_provider

        state = self._state
        keep = None if allowed is None else frozenset(allowed)
        key = ("to_provider", provider, bool(strict), keep)
        cached: list[Any] | None = state.derived.get(key)
        if cached is None:
            tools = [t for t in state.tools.values() if keep is None or t.name in keep]
            cached = state.derived[key] = to_provider(tools, provider, strict=strict)
        return list(cached)

    def list_by_category(self, category: ToolCategory | str) -> list[Tool]:
        """Return the tools of one category (aliases such as ``file-system`` accepted)."""
        wanted = ToolCategory.parse(category)
        return [t for t in self._state.tools.values() if t.metadata.category is wanted]

    def list_by_tag(self, tag: str) -> list[Tool]:
        """Return the tools carrying ``tag``."""
        return [t for t in self._state.tools.values() if tag in t.metadata.tags]

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        category: ToolCategory | str | None = None,
        tags: Iterable[str] | str = (),
    ) -> list[Tool]:
        """Return the tools most relevant to ``query``, best first (BM25 ranking).

        Args:
            query: Natural-language text.
            limit: The most tools to return.
            category: Keep only tools of this category.
            tags: Keep only tools carrying all these tags (one string: one tag).
        """
        from forge.tools.search import SearchIndex

        state = self._state
        index = state.derived.get("search")
        if index is None:
            index = state.derived["search"] = SearchIndex(list(state.tools.values()))
        from forge.tools.metadata import string_tuple

        wanted = ToolCategory.parse(category) if category is not None else None
        return index.search(query, limit=limit, category=wanted, tags=string_tuple(tags, "tags"))

    def generate_prompt(
        self, options: PromptOptions | None = None, /, **keywords: Unpack[PromptKeywords]
    ) -> str:
        """Describe the tools as prompt text in seed 001's layout (PR-1); deterministic.

        Pass a `PromptOptions`, its fields as keywords, or both (keywords win):

        - ``include_examples``: show examples with their JSON input;
        - ``include_notes``: show usage notes;
        - ``include_limitations``: show known limitations;
        - ``group_by_category``: one ``FILE SYSTEM TOOLS:``-style section per category;
        - ``categories``: only tools of these categories (names and aliases accepted);
        - ``max_examples_per_tool``: at most this many examples per tool.

        The text is cached per registry version and options.

        Raises:
            TypeError: ``options`` is not a `PromptOptions`.
            ValueError: An unknown category or a negative example limit.
        """
        from forge.tools.prompt import PromptOptions, render_prompt

        chosen = PromptOptions.coerce(options, keywords)
        state = self._state
        key = ("prompt", chosen)
        text: str | None = state.derived.get(key)
        if text is None:
            text = state.derived[key] = render_prompt(list(state.tools.values()), chosen)
        return text

    # -- writing -------------------------------------------------------------

    def register(self, item: Registrable, *, replace: bool = False) -> Tool:
        """Register a tool and return its `Tool` record.

        ``item`` may be a `Tool`, a `BaseTool` instance, a typed function
        (treated like ``@tool``) or a record mapping.

        Raises:
            DuplicateToolError: The name is taken and ``replace`` is false; the
                first tool stays registered.
            ToolDefinitionError: ``item`` is not a valid tool.
        """
        new = to_tool(item)
        with self._lock:
            tools = self._state.tools
            old = tools.get(new.name)
            if old is not None and not replace:
                raise DuplicateToolError(new.name)
            updated = dict(tools)
            updated[new.name] = new
            self._publish(updated, self._state.version + 1)
            self._lookup[new.name] = new
            version = self._state.version
        kind: EventType = "updated" if old is not None else "registered"
        self._emit(RegistryEvent(kind, new.name, new, old, version))
        return new

    def register_many(self, items: Iterable[Registrable], *, replace: bool = False) -> list[Tool]:
        """Register several tools: all of them, or none if any is invalid or a duplicate."""
        new = [to_tool(i) for i in items]
        seen: set[str] = set()
        for t in new:
            if t.name in seen:
                raise DuplicateToolError(
                    t.name, "the batch contains this name twice; nothing was registered"
                )
            seen.add(t.name)
        with self._lock:
            tools = self._state.tools
            if not replace:
                for t in new:
                    if t.name in tools:
                        raise DuplicateToolError(
                            t.name,
                            "a tool with this name is already registered; nothing was registered",
                        )
            updated = dict(tools)
            olds = [tools.get(t.name) for t in new]
            updated.update((t.name, t) for t in new)
            self._publish(updated, self._state.version + 1)
            self._lookup.update((t.name, t) for t in new)
            version = self._state.version
        for t, old in zip(new, olds, strict=True):
            self._emit(RegistryEvent("updated" if old else "registered", t.name, t, old, version))
        return new

    def update(self, name: str, item: Registrable) -> bool:
        """Replace the tool called ``name``, keeping its position; return False if absent.

        Raises:
            ToolDefinitionError: The new tool has a different name.
        """
        new = to_tool(item)
        if new.name != name:
            raise ToolDefinitionError(
                name, f"update() got a tool named {new.name!r}; deregister and register to rename"
            )
        with self._lock:
            old = self._state.tools.get(name)
            if old is None:
                return False
            updated = dict(self._state.tools)
            updated[name] = new
            self._publish(updated, self._state.version + 1)
            self._lookup[name] = new
            version = self._state.version
        self._emit(RegistryEvent("updated", name, new, old, version))
        return True

    def deregister(self, name: str) -> bool:
        """Remove the tool called ``name``; return whether it was registered."""
        with self._lock:
            old = self._state.tools.get(name)
            if old is None:
                return False
            updated = dict(self._state.tools)
            del updated[name]
            self._publish(updated, self._state.version + 1)
            self._lookup.pop(name, None)
            version = self._state.version
        self._emit(RegistryEvent("removed", name, None, old, version))
        return True

    def clear(self) -> None:
        """Remove every tool."""
        with self._lock:
            self._publish({}, self._state.version + 1)
            self._lookup.clear()
            version = self._state.version
        self._emit(RegistryEvent("cleared", None, None, None, version))

    def compile_all(self) -> None:
        """Build every tool's schema and validator now (they are otherwise built on first use).

        Raises:
            ToolDefinitionError: For the first tool whose types cannot be compiled.
        """
        for t in self._state.tools.values():
            t.compile()

    # -- events --------------------------------------------------------------

    def on(self, event: EventType, listener: Listener) -> None:
        """Call ``listener(event)`` after each change of this type."""
        self._check_event(event)
        with self._lock:
            self._listeners[event] = (*self._listeners[event], listener)

    def off(self, event: EventType, listener: Listener) -> None:
        """Stop calling ``listener`` for this event type (no error if it was not subscribed)."""
        self._check_event(event)
        with self._lock:
            current = self._listeners[event]
            if listener in current:
                index = current.index(listener)
                self._listeners[event] = current[:index] + current[index + 1 :]

    @staticmethod
    def _check_event(event: str) -> None:
        if event not in EVENTS:
            raise ValueError(f"unknown registry event {event!r}; use one of: {', '.join(EVENTS)}")

    def _emit(self, event: RegistryEvent) -> None:
        for listener in self._listeners[event.type]:
            try:
                listener(event)
            except Exception:
                logger.exception("registry listener %r failed on %s event", listener, event.type)

    # -- running -------------------------------------------------------------
    #
    # Every run method goes through the one engine (`forge.tools._pipeline`); the
    # raising ones turn its unknown-tool and invalid-argument results into
    # exceptions that carry the same message.

    def execute(
        self, name: str, arguments: Any = None, *, context: ExecutionContext | None = None
    ) -> ToolResult:
        """Validate and run one tool.

        The context's timeout holds as on every entry point: a sync handler then
        runs on a worker thread (see `forge.tools.executor`).

        Returns:
            ``ToolResult.ok(<return value>)``, or a failed result if the handler raised,
            timed out or was denied.

        Raises:
            ToolNotFoundError: No tool is called ``name``.
            ToolValidationError: The arguments are not JSON or do not match the schema.
            ToolDefinitionError: The tool's definition cannot be compiled.

        Both model-caused errors carry, as ``message``, the text every other entry
        point puts in its failed result (`forge.tools.failures`).
        """
        found = self.get(name)
        if found is not None and found._direct and context is None:
            compiled = found._compiled
            if compiled is not None:
                try:  # the engine's sync fast path, inlined: the hottest case of all
                    result: ToolResult = compiled.run_sync(arguments, None)
                except ToolValidationError:
                    pass  # the engine builds the failure and its message
                else:  # the runner has checked the output (see `_shaped`)
                    return result if result.success else _shaped(result)
        return _raise_for(self, name, self._engine().run_sync(name, arguments, context))

    async def aexecute(
        self, name: str, arguments: Any = None, *, context: ExecutionContext | None = None
    ) -> ToolResult:
        """`execute` for async code (sync handlers run off the event loop unless placed inline)."""
        found = self.get(name)
        fn = _async_fn(found) if context is None and type(arguments) is dict else None
        if fn is not None:
            try:  # the engine's async fast path, inlined for a plain coroutine function
                kwargs = found._compiled.validate_python(arguments)[1]  # type: ignore[union-attr, misc]
            except Exception:
                pass  # the engine validates again and builds the failure and its message
            else:
                try:
                    out = await fn(**kwargs)
                except Exception as exc:
                    return _shaped(failure(found, exc))  # type: ignore[arg-type]
                except BaseException as exc:
                    return _cancelled(found, exc)  # type: ignore[arg-type]
                if type(out) in _SCALARS:
                    return _ok_for(out, name, None)
                return _shaped(finish(out, name))
        result = await self._engine().run(name, arguments, context)
        return result if result.success else _raise_for(self, name, result)

    def execute_all(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        *,
        context: ExecutionContext | None = None,
        strict: bool | None = None,
    ) -> list[ToolResult]:
        """Run calls in order; always one result per call, tagged with its ``call_id``.

        Unknown tools, arguments that are not valid JSON (``invalid_json``, see
        `ToolCall.argument_error`) and invalid arguments become failed results here, so
        one bad call never loses the others' results.

        Args:
            calls: `ToolCall`s or mappings with ``name``, ``arguments`` and ``id``.
            context: The calls' context (passed to tools that ask for it; its timeout holds).
            strict: Deprecated and ignored: arguments answering strict-mode definitions are
                always understood.
        """
        _deprecated_strict(strict)
        return self._engine().execute_all_sync(calls, context, parallel=False)

    async def aexecute_all(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        *,
        context: ExecutionContext | None = None,
        strict: bool | None = None,
    ) -> list[ToolResult]:
        """`execute_all` for async code: calls run concurrently, results in call order."""
        _deprecated_strict(strict)
        return await self._engine().execute_all(calls, context)

    def _not_found(self, name: str) -> ToolNotFoundError:
        import difflib

        names = list(self._state.tools)
        close = difflib.get_close_matches(str(name), names, n=3) if names else []
        return ToolNotFoundError(str(name), suggestions=close)

    def _engine(self) -> ToolExecutor:
        """The engine of the run methods: no context of its own, no hooks, no policy."""
        engine: ToolExecutor | None = self.__dict__.get("_run_engine")
        if engine is None:
            from forge.tools.executor import contextless

            with self._lock:
                engine = self.__dict__.setdefault("_run_engine", contextless(self))
        return engine

    # -- factories, plugins and closing (CX-2, CX-3) ----------------------------------

    def register_factory(
        self,
        factory: Callable[..., Any],
        *,
        lifetime: Literal["singleton", "per_request"] = "singleton",
        dependencies: Mapping[str | type, Any] | None = None,
        config: Mapping[str, Any] | None = None,
        replace: bool = False,
        **options: Unpack[ToolOptions],
    ) -> Tool:
        """Register a tool class (or factory function) whose instance is created on first use.

        Listing and converting the tool never instantiate it; `close` tears its
        singleton down. See `forge.tools.factory` for dependency injection,
        lifetimes and the setup/teardown hooks.

        Args:
            factory: A `BaseTool` subclass, a class with a typed ``__call__``, or a
                function annotated as returning one.
            lifetime: ``singleton`` or ``per_request``.
            dependencies: Values to inject by constructor parameter name or by type.
            config: Constructor arguments given directly.
            replace: Replace a registered tool of the same name.
            **options: Any of the `ToolOptions`, winning over the class's (see
                `ToolFactory.tool`).
        """
        from forge.tools.factory import ToolFactory

        made = ToolFactory(dependencies).tool(factory, lifetime=lifetime, config=config, **options)
        self.register(made, replace=replace)
        self._factory_tools().append(made)
        return made

    def _factory_tools(self) -> list[Tool]:
        with self._lock:
            tracked: list[Tool] = self.__dict__.setdefault("_factory_tools_list", [])
        return tracked

    def _adopt_factories(self, other: ToolRegistry) -> None:
        """Take over the factory tools another registry tracked (used by plugin loading)."""
        self._factory_tools().extend(other._factory_tools())

    def load_plugins(self, group: str | None = None, *, names: Iterable[str] | None = None) -> Any:
        """Load the tools of installed plugins (entry-point group ``forge_tools.plugins``).

        A plugin that fails is logged and skipped. Returns a
        `forge.tools.plugins.PluginReport`.
        """
        from forge.tools.plugins import PLUGIN_GROUP, load_plugins

        return load_plugins(self, group=group or PLUGIN_GROUP, names=names)

    def close(self) -> None:
        """Tear down the singletons of factory tools (each once; async teardowns run too).

        Covers the tools registered now and those added with `register_factory`
        that were removed or replaced since.
        """
        from forge.tools.factory import close_tools

        close_tools(self._closeable())
        self._close_engine()

    async def aclose(self) -> None:
        """`close` for async code: async teardowns are awaited on the running loop."""
        from forge.tools.factory import aclose_tools

        await aclose_tools(self._closeable())
        self._close_engine()

    def _close_engine(self) -> None:
        """Stop the worker threads of the run methods' engine, if it started any."""
        engine = self.__dict__.get("_run_engine")
        if engine is not None:
            engine.close()

    def _closeable(self) -> list[Tool]:
        seen: dict[int, Tool] = {}
        for t in [*self._state.tools.values(), *self._factory_tools()]:
            seen.setdefault(id(t.source), t)
        return list(seen.values())

    def __enter__(self) -> ToolRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> ToolRegistry:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _raise_for(registry: ToolRegistry, name: str, result: ToolResult) -> ToolResult:
    """The raising API over the engine's result: the same message, as an exception."""
    kind = result.error_kind
    if kind == "unknown_tool":
        found = registry._not_found(name)
        raise ToolNotFoundError(str(name), result.error, suggestions=found.suggestions)
    if "definition_error" in result.metadata:  # a developer's mistake, not the model's
        raise ToolDefinitionError(name, result.metadata["definition_error"])
    if kind in ("invalid_arguments", "invalid_json"):
        from forge.core.errors import FieldError

        errors = [FieldError(**e) for e in result.metadata.get("errors", ())] or [
            FieldError(path="", kind=str(kind), message=result.error or "")
        ]
        raise ToolValidationError(name, errors, message=result.error)
    return result


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _async_fn(tool: Tool | None) -> Any:
    """The coroutine function `aexecute` may call directly, if ``tool`` has one."""
    if tool is None or not tool._plain or tool.timeout is not None or not tool.source.is_async:
        return None
    compiled = tool._compiled
    return None if compiled is None or compiled.validate_python is None else compiled.fn


def _shaped(result: ToolResult) -> ToolResult:
    """What the engine's fast path does to a result that is not a plain success."""
    from forge.tools._steps import _checked, _log_outcome

    result = _checked(result)
    if not result.success:
        _log_outcome(result.tool_name or "?", result, None)
    return result


def _deprecated_strict(strict: bool | None) -> None:
    if strict is not None:
        import warnings

        warnings.warn(
            "execute_all(strict=...) is deprecated and has no effect: arguments answering "
            "strict-mode definitions are always understood",
            DeprecationWarning,
            stacklevel=3,
        )


_default: ToolRegistry | None = None
_default_lock = threading.Lock()


def default_registry() -> ToolRegistry:
    """Return the process-wide registry, creating it on first use."""
    global _default  # noqa: PLW0603 - one lazily created process-wide instance
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = ToolRegistry()
    return _default
