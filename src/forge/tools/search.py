"""Ranked tool search (RG-5): BM25 over weighted fields, with bm25s.

Each tool becomes one document in which fields are weighted by repetition:
the name counts four times, the description, display name and tags twice,
the category and the parameters (names, descriptions and enum values, nested
ones included) once. Names are split on snake_case, kebab-case, camelCase and
dots so ``getWeather`` matches "weather". Stop words (including the polite and
conversational words of chat requests), numbers and single letters are not
terms. The index is built once per registry version.

The weights, stop words and BM25 parameters (k1 = 1.2, b = 0.5) were chosen on
BFCL's single-function categories and are measured on its ``multiple`` and
``live_multiple`` categories (``bench/bench_search.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from forge.tools.categories import ToolCategory

if TYPE_CHECKING:
    from forge.tools.tool import Tool

__all__ = ["SearchIndex", "tokenize"]

K1 = 1.2
B = 0.5
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "about",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "he",
        "hello",
        "her",
        "hey",
        "hi",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "know",
        "let",
        "like",
        "me",
        "much",
        "my",
        "need",
        "now",
        "of",
        "on",
        "or",
        "our",
        "please",
        "she",
        "should",
        "so",
        "some",
        "tell",
        "than",
        "thank",
        "thanks",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "up",
        "us",
        "very",
        "want",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
_FIELD_WEIGHTS = {
    "name": 4,
    "display_name": 2,
    "tags": 2,
    "description": 2,
    "category": 1,
    "params": 1,
}


@lru_cache(maxsize=65536)
def _term(word: str) -> str | None:
    term = word.lower()
    if len(term) < 2 or term in _STOP or term.isdigit():
        return None
    if len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
        term = term[:-1]
    return term


def tokenize(text: str) -> list[str]:
    """Split text and identifiers into lowercase search terms."""
    split = _CAMEL.sub(" ", text.replace("_", " ").replace("-", " "))
    return [term for word in _WORD.findall(split) if (term := _term(word)) is not None]


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
    """Parameter names, descriptions and enum values, without compiling lazy tools."""
    from forge.tools._sources import FunctionSource

    source = tool.source
    if tool._compiled is None and isinstance(source, FunctionSource):
        import inspect

        names = list(inspect.signature(source.fn).parameters)
        return " ".join(names + list(source.param_descriptions.values()))
    try:
        schema: Any = tool.parameters
    except Exception:  # a tool whose schema cannot be built is still searchable by name
        return ""
    return " ".join(_schema_words(schema, depth=0))


def _schema_words(node: Any, depth: int) -> Iterator[str]:
    if not isinstance(node, dict) or depth > 4:
        return
    properties = node.get("properties")
    for name, prop in (properties if isinstance(properties, dict) else {}).items():
        yield str(name)
        if not isinstance(prop, dict):
            continue
        if isinstance(prop.get("description"), str):
            yield prop["description"]
        if isinstance(prop.get("enum"), list):
            yield from (v for v in prop["enum"] if isinstance(v, str))
        yield from _schema_words(prop, depth + 1)
        yield from _schema_words(prop.get("items"), depth + 1)


class SearchIndex:
    """A BM25 index over a fixed list of tools."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = list(tools)
        self._retriever: Any = None
        self._masks: dict[tuple[Any, ...], Any] = {}
        if self._tools:
            import bm25s

            self._retriever = bm25s.BM25(k1=K1, b=B)
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
        import numpy as np

        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        terms = tokenize(query)
        if self._retriever is None or not terms:
            return []
        scores = self._retriever.get_scores(terms)
        keep = scores > 0
        if category is not None or tags:
            keep &= self._mask(category, tuple(tags))
        candidates = np.flatnonzero(keep)
        if len(candidates) > limit:
            best = np.argpartition(-scores[candidates], limit - 1)[:limit]
            threshold = scores[candidates[best]].min()
            candidates = candidates[scores[candidates] >= threshold]
        order = np.lexsort((candidates, -scores[candidates]))
        return [self._tools[i] for i in candidates[order][:limit]]

    def _mask(self, category: ToolCategory | None, tags: tuple[str, ...]) -> Any:
        import numpy as np

        key = (category, tags)
        mask = self._masks.get(key)
        if mask is None:
            mask = self._masks[key] = np.fromiter(
                (
                    (category is None or t.metadata.category is category)
                    and all(tag in t.metadata.tags for tag in tags)
                    for t in self._tools
                ),
                dtype=bool,
                count=len(self._tools),
            )
        return mask
