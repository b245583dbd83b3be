"""`ToolRegistry`: the registry and everything done with its tools (RG-1..RG-6).

The registry proper, a `forge.tools.store._store.ToolStore`, keeps storage, events and
lookup: readers never lock, every mutation publishes a new immutable snapshot.
`ToolRegistry` is that store plus thin methods over it: provider definitions,
search and prompts (`forge.tools.store._derived`), the run methods (the one engine,
`forge.tools.execution.executor`), factories, plugins and closing.

The constructor is not a singleton: tests and multi-tenant servers need
independent registries. `default_registry()` returns the process-wide one.

Reads are safe to change. Lists a read returns are new on each call; what
every caller shares (tool schemas, cached provider definitions, LangChain
tools) is read-only and raises ``TypeError`` on change, naming how to get a
copy (`forge.tools.values._readonly`: dict and list subclasses, so JSON encoders,
httpx and the provider SDKs take them as they are).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Unpack

from forge.core.errors import ToolDefinitionError, ToolNotFoundError, ToolValidationError
from forge.tools.execution._run import _cancelled, _checked, failure, finish
from forge.tools.model.tool import Tool
from forge.tools.store._derived import prompt_text, provider_definitions, search_tools
from forge.tools.store._store import EVENTS, RegistryEvent, ToolStore, to_tool
from forge.tools.values.calls import ToolCall
from forge.tools.values.categories import ToolCategory
from forge.tools.values.context import ExecutionContext
from forge.tools.values.results import ToolResult, _ok_for

if TYPE_CHECKING:
    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.model.options import ToolOptions
    from forge.tools.model.prompt import PromptKeywords, PromptOptions

__all__ = ["EVENTS", "RegistryEvent", "ToolRegistry", "default_registry", "to_tool"]


class ToolRegistry(ToolStore):
    """A thread-safe registry of tools with O(1) lookup by name.

    Args:
        tools: Tools to register at once (all or nothing).
    """

    # -- derived from the tools (cached until the next change) -------------------

    def definitions(self) -> list[dict[str, Any]]:
        """Return every tool's provider-neutral definition (no handlers; schemas read-only)."""
        return [t.to_dict() for t in self]

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
        return provider_definitions(self, provider, allowed=allowed, strict=strict)

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
        return search_tools(self, query, limit=limit, category=category, tags=tags)

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
        from forge.tools.model.prompt import PromptOptions

        return prompt_text(self, PromptOptions.coerce(options, keywords))

    # -- running -------------------------------------------------------------
    #
    # Every run method goes through the one engine (`forge.tools.execution._pipeline`); the
    # raising ones turn its unknown-tool and invalid-argument results into
    # exceptions that carry the same message.

    def execute(
        self, name: str, arguments: Any = None, *, context: ExecutionContext | None = None
    ) -> ToolResult:
        """Validate and run one tool.

        The context's timeout holds as on every entry point: a sync handler then
        runs on a worker thread (see `forge.tools.execution.executor`).

        Returns:
            ``ToolResult.ok(<return value>)``, or a failed result if the handler raised,
            timed out or was denied.

        Raises:
            ToolNotFoundError: No tool is called ``name``.
            ToolValidationError: The arguments are not JSON or do not match the schema.
            ToolDefinitionError: The tool's definition cannot be compiled.

        Both model-caused errors carry, as ``message``, the text every other entry
        point puts in its failed result (`forge.tools.execution.failures`).
        """
        found = self.get(name)
        if found is not None and found._direct and context is None:
            compiled = found._compiled
            if compiled is not None and compiled.run_sync is not None:
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

    def _engine(self) -> ToolExecutor:
        """The engine of the run methods: no context of its own, no hooks, no policy."""
        engine: ToolExecutor | None = self.__dict__.get("_run_engine")
        if engine is None:
            from forge.tools.execution.executor import contextless

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
    from forge.tools.execution._steps import _log_outcome

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
