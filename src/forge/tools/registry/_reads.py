"""The read API of a registry and of its views, written once (`ToolReads`).

A class using it provides four primitives: ``_by_name()`` (the mapping point lookups
read, never changed in a way a lookup could see half done), ``_snapshot()`` (an
unchanging mapping of the tools in registration order, for listings), ``_events()``
(where ``on``/``off`` subscribe) and ``version``. Everything else is derived here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from forge.core.errors import ToolNotFoundError
from forge.tools.values.categories import ToolCategory

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool
    from forge.tools.registry.events import Events, EventType, Listener

__all__ = ["ToolReads"]


class ToolReads:
    """Lookups, listings and event subscriptions over the four primitives (module docstring)."""

    __slots__ = ()

    if TYPE_CHECKING:  # the primitives: `ToolStore` and `ToolView` each define all four

        def _by_name(self) -> Mapping[str, Tool]: ...
        def _snapshot(self) -> Mapping[str, Tool]: ...
        def _events(self) -> Events: ...
        @property
        def version(self) -> int:
            """A counter that changes on every change of the tools (for caching)."""

    # -- lookups ---------------------------------------------------------------------

    def get(self, name: str) -> Tool | None:
        """Return the tool called ``name``, or ``None``; never raises."""
        return self._by_name().get(name)

    def get_or_raise(self, name: str) -> Tool:
        """Return the tool called ``name``.

        Raises:
            ToolNotFoundError: With close matches among the names as suggestions.
        """
        found = self.get(name)
        if found is None:
            raise self._not_found(name)
        return found

    def get_handler(self, name: str) -> Callable[..., Any] | None:
        """Return the Python handler of the tool called ``name``, or ``None``."""
        found = self.get(name)
        return found.handler if found is not None else None

    def exists(self, name: str) -> bool:
        """Return whether there is a tool called ``name``."""
        return name in self._by_name()

    def __contains__(self, name: object) -> bool:
        return name in self._by_name()

    def __len__(self) -> int:
        return len(self._by_name())

    def _not_found(self, name: str) -> ToolNotFoundError:
        import difflib

        names = self.names()
        close = difflib.get_close_matches(str(name), names, n=3) if names else []
        return ToolNotFoundError(str(name), suggestions=close)

    # -- listings (an unchanging snapshot, in registration order) ------------------------

    def __iter__(self) -> Iterator[Tool]:
        return iter(tuple(self._snapshot().values()))

    def list_all(self) -> list[Tool]:
        """Return every tool in registration order."""
        return list(self._snapshot().values())

    def names(self) -> list[str]:
        """Return every tool name in registration order."""
        return list(self._snapshot())

    def list_by_category(self, category: ToolCategory | str) -> list[Tool]:
        """Return the tools of one category (aliases such as ``file-system`` accepted)."""
        wanted = ToolCategory.parse(category)
        return [t for t in self._snapshot().values() if t.metadata.category is wanted]

    def list_by_tag(self, tag: str) -> list[Tool]:
        """Return the tools carrying ``tag``."""
        return [t for t in self._snapshot().values() if tag in t.metadata.tags]

    # -- events ----------------------------------------------------------------------

    def on(self, event: EventType, listener: Listener) -> None:
        """Call ``listener(event)`` after each change of this type.

        A view passes on its registry's events, with the registry's names: any change
        may change the view.
        """
        self._events().on(event, listener)

    def off(self, event: EventType, listener: Listener) -> None:
        """Stop calling ``listener`` for this event type (no error if it was not subscribed)."""
        self._events().off(event, listener)
