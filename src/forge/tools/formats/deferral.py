"""Provider-native deferred loading: tools the model finds with the provider's tool search.

A deferred tool is sent with ``"defer_loading": true``: the provider keeps its definition
out of the model's context until its own tool search (a server tool sent alongside) finds
it. Two providers have it:

=================  ====================================================================
provider           search tool added to the export
=================  ====================================================================
anthropic          ``{"type": "tool_search_tool_bm25_20251119", "name":
                   "tool_search_tool_bm25"}`` (``search="bm25"``, the default) or the
                   ``regex`` variant (``search="regex"``); both are in the SDK's GA
                   ``ToolUnionParam``, so no beta header is needed on the Messages API
openai-responses   ``{"type": "tool_search"}`` (run by OpenAI; ``search="server"``)
=================  ====================================================================

Both also take a search the client runs (``tool_search="client"``, built in
`forge.tools.deferral`: a ``search_tools`` tool for Anthropic, ``{"type": "tool_search",
"execution": "client", ...}`` for Responses). Other providers have no tool search of their
own: use a search-tool session (``registry.deferred(provider)``), which works everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from forge.core.errors import UnsupportedProviderError
from forge.tools.values.readonly import ReadOnlyDict

__all__ = [
    "NATIVE_SEARCH",
    "NoNativeSearchError",
    "defer_definitions",
    "native_search_tool",
    "native_search_tool_names",
]

#: Each provider with native deferred loading, and its search variants (the first is the
#: default).
NATIVE_SEARCH: dict[str, tuple[str, ...]] = {
    "anthropic": ("bm25", "regex"),
    "openai-responses": ("server",),
}

_SEARCH_TOOLS: dict[tuple[str, str], Mapping[str, Any]] = {
    ("anthropic", "bm25"): {"type": "tool_search_tool_bm25_20251119",
                            "name": "tool_search_tool_bm25"},
    ("anthropic", "regex"): {"type": "tool_search_tool_regex_20251119",
                             "name": "tool_search_tool_regex"},
    ("openai-responses", "server"): {"type": "tool_search"},
}  # fmt: skip


class NoNativeSearchError(UnsupportedProviderError):
    """A deferred export asked of a provider without native tool search (or an unknown variant)."""

    def __init__(self, provider: str, search: object = None) -> None:
        self.provider = provider
        self.supported = tuple(NATIVE_SEARCH)
        self.search = search
        variants = NATIVE_SEARCH.get(provider)
        if variants is None:
            message = (
                f"{provider} has no native deferred loading (providers with it: "
                f"{', '.join(NATIVE_SEARCH)}); for {provider}, use a search-tool session: "
                f"session = registry.deferred({provider!r}, pinned=[...]), then "
                "tools=session.tools() and session.run_turn(response)"
            )
        else:
            message = (
                f"search={search!r} is not a {provider} tool search; choose one of "
                f"{', '.join(repr(v) for v in variants)} (or None to add no search tool; "
                "tool_search='client' runs the search yourself, answered by "
                f"registry.deferred({provider!r}, native=True))"
            )
        Exception.__init__(self, message)

    def __reduce__(self) -> tuple[type[NoNativeSearchError], tuple[str, object]]:  # type: ignore[override]
        return (type(self), (str(self.provider), self.search))


def native_search_tool(provider: str, search: str | None = None) -> dict[str, Any]:
    """The provider's own search tool definition (``search`` picks the variant).

    Raises:
        NoNativeSearchError: The provider has no tool search, or no such variant.
    """
    variants = NATIVE_SEARCH.get(provider)
    if variants is None:
        raise NoNativeSearchError(provider)
    found = _SEARCH_TOOLS.get((provider, variants[0] if search is None else search))
    if found is None:
        raise NoNativeSearchError(provider, search)
    return ReadOnlyDict(found)


def native_search_tool_names(provider: str) -> frozenset[str]:
    """The names under which the provider's search tool appears in ``server_tool_use`` blocks."""
    return frozenset(
        str(d["name"]) for (p, _), d in _SEARCH_TOOLS.items() if p == provider and "name" in d
    )


def defer_definitions(
    definitions: Sequence[Any],
    deferred: Iterable[str],
    provider: str,
    *,
    search: str | None = None,
    add_search: bool = True,
) -> list[Any]:
    """Mark the definitions of the ``deferred`` tools ``defer_loading``; add the search tool.

    ``definitions`` are one provider's (``to_provider``'s); those not named are kept as
    they are. The search tool goes last, never deferred (the provider rejects a deferred
    one). A request whose every tool is deferred needs it, so ``add_search=False`` is only
    for a caller sending its own.

    Raises:
        NoNativeSearchError: The provider has no native deferred loading.
    """
    names = frozenset(deferred)
    tool = native_search_tool(provider, search) if add_search else None
    if tool is None and provider not in NATIVE_SEARCH:
        raise NoNativeSearchError(provider)
    out: list[Any] = []
    for definition in definitions:
        if isinstance(definition, Mapping) and definition.get("name") in names:
            out.append(ReadOnlyDict({**definition, "defer_loading": True}))
        else:
            out.append(definition)
    if tool is not None:
        out.append(tool)
    return out
