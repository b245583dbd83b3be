"""Toolkits: which tools belong together (one MCP server's, one namespace's).

A search that finds a toolkit's tool can reveal its siblings too: a question that asks to
"create a document" rarely names the tools that fill it in and export it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from forge.core.errors import ToolError

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["Grouping", "GroupSpec", "toolkit_siblings"]

#: What ``groups=`` takes: a separator (``"__"``: a gateway's ``<server>__<tool>`` names
#: group by server), a mapping of tool name to group, or a function of a tool returning its
#: group (``None``: none).
GroupSpec: TypeAlias = "str | Mapping[str, str] | Callable[[Tool], str | None]"


class Grouping:
    """The group of each tool under a `GroupSpec`.

    Raises:
        TypeError: ``spec`` is none of the accepted kinds.
        ValueError: ``spec`` is an empty separator.
    """

    def __init__(self, spec: Any) -> None:
        if isinstance(spec, str):
            if not spec:
                raise ValueError(
                    "groups='' is no separator: give the text between a toolkit's prefix and "
                    "a tool's name (a gateway's is '__'), a mapping or a function"
                )
            self._of: Callable[[Tool], str | None] = lambda tool: _prefix(tool.name, spec)
        elif isinstance(spec, Mapping):
            table = dict(spec)
            for name, group in table.items():
                if not isinstance(name, str) or not isinstance(group, str):
                    raise TypeError(
                        f"groups= as a mapping takes tool name -> group name (strings), got "
                        f"{name!r}: {group!r}"
                    )
            self._of = lambda tool: table.get(tool.name)
        elif callable(spec):
            self._of = spec
        else:
            raise TypeError(
                f"groups= takes a separator, a mapping of tool name to group or a function of "
                f"a Tool, got {type(spec).__name__} {spec!r:.60}"
            )

    def of(self, tool: Tool) -> str | None:
        """The tool's group (``None``: it has none).

        Raises:
            ToolError: A ``groups=`` function raised (its error is the cause).
        """
        try:
            group = self._of(tool)
        except Exception as exc:
            raise ToolError(
                tool.name,
                f"the groups= function raised {type(exc).__name__}: {exc}; it must return "
                "the tool's group name, or None for a tool of no toolkit",
            ) from exc
        if group is not None and not isinstance(group, str):
            raise TypeError(
                f"the groups= function returned {type(group).__name__} for tool "
                f"{tool.name!r}: it must return a group name (str) or None"
            )
        return group or None

    def members(self, tools: Iterable[Tool]) -> dict[str, list[str]]:
        """Each group's tool names, in the order ``tools`` gives them."""
        out: dict[str, list[str]] = {}
        for tool in tools:
            group = self.of(tool)
            if group is not None:
                out.setdefault(group, []).append(tool.name)
        return out


def _prefix(name: str, separator: str) -> str | None:
    head, found, _ = name.partition(separator)
    return head if found and head else None


def toolkit_siblings(
    hits: list[Tool],
    ranked: list[Tool],
    grouping: Grouping,
    members: Mapping[str, list[str]],
    *,
    toolkits: int,
    siblings: int,
    skip: set[str],
) -> list[str]:
    """The siblings a search reveals besides its ``hits`` (best first).

    The toolkits are those of the best hits (at most ``toolkits`` of them, best hit first);
    from each, at most ``siblings`` tools not in ``skip``: first in the order of ``ranked``
    (the search's longer ranking), then in the toolkit's own order.
    """
    groups: list[str] = []
    for tool in hits:
        group = grouping.of(tool)
        if group is not None and group not in groups:
            groups.append(group)
    taken = set(skip)
    out: list[str] = []
    for group in groups[:toolkits]:
        inside = set(members.get(group, ()))
        order = [t.name for t in ranked if t.name in inside] + members.get(group, [])
        chosen = 0
        for name in order:
            if chosen >= siblings:
                break
            if name not in taken:
                taken.add(name)
                out.append(name)
                chosen += 1
    return out
