"""Arguments that arrive in pieces: Vertex AI's ``functionCall.partialArgs``.

With ``streamFunctionCallArguments`` on, Vertex AI streams one call over several chunks.
Each piece names where its value goes with a JSONPath (RFC 9535, ``$.a.b[0]``) and holds
one scalar: ``stringValue``, ``numberValue``, ``boolValue`` or ``nullValue``. A string
may come in several pieces for the same path (``willContinue`` on all but the last); they
are joined. Containers are made as the paths go through them. `PartialArguments` builds
the object; wire (camelCase) and SDK (snake_case) spellings are both read.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Any

from forge.core.text import shown
from forge.tools.parsing._common import ToolCallFormatError, field

__all__ = ["PartialArguments", "parse_json_path"]

#: Deepest nesting and largest array index a path may ask for (a hostile stream must
#: not make us build a huge structure).
MAX_DEPTH = 128
MAX_INDEX = 100_000

Segment = str | int

_SHORTHAND = re.compile(r"\.([^.\[\]]+)")
_INDEX = re.compile(r"\[\s*(0|[1-9][0-9]*)\s*\]")
_QUOTED = re.compile(r"""\[\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]""", re.DOTALL)
_ESCAPE = re.compile(
    r"\\(u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)", re.DOTALL
)
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\"}


def parse_json_path(path: Any) -> tuple[Segment, ...]:
    """The member names and array indexes of a singular JSONPath such as ``$.a['b c'][0]``.

    Raises:
        ToolCallFormatError: ``path`` is not text, does not start at ``$``, or uses a
            selector that can match several places (wildcards, slices, filters, ``..``).
    """
    if not isinstance(path, str) or not path.startswith("$"):
        raise ToolCallFormatError(
            f"partialArgs jsonPath must be JSONPath text starting with '$', got {shown(path, 100)}"
        )
    segments: list[Segment] = []
    at = 1
    while at < len(path):
        if match := _SHORTHAND.match(path, at):
            name = match.group(1)
            if name == "*":
                raise _unsupported(path)
            segments.append(name)
        elif match := _INDEX.match(path, at):
            segments.append(int(match.group(1)))
        elif match := _QUOTED.match(path, at):
            quoted = match.group(1) if match.group(1) is not None else match.group(2)
            segments.append(_unescape(quoted))
        else:
            raise _unsupported(path)
        at = match.end()
    return tuple(segments)


def _unsupported(path: str) -> ToolCallFormatError:
    return ToolCallFormatError(
        f"partialArgs jsonPath {shown(path, 200)} is not a path to one value "
        "(expected $ followed by .name, ['name'] or [index] steps)"
    )


def _unescape(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        escape = match.group(1)
        if len(escape) == 11:  # a surrogate pair, as in uD83D\uDE00
            high, low = int(escape[1:5], 16), int(escape[7:], 16)
            return chr(0x10000 + ((high - 0xD800) << 10) + low - 0xDC00)
        if len(escape) == 5:
            return chr(int(escape[1:], 16))
        return _ESCAPES.get(escape, escape)

    return _ESCAPE.sub(replace, text)


class _Text:
    """A string value still arriving in pieces (joined when the arguments are built)."""

    __slots__ = ("pieces",)

    def __init__(self, piece: str) -> None:
        self.pieces = [piece]


class PartialArguments:
    """The arguments of one call, assembled from its ``partialArgs`` pieces."""

    def __init__(self) -> None:
        self._root: dict[str, Any] = {}

    def add(self, piece: Any) -> None:
        """Put one ``PartialArg`` (dict or SDK object) where its ``jsonPath`` says.

        Raises:
            ToolCallFormatError: The path is malformed, goes through a value that is not
                a container of the right kind, or the value has the wrong type.
        """
        path = field(piece, "jsonPath", "json_path")
        segments = parse_json_path(path)
        if not segments or not isinstance(segments[0], str):
            raise ToolCallFormatError(
                f"partialArgs jsonPath {shown(path, 100)} must start with a member of the "
                "arguments object ($.name or $['name'])"
            )
        if len(segments) > MAX_DEPTH:
            raise ToolCallFormatError(
                f"partialArgs jsonPath {shown(path, 100)} is nested deeper than {MAX_DEPTH} levels"
            )
        found, value = _value(piece, path)
        if not found:
            return  # a piece announcing a value without one carries nothing to place
        parent = self._container(segments, path)
        key = segments[-1]
        current = _get(parent, key)
        if isinstance(value, str):
            if isinstance(current, _Text):
                current.pieces.append(value)
                return
            value = _Text(value)
        _put(parent, key, value, path)

    def update(self, args: Any) -> None:
        """Take members sent whole (``args``) alongside the pieces."""
        if not isinstance(args, Mapping):
            raise ToolCallFormatError(
                f"functionCall args must be an object, got {type(args).__name__}"
            )
        self._root.update(_finished(dict(args)))  # a copy: pieces must not change the caller's

    def build(self) -> dict[str, Any]:
        """The arguments, with every string's pieces joined."""
        return _finished(self._root)

    def _container(self, segments: tuple[Segment, ...], path: str) -> Any:
        node: Any = self._root
        for depth, (key, after) in enumerate(itertools.pairwise(segments)):
            child = _get(node, key)
            wanted = list if isinstance(after, int) else dict
            if child is None:
                child = wanted()
                _put(node, key, child, path)
            elif type(child) is not wanted:
                kind = "an array" if wanted is list else "an object"
                raise ToolCallFormatError(
                    f"partialArgs jsonPath {shown(path, 200)} goes through "
                    f"{_render(segments[: depth + 1])}, which already holds "
                    f"{_kind(child)}, not {kind}"
                )
            node = child
        return node


