"""What is derived from a registry's tools besides provider definitions: search, prompt text.

Functions over a `ToolSource`, each result cached until the source next changes
(``derived``). ``ToolRegistry.search`` and ``.generate_prompt`` are thin methods over
these; provider definitions are `forge.tools.model.source`'s (the executor needs them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from forge.tools.values.categories import ToolCategory

if TYPE_CHECKING:
    from forge.tools.model.prompt import PromptOptions
    from forge.tools.model.source import ToolSource
    from forge.tools.model.tool import Tool
    from forge.tools.search import Embedding

__all__ = ["prompt_text", "search_tools"]


def search_tools(  # noqa: PLR0917 - internal: the options of `ToolRegistry.search`
    store: ToolSource,
    query: str, limit: int, category: ToolCategory | str | None, tags: Iterable[str] | str,
    relevant_only: bool, embedding: str | Embedding | None = None,
) -> list[Tool]:  # fmt: skip
    """The tools most relevant to ``query``, best first (none, with ``relevant_only``, when
    no tool is relevant to it); the options are those of `ToolRegistry.search`.

    The index is cached per version of the store and kept up to date tool by tool: after a
    change, only the tools the store's corpus has not seen are tokenized and embedded.
    """
    from forge.tools.search import SearchIndex, corpus_for, resolve_embedding
    from forge.tools.values.metadata import string_tuple

    corpus = corpus_for(store)
    chosen = resolve_embedding(embedding)
    if chosen is None:
        index = store.derived("search", lambda tools: SearchIndex(tools, corpus=corpus))
    else:
        vectors = corpus_for(store, chosen.name, chosen.dimensions)
        index = store.derived(("search", chosen), lambda tools: SearchIndex(
            tools, corpus=corpus, embedding=chosen, embedding_corpus=vectors))  # fmt: skip
    wanted = ToolCategory.parse(category) if category is not None else None
    return index.search(
        query, limit=limit, category=wanted, tags=string_tuple(tags, "tags"),
        relevant_only=relevant_only,
    )  # fmt: skip


def prompt_text(store: ToolSource, options: PromptOptions) -> str:
    """The tools described as prompt text (the original design's layout), cached per options."""
    from forge.tools.model.prompt import render_prompt

    return store.derived(("prompt", options), lambda tools: render_prompt(tools, options))
