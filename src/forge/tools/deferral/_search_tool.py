"""The search tool of a deferred session: find tools by what they do, reveal them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from forge.tools.model.tool import function_tool

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["MAX_QUERIES", "SHORT", "make_search_tool", "queries_of", "short_description"]

#: The most characters of a tool's description a search result shows.
SHORT = 160
#: The most queries one search call may give (each one ranks the whole catalogue).
MAX_QUERIES = 64

_SENTENCE = re.compile(r"(?<=[.!?])\s")


def short_description(text: str) -> str:
    """The first sentence of ``text``, at most `SHORT` characters."""
    first = _SENTENCE.split(text.strip(), maxsplit=1)[0].strip()
    return first if len(first) <= SHORT else first[: SHORT - 1].rstrip() + "…"


def queries_of(arguments: dict[str, Any]) -> list[str]:
    """The non-blank queries of a search call's validated arguments, ``query`` first.

    Raises:
        ValueError: There is none, or more than `MAX_QUERIES` (the message tells the model
            what to give).
    """
    queries = arguments.get("queries") or []
    asked = [q for q in [arguments.get("query") or "", *queries] if q.strip()]
    if not asked:
        raise ValueError(
            "give what you need to do: query='convert currency', or queries=[...] with one "
            "short search per step"
        )
    if len(asked) > MAX_QUERIES:
        raise ValueError(
            f"give at most {MAX_QUERIES} queries in one search, one short search per step "
            f"(got {len(asked)})"
        )
    return asked


def make_search_tool(name: str, hidden: int, search: Callable[[list[str]], dict[str, Any]]) -> Tool:
    """A tool called ``name`` whose handler is ``search(queries)``.

    It takes one ``query``, several ``queries`` (one per step of a plan), or both.
    ``hidden`` is how many tools the model cannot see yet (said in the description).
    """

    def handler(query: str = "", queries: tuple[str, ...] = ()) -> dict[str, Any]:
        """Find tools for a task.

        Args:
            query: What you need to do, in a few words ("convert currency", "book a room").
            queries: Several such searches at once: one per step of your plan.
        """
        return search(queries_of({"query": query, "queries": queries}))

    description = (
        f"Search {hidden} more tools that are not loaded yet, by what you need to do. "
        "Returns the names and purposes of the best matches; they can be called from then "
        "on. Call it whenever no loaded tool fits the task, before answering that you "
        "cannot. Give one short query per step of your plan (queries=[...]), including "
        "generic steps such as saving a file, the current date or arithmetic."
    )
    return function_tool(handler, name=name, description=description)