def _value(piece: Any, path: str) -> tuple[bool, Any]:
    """``(True, value)`` for the piece's one scalar, ``(False, None)`` if it has none."""
    text = field(piece, "stringValue", "string_value")
    if text is not None:
        if not isinstance(text, str):
            raise _wrong(path, "stringValue", text)
        return True, text
    number = field(piece, "numberValue", "number_value")
    if number is not None:
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise _wrong(path, "numberValue", number)
        if isinstance(number, float) and number.is_integer() and abs(number) <= 2**53:
            return True, int(number)  # a protobuf double: 3.0 on the SDK object, 3 on the wire
        return True, number
    flag = field(piece, "boolValue", "bool_value")
    if flag is not None:
        if not isinstance(flag, bool):
            raise _wrong(path, "boolValue", flag)
        return True, flag
    return _null(piece), None


def _null(piece: Any) -> bool:
    """Whether the piece is a null (``nullValue`` is JSON ``null`` on the wire)."""
    if isinstance(piece, Mapping):
        return "nullValue" in piece or "null_value" in piece
    if field(piece, "null_value") is not None:
        return True
    return "null_value" in (getattr(piece, "model_fields_set", None) or ())


def _wrong(path: str, name: str, value: Any) -> ToolCallFormatError:
    return ToolCallFormatError(
        f"partialArgs piece for {shown(path, 200)} has {name} of type {type(value).__name__}"
    )


def _get(node: Any, key: Segment) -> Any:
    if isinstance(key, int):
        return node[key] if key < len(node) else None
    return node.get(key)


def _put(node: Any, key: Segment, value: Any, path: str) -> None:
    if isinstance(key, str):
        node[key] = value
        return
    if key > MAX_INDEX:
        raise ToolCallFormatError(
            f"partialArgs jsonPath {shown(path, 200)} asks for array index {key} (over {MAX_INDEX})"
        )
    if key >= len(node):
        node.extend([None] * (key + 1 - len(node)))
    node[key] = value


def _finished(root: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``root`` with `_Text` values joined (iterative: paths may nest deep)."""
    out: dict[str, Any] = {}
    stack: list[tuple[Any, Any]] = [(root, out)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, value in pairs:
            if isinstance(value, _Text):
                target[key] = "".join(value.pieces)
            elif isinstance(value, dict | list):
                copy: Any = {} if isinstance(value, dict) else [None] * len(value)
                stack.append((value, copy))
                target[key] = copy
            else:
                target[key] = value
    return out


def _render(segments: tuple[Segment, ...]) -> str:
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in segments)


def _kind(value: Any) -> str:
    if isinstance(value, _Text | str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "null" if value is None else f"a {type(value).__name__}"
