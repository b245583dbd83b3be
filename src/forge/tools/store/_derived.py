"""What is derived from a registry's tools: provider definitions, search, prompt text.

Functions over a `forge.tools.store._store.ToolStore`, each result cached until the
store next changes (`ToolStore.derived`). `ToolRegistry.to_provider`, ``.search``
and ``.generate_prompt`` are thin methods over these.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from forge.tools.values.categories import ToolCategory

if TYPE_CHECKING:
    from forge.tools.formats.report import Conversion, Errors
    from forge.tools.model.prompt import PromptOptions
    from forge.tools.model.tool import Tool
    from forge.tools.store._store import ToolSource

__all__ = ["prompt_text", "provider_conversion", "provider_definitions", "search_tools"]


def provider_conversion(
    store: ToolSource,
    provider: str,
    *,
    allowed: Iterable[str] | None = None,
    strict: bool = False,
    errors: Errors = "report",
) -> Conversion:
    """The tools in a provider's wire format with one report per tool (see `ToolRegistry`).

    Cached until the store changes; the definitions in it are read-only.
    """
    from forge.tools.formats import convert_all

    keep = None if allowed is None else frozenset(allowed)

    def build(tools: list[Tool]) -> Conversion:
        chosen = [t for t in tools if keep is None or t.name in keep]
        return convert_all(chosen, provider, strict=strict, errors=errors)

    return store.derived(("to_provider", provider, bool(strict), keep, errors), build)


def provider_definitions(
    store: ToolSource,
    provider: str,
    *,
    allowed: Iterable[str] | None = None,
    strict: bool = False,
    errors: Errors = "report",
) -> list[Any]:
    """The tools in a provider's wire format, in registration order (see `ToolRegistry`).

    The definitions are cached and read-only; the list is new on each call.
    """
    conversion = provider_conversion(store, provider, allowed=allowed, strict=strict, errors=errors)
    return list(conversion.definitions)


def search_tools(
    store: ToolSource,
    query: str,
    *,
    limit: int = 10,
    category: ToolCategory | str | None = None,
    tags: Iterable[str] | str = (),
) -> list[Tool]:
    """The tools most relevant to ``query``, best first.

    The index is cached per version of the store and kept up to date tool by tool: after a
    change, only the tools the store's corpus has not seen are tokenized and embedded.
    """
    from forge.tools.search import SearchIndex, corpus_for
    from forge.tools.values.metadata import string_tuple

    corpus = corpus_for(store)
    index = store.derived("search", lambda tools: SearchIndex(tools, corpus=corpus))
    wanted = ToolCategory.parse(category) if category is not None else None
    return index.search(query, limit=limit, category=wanted, tags=string_tuple(tags, "tags"))


def prompt_text(store: ToolSource, options: PromptOptions) -> str:
    """The tools described as prompt text (seed 001's layout), cached per options."""
    from forge.tools.model.prompt import render_prompt

    return store.derived(("prompt", options), lambda tools: render_prompt(tools, options))
