"""The catalog's tool list: one summary per tool, category and tag counts, filters.

A `Listing` is built once per registry version (``registry.derived``), so listing
10,000 tools costs a filter over ready summaries, not a walk over the tools.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["Listing", "first_line", "tool_summary"]


def first_line(text: str) -> str:
    """The first non-blank line of ``text``, stripped (``""`` for blank text)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def tool_summary(tool: Tool) -> dict[str, Any]:
    """What the list shows of one tool (JSON-ready)."""
    meta = tool.metadata
    hints = tool.annotations
    return {
        "name": tool.name,
        "display_name": meta.display_name or hints.title or tool.name,
        "summary": first_line(tool.description),
        "category": meta.category.value,
        "tags": list(meta.tags),
        "version": meta.version,
        "deprecated": meta.deprecated,
        "destructive": hints.destructive is True,
        "read_only": hints.read_only is True,
    }


@dataclass(frozen=True, slots=True)
class Listing:
    """Every tool's summary in registration order, with category and tag counts."""

    summaries: tuple[dict[str, Any], ...]
    """One `tool_summary` per tool, in registration order."""
    by_name: dict[str, dict[str, Any]]
    """The same summaries by tool name."""
    categories: tuple[dict[str, Any], ...]
    """``{"name", "count"}`` per category, by name."""
    tags: tuple[dict[str, Any], ...]
    """``{"name", "count"}`` per tag, most used first, then by name."""

    @classmethod
    def build(cls, tools: Sequence[Tool]) -> Listing:
        """Summarise ``tools`` (the registry's, in order)."""
        summaries = tuple(tool_summary(t) for t in tools)
        categories = Counter(s["category"] for s in summaries)
        tags = Counter(tag for s in summaries for tag in s["tags"])
        return cls(
            summaries=summaries,
            by_name={s["name"]: s for s in summaries},
            categories=tuple({"name": n, "count": c} for n, c in sorted(categories.items())),
            tags=tuple(
                {"name": n, "count": c} for n, c in sorted(tags.items(), key=_most_used_first)
            ),
        )

    def select(
        self,
        *,
        names: Iterable[str] | None = None,
        category: str | None = None,
        tags: Sequence[str] = (),
    ) -> list[dict[str, Any]]:
        """The summaries of ``names`` (default: all, in order) in ``category`` with all ``tags``."""
        chosen: Iterable[dict[str, Any]] = (
            self.summaries
            if names is None
            else (self.by_name[n] for n in names if n in self.by_name)
        )
        if category:
            chosen = (s for s in chosen if s["category"] == category)
        if tags:
            wanted = set(tags)
            chosen = (s for s in chosen if wanted.issubset(s["tags"]))
        return list(chosen)


def _most_used_first(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]
