"""`ToolStore`: the registry proper, a fast, thread-safe collection of tools.

It keeps storage, lookup and events, nothing else; its read API is `ToolReads`, shared
with the views. Conversion, search, prompts and execution are functions and objects
over a store (`forge.tools.registry.views`, `forge.tools.execution`);
`forge.tools.registry.ToolRegistry` adds them back as thin methods.

Lookups never lock, and iteration never races a writer. Writers change one
live dict in place under a lock (O(1) a change, so registering or removing n
tools one by one costs O(n)); readers that iterate get an immutable snapshot (a
dict and a version number), copied once after each burst of changes, on the
first read (which takes the lock only for that copy). A reader always sees one
consistent state.

Reads are safe to change. Lists a read returns are new on each call; what
every caller shares (tool schemas, cached provider definitions, LangChain
tools) is read-only and raises ``TypeError`` on change, naming how to get a
copy (dict and list subclasses, so JSON encoders, httpx and the provider SDKs
take them as they are).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from forge.core.errors import DuplicateToolError, ToolDefinitionError
from forge.tools.model.tool import Tool
from forge.tools.registry._convert import Registrable, to_tool
from forge.tools.registry._reads import ToolReads
from forge.tools.registry.events import Events, EventType, RegistryEvent

__all__ = ["ToolStore"]

T = TypeVar("T")


@dataclass(slots=True)
class _State:
    tools: dict[str, Tool]
    version: int
    derived: dict[Any, Any] = field(default_factory=dict)


class ToolStore(ToolReads):
    """The registry proper: tools with O(1) changes and lookup, snapshots for listings, events.

    Args:
        tools: Tools to register at once (all or nothing).
    """

    def __init__(self, tools: Iterable[Registrable] = ()) -> None:
        self._lock = threading.RLock()
        self._hub = Events()
        # The live tools. Lookups are the hottest read: `registry.get` is the bound
        # `get` of this dict, which lives as long as the registry (writers change it
        # in place, under the lock). It costs what a dict lookup costs, and a saved
        # `registry.get` never goes stale.
        self._lookup: dict[str, Tool] = {}
        if type(self).get is ToolReads.get:  # do not shadow a subclass's get()
            self.__dict__["get"] = self._lookup.get
        self._version = 0
        self._published = _State({}, 0)
        if tools:
            self.register_many(tools)

    @property
    def _state(self) -> _State:
        """The snapshot of the current tools, copied on the first read after a change.

        Writers change the live dict in place, so a change costs O(1) rather than a copy
        of every tool, and a burst of changes costs one copy, made when it is read.
        """
        state = self._published
        if state.version != self._version:
            with self._lock:
                state = self._published
                if state.version != self._version:
                    state = self._published = _State(dict(self._lookup), self._version)
        return state

    def derived(self, key: Hashable, build: Callable[[list[Tool]], T]) -> T:
        """Return a value computed from the current tools, cached until the next change.

        ``build`` gets the tools in registration order. Every caller shares what it
        returns (provider definitions, the search index, prompt text), so it must
        not be changed.
        """
        state = self._state
        value = state.derived.get(key, _MISSING)
        if value is _MISSING:
            value = state.derived[key] = build(list(state.tools.values()))
        return value  # type: ignore[no-any-return]

    # -- the primitives of the read API ---------------------------------------------

    def _by_name(self) -> Mapping[str, Tool]:
        return self._lookup

    def _snapshot(self) -> Mapping[str, Tool]:
        return self._state.tools

    def _events(self) -> Events:
        return self._hub

    def __repr__(self) -> str:
        return f"<{type(self).__name__} tools={len(self)} version={self.version}>"

    @property
    def version(self) -> int:
        """A counter that changes on every mutation (for caching derived artefacts)."""
        return self._version

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
            old = self._lookup.get(new.name)
            if old is not None and not replace:
                raise DuplicateToolError(new.name)
            self._lookup[new.name] = new
            self._version += 1
            kind: EventType = "updated" if old is not None else "registered"
            self._queue(RegistryEvent(kind, new.name, new, old, self._version))
        self._deliver()
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
            tools = self._lookup
            if not replace:
                for t in new:
                    if t.name in tools:
                        raise DuplicateToolError(
                            t.name,
                            "a tool with this name is already registered; nothing was registered",
                        )
            olds = [tools.get(t.name) for t in new]
            tools.update((t.name, t) for t in new)
            self._version += 1
            version = self._version
            for t, old in zip(new, olds, strict=True):
                self._queue(
                    RegistryEvent("updated" if old else "registered", t.name, t, old, version)
                )
        self._deliver()
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
            old = self._lookup.get(name)
            if old is None:
                return False
            self._lookup[name] = new
            self._version += 1
            self._queue(RegistryEvent("updated", name, new, old, self._version))
        self._deliver()
        return True

    def deregister(self, name: str) -> bool:
        """Remove the tool called ``name``; return whether it was registered."""
        with self._lock:
            old = self._lookup.pop(name, None)
            if old is None:
                return False
            self._version += 1
            self._queue(RegistryEvent("removed", name, None, old, self._version))
        self._deliver()
        return True

    def clear(self) -> None:
        """Remove every tool."""
        with self._lock:
            self._lookup.clear()
            self._version += 1
            self._queue(RegistryEvent("cleared", None, None, None, self._version))
        self._deliver()

    def compile_all(self) -> None:
        """Build every tool's schema and validator now (they are otherwise built on first use).

        Raises:
            ToolDefinitionError: For the first tool whose types cannot be compiled.
        """
        for t in self._state.tools.values():
            t.compile()

    def _queue(self, event: RegistryEvent) -> None:
        self._hub.queue(event)

    def _deliver(self) -> None:
        self._hub.deliver()


_MISSING = object()
