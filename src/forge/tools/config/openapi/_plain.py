"""A parsed document as plain JSON values, within the configuration files' limits.

YAML gives more than JSON holds: integer keys (``200:`` for a response code),
dates, binary and set values, shared (aliased) subtrees, and `Refused` markers
for values the bounded loader would not build. A mapping passed in may hold any
Python object, nest without end or contain itself. `plain` turns all of that
into string-keyed dicts, lists and JSON scalars, or raises `OpenAPIError`
naming the place and the limit, so nothing after it meets a value it cannot walk.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import Any

from forge.tools.config._limits import MAX_ALIAS_NODES, MAX_DEPTH, Refused
from forge.tools.config.openapi._errors import OpenAPIError, pointer

__all__ = ["plain"]

_MAX_INT_BITS = 14_000  # about 4,214 digits: below the 4,300 that int() and str() take


def plain(value: Any, source: str) -> Any:
    """``value`` as JSON values: string keys, lists, finite numbers, valid Unicode.

    A subtree shared by several places (a YAML alias) is converted once; the
    nodes all its uses stand for count against `MAX_ALIAS_NODES`, as aliases in
    configuration files do.

    Raises:
        OpenAPIError: A value JSON cannot hold, nesting past `MAX_DEPTH`, a
            value that contains itself, or shared values past `MAX_ALIAS_NODES`.
    """
    return _Plain(source).convert(value, ())


class _Plain:
    def __init__(self, source: str) -> None:
        self.source = source
        self.done: dict[int, tuple[Any, int]] = {}  # id of a container: (copy, its node count)
        self.open: set[int] = set()
        self.keep: list[Any] = []  # the originals stay alive, so their ids stay unique
        self.shared = 0
        self.size = 0

    def convert(self, value: Any, path: tuple[str, ...]) -> Any:
        if isinstance(value, Mapping | list | tuple):
            return self._container(value, path)
        self.size += 1
        return self._scalar(value, path)

    def _container(self, value: Mapping[Any, Any] | list[Any] | tuple[Any, ...], path: Any) -> Any:
        key = id(value)
        if key in self.done:
            made, size = self.done[key]
            self.shared += size
            if self.shared > MAX_ALIAS_NODES:
                raise self._error(
                    path, f"shared values (YAML aliases) expand to more than "
                    f"{MAX_ALIAS_NODES:,} nodes (the limit); write the values out, or share "
                    "smaller ones",
                )  # fmt: skip
            self.size += size
            return made
        if key in self.open:
            raise self._error(
                path, "the value contains itself (a recursive YAML alias); write it out"
            )
        if len(path) >= MAX_DEPTH:
            raise self._error(
                path, f"the document nests more than {MAX_DEPTH} levels deep (the limit); "
                "flatten it",
            )  # fmt: skip
        self.open.add(key)
        self.keep.append(value)
        before = self.size
        self.size += 1
        if isinstance(value, Mapping):
            copy: Any = self._mapping(value, path)
        else:
            copy = [self.convert(item, (*path, str(i))) for i, item in enumerate(value)]
        self.open.discard(key)
        self.done[key] = (copy, self.size - before)
        return copy

    def _mapping(self, value: Mapping[Any, Any], path: tuple[str, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for raw, item in value.items():
            name = self._key(raw, path)
            if name in out:
                reason = (
                    f"the key {name!r} appears twice (once unquoted in YAML, perhaps); keep one"
                )
                raise self._error((*path, name), reason)
            out[name] = self.convert(item, (*path, name))
        return out

    def _key(self, raw: Any, path: tuple[str, ...]) -> str:
        if isinstance(raw, str):
            return self._text(raw, path)
        if isinstance(raw, bool) or raw is None:
            return {True: "true", False: "false", None: "null"}[raw]
        if isinstance(raw, int | float | datetime.date):
            return str(self._scalar(raw, path))
        raise self._error(path, f"a key is a {type(raw).__name__}; keys must be strings")

    def _scalar(self, value: Any, path: tuple[str, ...]) -> Any:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            if value.bit_length() > _MAX_INT_BITS:
                digits = int(value.bit_length() * math.log10(2))
                raise self._error(
                    path, f"an integer of about {digits} digits is longer than Python reads "
                    "(4300 digits); write it as a string or a smaller number",
                )  # fmt: skip
            return value
        if isinstance(value, str):
            return self._text(value, path)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self._error(path, f"{value} is not a JSON number; use a finite number")
            return value
        if isinstance(value, datetime.date):  # an unquoted YAML date: the text it was
            return value.isoformat()
        if isinstance(value, Refused):
            raise self._error(path, value.reason)
        raise self._error(
            path, f"a {type(value).__name__} value is not JSON (a YAML !!binary or !!set, or "
            "a Python object); write it as a string, list or mapping",
        )  # fmt: skip

    def _text(self, text: str, path: tuple[str, ...]) -> str:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            reason = "a string holds a lone surrogate (not Unicode text); remove it"
            raise self._error(path, reason) from None
        return text

    def _error(self, path: tuple[str, ...], reason: str) -> OpenAPIError:
        return OpenAPIError(self.source, pointer(path), reason)
