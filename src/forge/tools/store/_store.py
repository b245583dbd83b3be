"""`ToolStore`: the registry proper, a fast, thread-safe collection of tools (RG-1..RG-6).

It keeps storage, events and lookup, nothing else. Conversion, search, prompts and
execution are functions and objects over a store (`forge.tools.store._derived`,
`forge.tools.execution.executor`); `forge.tools.registry.ToolRegistry` adds them back as
thin methods.

Lookups never lock, and iteration never races a writer. Writers change one
live dict in place under a lock (O(1) a change, so registering or removing n
tools one by one costs O(n)); readers that iterate get an immutable snapshot (a
dict and a version number), copied once after each burst of changes, on the
first read (which takes the lock only for that copy). A reader always sees one
consistent state.

Reads are safe to change. Lists a read returns are new on each call; what
every caller shares (tool schemas, cached provider definitions, LangChain
tools) is read-only and raises ``TypeError`` on change, naming how to get a
copy (`forge.tools.values.readonly`: dict and list subclasses, so JSON encoders,
httpx and the provider SDKs take them as they are).
"""

from __future__ import annotations

import inspect
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from forge.core.errors import DuplicateToolError, ToolDefinitionError, ToolNotFoundError
from forge.core.logging import get_logger
from forge.core.text import article
from forge.tools.model.tool import Tool
from forge.tools.values.categories import ToolCategory

__all__ = ["EVENTS", "RegistryEvent", "ToolSource", "ToolStore", "to_tool"]

logger = get_logger("tools.registry")

T = TypeVar("T")
EventType = Literal["registered", "updated", "removed", "cleared"]
EVENTS: tuple[EventType, ...] = ("registered", "updated", "removed", "cleared")
Listener = Callable[["RegistryEvent"], Any]
Registrable = Tool | Callable[..., Any] | Mapping[str, Any] | Any


@dataclass(frozen=True, slots=True)
class RegistryEvent:
    """What changed in a registry; delivered to listeners after the change is visible.

    Every listener gets the events in version order, whichever threads made the
    changes; a change returns once its events are delivered, except a change made
    by a listener, whose events follow the one being delivered.
    """

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


