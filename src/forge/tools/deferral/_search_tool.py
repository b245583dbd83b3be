"""The search tool of a deferred session: find tools by what they do, reveal them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from forge.tools.model.tool import function_tool

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["SHORT", "make_search_tool", "short_description"]

#: The most characters of a tool's description a search result shows.
SHORT = 160

_SENTENCE = re.compile(r"(?<=[.!?])\s")


def short_description(text: str) -> str:
    """The first sentence of ``text``, at most `SHORT` characters."""
    first = _SENTENCE.split(text.strip(), maxsplit=1)[0].strip()
    return first if len(first) <= SHORT else first[: SHORT - 1].rstrip() + "…"


def make_search_tool(name: str, hidden: int, search: Callable[[str], dict[str, Any]]) -> Tool:
    """A tool called ``name`` whose handler is ``search(query)``.

    ``hidden`` is how many tools the model cannot see yet (said in the description).
    """

    def handler(query: str) -> dict[str, Any]:
        """Find tools for a task.

        Args:
            query: What you need to do, in a few words ("convert currency", "book a room").
        """
        return search(query)

    description = (
        f"Search {hidden} more tools that are not loaded yet, by what you need to do. "
        "Returns the names and purposes of the best matches; they can be called from then "
        "on. Call it whenever no loaded tool fits the task, before answering that you "
        "cannot."
    )
    return function_tool(handler, name=name, description=description)
