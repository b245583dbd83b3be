"""`ToolRegistry`: the registry and everything done with its tools (RG-1..RG-6).

The registry proper, a `forge.tools.store._store.ToolStore`, keeps storage, events and
lookup: lookups never lock, a mutation costs O(1), listings read an immutable snapshot.
`ToolRegistry` is that store plus the read API it shares with its views
(`forge.tools.views.ToolReads`: provider definitions, search, prompts, the run
methods and the ``filtered``/``prefixed``/``renamed`` views), factories, plugins and closing.

The constructor is not a singleton: tests and multi-tenant servers need
independent registries. `default_registry()` returns the process-wide one.

Reads are safe to change. Lists a read returns are new on each call; what
every caller shares (tool schemas, cached provider definitions, LangChain
tools) is read-only and raises ``TypeError`` on change, naming how to get a
copy (`forge.tools.values.readonly`: dict and list subclasses, so JSON encoders,
httpx and the provider SDKs take them as they are).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Unpack

from forge.tools.model.tool import Tool
from forge.tools.store import EVENTS, RegistryEvent, ToolStore, to_tool
from forge.tools.views import ToolReads

if TYPE_CHECKING:
    from forge.tools.model.options import ToolOptions

__all__ = ["EVENTS", "RegistryEvent", "ToolRegistry", "default_registry", "to_tool"]


class ToolRegistry(ToolStore, ToolReads):
    """A thread-safe registry of tools with O(1) lookup by name.

    Args:
        tools: Tools to register at once (all or nothing).
    """

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
