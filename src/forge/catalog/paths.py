"""Field paths of validation errors: the validator's dotted text to segments, and back to text.

The validators name a bad field with a dotted path (``items.0.id``), which is ambiguous
when a key holds a dot or is made of digits. `split_path` resolves it against the
arguments that were checked: at an object the longest key present wins, at an array a
number is an index. `format_field` writes segments as ``items[0].id`` (a key that is not
an identifier as ``["a.b"]``) and `parse_field` reads that back exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Segment", "format_field", "parse_field", "split_path"]

Segment = str | int
"""An object key or an array index."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INDEX = re.compile(r"\[(0|[1-9][0-9]*)\]")
_QUOTED = re.compile(r'\[("(?:[^"\\]|\\.)*")\]')


def split_path(path: str, arguments: Any) -> list[Segment]:
    """Split a validator's dotted ``path`` into keys and indexes, guided by ``arguments``.

    Past what the arguments hold (a missing field), the rest is split on dots.

    >>> split_path("items.0.id", {"items": [{"id": "x"}]})
    ['items', 0, 'id']
    >>> split_path("a.b.c", {"a.b": {"c": 1}})
    ['a.b', 'c']
    """
    out: list[Segment] = []
    if path == "":
        return out
    current = arguments
    rest: str | None = path
    while rest is not None:
        if isinstance(current, list | tuple):
            head, dot, tail = rest.partition(".")
            if head.isdigit() and head.isascii() and int(head) < len(current):
                out.append(int(head))
                current, rest = current[int(head)], (tail if dot else None)
                continue
        elif isinstance(current, Mapping):
            key = _longest_key(current, rest)
            if key is not None:
                out.append(key)
                current = current[key]
                rest = rest[len(key) + 1 :] if len(rest) > len(key) else None
                continue
        out.extend(rest.split("."))
        break
    return out


def _longest_key(obj: Mapping[Any, Any], rest: str) -> str | None:
    """The longest string key of ``obj`` that ``rest`` starts with as a whole segment."""
    found: str | None = None
    for key in obj:
        if not isinstance(key, str) or (found is not None and len(key) <= len(found)):
            continue
        if rest == key or rest.startswith(key + "."):
            found = key
    return found


def format_field(path: Sequence[Segment]) -> str:
    """Segments as one field name: ``a[0].b``, ``["odd key"]``; ``""`` for the whole input.

    >>> format_field(["items", 0, "id"])
    'items[0].id'
    >>> format_field(["a.b", "c d"])
    '["a.b"]["c d"]'
    """
    parts: list[str] = []
    for segment in path:
        if isinstance(segment, int):
            parts.append(f"[{segment}]")
        elif _IDENTIFIER.fullmatch(segment):
            parts.append(f".{segment}" if parts else segment)
        else:
            parts.append(f"[{json.dumps(segment, ensure_ascii=False)}]")
    return "".join(parts)


def parse_field(field: str) -> list[Segment]:
    """Read a field name written by `format_field` back into its segments.

    Raises:
        ValueError: ``field`` is not in that form, naming the position.
    """
    out: list[Segment] = []
    at = 0
    while at < len(field):
        if field.startswith("[", at):
            bracket = _INDEX.match(field, at) or _QUOTED.match(field, at)
            if bracket is None:
                raise ValueError(f'bad field name {field!r} at {at}: expected [index] or ["key"]')
            inside = bracket.group(1)
            out.append(json.loads(inside) if inside.startswith('"') else int(inside))
            at = bracket.end()
            continue
        start = at + 1 if out and field.startswith(".", at) else at
        if out and start == at:
            raise ValueError(f"bad field name {field!r} at {at}: expected '.', '[' or the end")
        name = _IDENTIFIER.match(field, start)
        if name is None:
            raise ValueError(f"bad field name {field!r} at {start}: expected a key")
        out.append(name.group(0))
        at = name.end()
    return out
