"""The one rule that turns a tool's output into JSON for a provider.

Tool outputs are sent to models as JSON (or as text, for a ``str``). Values JSON cannot
hold are converted by `to_jsonable`, always the same way:

============================================  =========================================
value                                         becomes
============================================  =========================================
``None``, ``bool``, ``int``, ``str``          itself (``str`` subclasses: plain ``str``)
``float``                                     itself; NaN and ±infinity as the strings
                                              ``"NaN"``, ``"Infinity"``, ``"-Infinity"``
``Enum`` member                               its ``value``, converted
mapping                                       object; non-string keys become strings
                                              (their JSON text: ``1`` → ``"1"``)
``list``, ``tuple``, other sequences,         array
generators
``NamedTuple``                                object of its fields
``set``, ``frozenset``                        array, sorted by each item's JSON text (so the
                                              output does not depend on hash order)
``bytes``, ``bytearray``, ``memoryview``      the text, if it is UTF-8; otherwise standard
                                              base64 (padded)
``datetime``, ``date``, ``time``              ISO 8601 text (``isoformat()``)
``timedelta``                                 seconds, as a number
``Decimal``                                   its exact text (``"1.10"``)
``UUID``, paths, IP addresses, other values   ``str(value)``
pydantic model                                ``model_dump(mode="json")``, converted
dataclass instance                            object of its fields, converted
a value already being converted (a cycle)     the string ``"<circular reference>"``
============================================  =========================================
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import json
import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

__all__ = ["dumps", "to_jsonable"]

_CYCLE = "<circular reference>"


def to_jsonable(value: Any) -> Any:
    """Return ``value`` as plain JSON data (dict, list, str, int, float, bool, None).

    >>> import datetime
    >>> to_jsonable({"when": datetime.date(2024, 5, 1), "tags": {"b", "a"}, "raw": b"hi"})
    {'when': '2024-05-01', 'tags': ['a', 'b'], 'raw': 'hi'}
    """
    return _convert(value, set())


def dumps(value: Any) -> str:
    """``value`` converted by `to_jsonable`, as compact JSON text (non-ASCII kept)."""
    return json.dumps(to_jsonable(value), ensure_ascii=False, separators=(",", ":"))


def _convert(value: Any, active: set[int]) -> Any:
    kind = type(value)
    if kind in (str, int, bool) or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else _float_text(value)
    if isinstance(value, enum.Enum):
        return _convert(value.value, active)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _convert(float(value), active)
    if isinstance(value, bytes | bytearray | memoryview):
        return _bytes(bytes(value))
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, Decimal):
        return str(value)
    return _container(value, active)


def _container(value: Any, active: set[int]) -> Any:
    marker = id(value)
    if marker in active:
        return _CYCLE
    active.add(marker)
    try:
        return _convert_container(value, active)
    finally:
        active.discard(marker)


def _convert_container(value: Any, active: set[int]) -> Any:
    if isinstance(value, Mapping):
        return {_key(k, active): _convert(v, active) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: _convert(v, active) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_convert(v, active) for v in value]
    if isinstance(value, set | frozenset):
        converted = [_convert(v, active) for v in value]
        return sorted(converted, key=lambda v: json.dumps(v, sort_keys=True))
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return _convert(dump(mode="json"), active)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _convert(getattr(value, f.name), active) for f in dataclasses.fields(value)}
    if isinstance(value, Iterable) and not isinstance(value, type):
        return [_convert(v, active) for v in value]
    return str(value)


def _key(key: Any, active: set[int]) -> str:
    if isinstance(key, str):
        return str(key)
    converted = _convert(key, active)
    return converted if isinstance(converted, str) else json.dumps(converted)


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def _bytes(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return base64.b64encode(data).decode("ascii")
