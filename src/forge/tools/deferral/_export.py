"""A provider export with some tools deferred to the provider's own tool search."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from forge.tools.deferral._client import CLIENT, client_search_definition
from forge.tools.deferral._search_tool import make_search_tool
from forge.tools.deferral._select import Searchable, resolve
from forge.tools.formats.deferral import NATIVE_SEARCH, NoNativeSearchError, defer_definitions

if TYPE_CHECKING:
    from forge.tools.formats.report import Errors
    from forge.tools.model.tool import Tool

__all__ = ["deferred_export"]


class _Exporting(Searchable, Protocol):
    def to_provider(
        self, provider: str, *, allowed: Iterable[str] | None = None, strict: bool = False,
        errors: Errors = "report",
    ) -> list[Any]: ...  # fmt: skip


def deferred_export(
    source: _Exporting,
    provider: str,
    defer: Any,
    *,
    tool_search: str | bool = True,
    allowed: Iterable[str] | None = None,
    strict: bool = False,
    errors: Errors = "report",
) -> list[Any]:
    """``source.to_provider(...)`` with the tools ``defer`` names marked ``defer_loading``.

    The provider's search tool goes last (``tool_search``: ``True`` for its default
    variant, a variant's name, or ``False`` for none). ``"client"`` adds the client search
    tool instead (a ``search_tools`` tool for Anthropic, ``{"type": "tool_search",
    "execution": "client", ...}`` for Responses): answer its searches with a native
    session, ``registry.deferred(provider, native=True)``, whose turn methods run them.

    Raises:
        NoNativeSearchError: The provider has no native deferred loading, or no such variant.
        ToolNotFoundError: ``defer`` names a tool that does not exist.
        ValueError: ``"client"`` with a tool already called ``search_tools``.
    """
    if provider not in NATIVE_SEARCH:
        raise NoNativeSearchError(provider)
    if not isinstance(tool_search, bool | str):
        raise TypeError(f"tool_search must be True, False or a variant's name, got {tool_search!r}")
    deferred = resolve(defer, source)
    definitions = source.to_provider(provider, allowed=allowed, strict=strict, errors=errors)
    if tool_search == CLIENT:
        out = defer_definitions(definitions, deferred, provider, add_search=False)
        return [*out, client_search_definition(_search_tool(source, deferred), provider,
                                               strict=strict)]  # fmt: skip
    variant = tool_search if isinstance(tool_search, str) else None
    return defer_definitions(
        definitions, deferred, provider, search=variant, add_search=tool_search is not False
    )


def _search_tool(source: _Exporting, deferred: Iterable[str]) -> Tool:
    """The client search tool of an export: ``search_tools``, searching ``source``.

    Raises:
        ValueError: ``source`` has a tool of that name.
    """
    name = "search_tools"
    if name in source.names():
        raise ValueError(
            f"tool_search='client' adds a tool called {name!r}, but the registry has one: "
            f"use registry.deferred(provider, native=True, search_name=...) to name it otherwise"
        )

    def search(queries: list[str]) -> dict[str, object]:
        found = dict.fromkeys(t.name for q in queries for t in source.search(q, limit=5))
        return {"tools": [{"name": n} for n in found]}

    return make_search_tool(name, len(list(deferred)), search)
