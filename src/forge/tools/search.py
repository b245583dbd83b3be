"""Ranked tool search (RG-5): BM25 over weighted fields, with bm25s.

Each tool becomes one document in which fields are weighted by repetition:
the name counts three times, display name and tags twice, description,
category and parameter names and descriptions once. Names are split on
snake_case, kebab-case, camelCase and dots so ``getWeather`` matches "weather".
The index is built once per registry version.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from forge.tools.categories import ToolCategory

if TYPE_CHECKING:
    from forge.tools.tool import Tool

__all__ = ["SearchIndex", "tokenize"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+")
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "with",
        "you",
        "your",
        "can",
        "do",
        "does",
    }
)
_FIELD_WEIGHTS = {
    "name": 3,
    "display_name": 2,
    "tags": 2,
    "description": 1,
    "category": 1,
    "params": 1,
}


def tokenize(text: str) -> list[str]:
    """Split text and identifiers into lowercase search terms."""
    terms = []
    for word in _WORD.findall(_CAMEL.sub(" ", text.replace("_", " ").replace("-", " "))):
        term = word.lower()
        if term in _STOP:
            continue
        if len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
            term = term[:-1]
        terms.append(term)
    return terms


def _document(tool: Tool) -> list[str]:
    meta = tool.metadata
    fields = {
        "name": tool.name,
        "display_name": meta.display_name or "",
        "tags": " ".join(meta.tags),
        "description": tool.description,
        "category": meta.category.value,
        "params": _parameter_text(tool),
    }
    doc: list[str] = []
    for key, text in fields.items():
        doc.extend(tokenize(text) * _FIELD_WEIGHTS[key])
    return doc


def _parameter_text(tool: Tool) -> str:
    """Parameter names and descriptions, without compiling lazily-built tools."""
    from forge.tools._sources import FunctionSource

    source = tool.source
    if tool._compiled is None and isinstance(source, FunctionSource):
        import inspect

        names = list(inspect.signature(source.fn).parameters)
        return " ".join(names + list(source.param_descriptions.values()))
    try:
        properties: dict[str, Any] = tool.parameters.get("properties", {})
    except Exception:  # a tool whose schema cannot be built is still searchable by name
        return ""
    parts = []
    for name, prop in properties.items():
        parts.append(name)
        if isinstance(prop, dict) and isinstance(prop.get("description"), str):
            parts.append(prop["description"])
    return " ".join(parts)


class SearchIndex:
    """A BM25 index over a fixed list of tools."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = list(tools)
        self._retriever: Any = None
        if self._tools:
            import bm25s

            self._retriever = bm25s.BM25()
            self._retriever.index([_document(t) or ["_"] for t in self._tools], show_progress=False)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        category: ToolCategory | None = None,
        tags: Sequence[str] = (),
    ) -> list[Tool]:
        """Return up to ``limit`` matching tools, best first; ties keep registration order."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        terms = tokenize(query)
        if self._retriever is None or not terms:
            return []
        scores = self._retriever.get_scores(terms)
        ranked = sorted(
            (i for i, s in enumerate(scores) if s > 0 and self._keep(i, category, tags)),
            key=lambda i: -float(scores[i]),
        )
        return [self._tools[i] for i in ranked[:limit]]

    def _keep(self, i: int, category: ToolCategory | None, tags: Sequence[str]) -> bool:
        meta = self._tools[i].metadata
        return (category is None or meta.category is category) and all(t in meta.tags for t in tags)