class ToolSource(Protocol):
    """What the executor and the derived functions read: a store, a registry or a view."""

    @property
    def version(self) -> int:
        """A counter that changes whenever the tools do."""
        ...

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or ``None``."""
        ...

    def names(self) -> list[str]:
        """Every tool name, in order."""
        ...

    def derived(self, key: Hashable, build: Callable[[list[Tool]], T]) -> T:
        """A value computed from the tools, cached until they change."""
        ...


def to_tool(item: Registrable) -> Tool:
    """Turn anything `ToolRegistry.register` accepts into a `Tool`."""
    if isinstance(item, Tool):
        return item
    converts = getattr(type(item), "to_tool", None)
    if isinstance(item, type) and callable(getattr(item, "to_tool", None)):
        raise ToolDefinitionError(
            item.__name__, "register an instance of this BaseTool subclass, not the class itself"
        )
    if callable(converts):  # a `BaseTool` (or anything else that knows its `Tool`)
        tool: Tool = converts(item)
        return tool
    if isinstance(item, Mapping):
        from forge.tools.model.records import from_record

        return from_record(item)
    if not inspect.isfunction(item):
        from forge.tools.store._foreign import foreign_tool_hint

        hint = foreign_tool_hint(item)
        if hint is not None:
            name = getattr(item, "name", None)
            raise ToolDefinitionError(
                name if isinstance(name, str) else "<unknown>", f"cannot register {hint}"
            )
    if callable(item):
        from forge.tools.model.tool import function_tool

        return function_tool(item)
    raise ToolDefinitionError(
        "<unknown>",
        f"cannot register {article(type(item).__name__)}: expected a Tool, a "
        "forge.tools.BaseTool instance, a typed function or a record mapping",
    )


class ToolStore:
    """The registry proper: tools with O(1) changes and lookup, snapshots for listings, events.

    Args:
        tools: Tools to register at once (all or nothing).
    """

    get: Callable[[str], Tool | None]

    def __init__(self, tools: Iterable[Registrable] = ()) -> None:
        self._lock = threading.RLock()
        self._pending: deque[RegistryEvent] = deque()
        self._delivering = threading.Lock()
        self._deliverer: int | None = None
        self._listeners: dict[str, tuple[Listener, ...]] = dict.fromkeys(EVENTS, ())
        # The live tools. Lookups are the hottest read: `registry.get` is the bound
        # `get` of this dict, which lives as long as the registry (writers change it
        # in place, under the lock). It costs what a dict lookup costs, and a saved
        # `registry.get` never goes stale.
        self._lookup: dict[str, Tool] = {}
        if type(self).get is ToolStore.get:  # do not shadow a subclass's get()
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

    # -- reading -------------------------------------------------------------

    def get(self, name: str) -> Tool | None:  # type: ignore[no-redef]
        """Return the tool called ``name``, or ``None``; never raises."""
        return self._lookup.get(name)

    def get_or_raise(self, name: str) -> Tool:
        """Return the tool called ``name``.

        Raises:
            ToolNotFoundError: With close matches as suggestions.
        """
        found = self._lookup.get(name)
        if found is None:
            raise self._not_found(name)
        return found

    def get_handler(self, name: str) -> Callable[..., Any] | None:
        """Return the Python handler of the tool called ``name``, or ``None``."""
        found = self._lookup.get(name)
        return found.handler if found is not None else None

    def exists(self, name: str) -> bool:
        """Return whether a tool called ``name`` is registered."""
        return name in self._lookup

    def __contains__(self, name: object) -> bool:
        return name in self._lookup

    def __len__(self) -> int:
        return len(self._lookup)

    def __iter__(self) -> Iterator[Tool]:
        return iter(tuple(self._state.tools.values()))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} tools={len(self)} version={self.version}>"

    @property
    def version(self) -> int:
        """A counter that changes on every mutation (for caching derived artefacts)."""
        return self._version

    def list_all(self) -> list[Tool]:
        """Return every tool in registration order."""
        return list(self._state.tools.values())

    def names(self) -> list[str]:
        """Return every tool name in registration order."""
        return list(self._state.tools)

    def list_by_category(self, category: ToolCategory | str) -> list[Tool]:
        """Return the tools of one category (aliases such as ``file-system`` accepted)."""
        wanted = ToolCategory.parse(category)
        return [t for t in self._state.tools.values() if t.metadata.category is wanted]

    def list_by_tag(self, tag: str) -> list[Tool]:
        """Return the tools carrying ``tag``."""
        return [t for t in self._state.tools.values() if tag in t.metadata.tags]

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

    def _queue(self, event: RegistryEvent) -> None:
        """Queue an event (under the writer lock, so the queue is in version order)."""
        self._pending.append(event)

    def _deliver(self) -> None:
        """Deliver queued events in version order, one deliverer at a time.

        A writer returns only once its events are delivered (by itself or by the
        thread delivering when it wrote). A change made by a listener is queued
        and delivered after the event being delivered, never in the middle of it.
        """
        me = threading.get_ident()
        if self._deliverer == me:
            return
        with self._delivering:
            self._deliverer = me
            try:
                pending = self._pending
                while pending:
                    self._emit(pending.popleft())
            finally:
                self._deliverer = None

    def _emit(self, event: RegistryEvent) -> None:
        for listener in self._listeners[event.type]:
            try:
                listener(event)
            except Exception:
                logger.exception("registry listener %r failed on %s event", listener, event.type)

    def _not_found(self, name: str) -> ToolNotFoundError:
        import difflib

        names = list(self._state.tools)
        close = difflib.get_close_matches(str(name), names, n=3) if names else []
        return ToolNotFoundError(str(name), suggestions=close)


_MISSING = object()
