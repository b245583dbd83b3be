"""Tools that go together: one toolkit's, and the tool that finds what another needs.

A request of several steps names the topic of each step but rarely every tool it takes. Two
things the registry itself knows say which other tools a found one brings along:

* **Toolkits**: tools whose names (or display names) share a prefix before a separator
  (``"__"`` as a gateway prefixes a server's tools, ``" / "``, ``"/"``, ``"."``, ``":"``) come
  from one server or API. A toolkit of at most `TOOLKIT_MAX` tools is small enough that its
  tools are often used together; a larger prefix (``GET``, one vendor's whole API) says little.
* **Finders**: a tool with a required parameter such as ``movie_id`` or ``artistId`` (or a
  bare ``id`` after ``artist`` in its name) needs the id of an entity the request names only
  by its title. The tool that finds it is the best match for "search <entity>" among the
  tools whose names hold the entity and that do not themselves need its id.

Both are read from names and parameter schemas alone: no tool, word list or dataset is
special.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

from forge.tools.search._tokens import identifier_terms, tokenize

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = [
    "TOOLKIT_MAX",
    "Toolkits",
    "finder_query",
    "finders",
    "id_given",
    "needed_entities",
    "required_parameters",
    "toolkit_key",
    "toolkit_mates",
    "toolkits",
]

#: A name prefix shared by more tools than this is not taken for a toolkit.
TOOLKIT_MAX = 20
#: Separators between a toolkit's prefix and a tool's own name, tried in this order.
_SEPARATORS = ("__", " / ", "/", ".", ":")
#: A parameter naming the id of an entity: ``movie_id``, ``artistId``, ``track-ids``, ``id``.
_WORDS = re.compile(r"\w+")
_ID = re.compile(r"^(.*?)[_\-\s]?(?:id|ids|Id|ID|Ids|IDs)$")


def _prefix(text: str) -> str | None:
    for separator in _SEPARATORS:
        head, found, tail = text.partition(separator)
        if found and head.strip() and tail.strip():
            return head.strip().casefold()
    return None


class Toolkits(NamedTuple):
    """Each tool's toolkit (``None``: none) and each toolkit's tools in registration order."""

    keys: list[str | None]
    members: dict[str, list[int]]


def toolkit_key(name: str, display_name: str | None) -> str | None:
    """The toolkit prefix of a tool's display name or else its name (``None``: none)."""
    return (_prefix(display_name) if display_name else None) or _prefix(name)


def toolkits(keys: Sequence[str | None]) -> Toolkits:
    r"""The toolkits of tools with these `toolkit_key`\ s, each having 2 to `TOOLKIT_MAX` tools."""
    sizes = Counter(keys)
    kept = [key if key is not None and 1 < sizes[key] <= TOOLKIT_MAX else None for key in keys]
    members: dict[str, list[int]] = {}
    for i, key in enumerate(kept):
        if key is not None:
            members.setdefault(key, []).append(i)
    return Toolkits(kept, members)


def toolkit_mates(kits: Toolkits, rankings: Sequence[Sequence[int]], heads: int) -> list[int]:
    """The toolkit mates of each ranking's first ``heads`` tools, as one ranking.

    Toolkit by toolkit (the best head's first): the mates some ranking holds, in the
    rankings' order, then the rest of the toolkit in registration order.
    """
    keys = kits.keys
    found: list[str] = []
    for ranking in rankings:
        for i in ranking[:heads]:
            key = keys[i]
            if key is not None and key not in found:
                found.append(key)
    out: dict[int, None] = {}
    for kit in found:
        out.update((i, None) for ranking in rankings for i in ranking if keys[i] == kit)
        out.update((i, None) for i in kits.members[kit])
    return list(out)


def needed_entities(tool: Tool, required: Sequence[str]) -> list[tuple[str, ...]]:
    """The entities whose ids ``tool`` needs, as name terms (``movie_id`` -> ``("movie",)``).

    A bare ``id`` names the entity before ``id`` in the tool's name (``/albums/{id}``), if any.
    """
    out: list[tuple[str, ...]] = []
    for parameter in required:
        match = _ID.match(parameter)
        if match is None:
            continue
        entity = identifier_terms(match.group(1)) if match.group(1) else ()
        if not entity:
            name = tokenize(tool.metadata.display_name or tool.name)
            at = name.index("id") if "id" in name else -1
            entity = (name[at - 1],) if at > 0 else ()
        if entity and entity not in out:
            out.append(entity)
    return out


def finder_query(entity: Sequence[str]) -> str:
    """The query whose best match, among tools not needing the entity's id, finds it."""
    return " ".join(("search", *entity))


def required_parameters(schema: Any) -> list[str]:
    """The names a parameters schema requires (none when it is not a schema object)."""
    if not isinstance(schema, dict):
        return []
    required = schema.get("required")
    return [str(name) for name in required] if isinstance(required, list) else []


def id_given(query: str, entity: Sequence[str]) -> bool:
    """Whether the request gives the entity's id itself: it says "id", or a word of the
    entity is followed by a value holding a digit (``customer C879L9``, ``ID 18``)."""
    spelled = _WORDS.findall(query.casefold())
    if "id" in spelled or "ids" in spelled:
        return True
    return any(
        any(c.isdigit() for c in following) and not set(entity).isdisjoint(tokenize(word))
        for word, following in pairwise(spelled)
    )


def finders(
    top: Sequence[int],
    needs: Callable[[int], list[tuple[str, ...]]],
    fits: Callable[[int, int, tuple[str, ...]], bool],
    rank: Callable[[str], list[int]],
) -> list[int]:
    """For each tool of ``top`` needing an entity's id, the tool that finds that entity: the
    best match of `finder_query` that ``fits(needing, candidate, entity)``."""
    out: list[int] = []
    for i in top:
        for entity in needs(i):
            for j in rank(finder_query(entity)):
                if j != i and fits(i, j, entity) and entity not in needs(j):
                    if j not in out:
                        out.append(j)
                    break
    return out
