"""The one documented rule for outputs JSON cannot hold."""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import enum
import json
import math
import uuid
from decimal import Decimal
from pathlib import PurePosixPath
from typing import Any, NamedTuple

import pytest
from pydantic import BaseModel

from forge.tools.values.jsonable import dumps, to_jsonable


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Pair(NamedTuple):
    left: int
    right: int


@dataclasses.dataclass
class Inner:
    when: dt.datetime
    data: bytes


class Model(BaseModel):
    name: str
    inner: list[int]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (True, True),
        (3, 3),
        (1.5, 1.5),
        ("x", "x"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (Colour.RED, "red"),
        (Level.HIGH, 3),
        ({1: "a", None: "b", 2.5: "c"}, {"1": "a", "null": "b", "2.5": "c"}),
        ((1, 2), [1, 2]),
        (Pair(1, 2), {"left": 1, "right": 2}),
        ({"b", "a", "c"}, ["a", "b", "c"]),
        (frozenset({3, 1}), [1, 3]),
        (b"hello", "hello"),
        (b"\x00\xff", "AP8="),
        (bytearray(b"hi"), "hi"),
        (memoryview(b"hi"), "hi"),
        (dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.UTC), "2024-05-01T12:30:00+00:00"),
        (dt.date(2024, 5, 1), "2024-05-01"),
        (dt.time(8, 15), "08:15:00"),
        (dt.timedelta(minutes=1, milliseconds=500), 60.5),
        (Decimal("1.10"), "1.10"),
        (uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
        (PurePosixPath("/tmp/x"), "/tmp/x"),
        (Model(name="n", inner=[1]), {"name": "n", "inner": [1]}),
        (
            Inner(dt.datetime(2024, 1, 1), b"x"),
            {"when": "2024-01-01T00:00:00", "data": "x"},
        ),
        (collections.deque([1, 2]), [1, 2]),
        ((i for i in range(3)), [0, 1, 2]),
        (collections.OrderedDict(a=1), {"a": 1}),
    ],
)
def test_conversion_rule(value: Any, expected: Any) -> None:
    """Each kind of value converts the one documented way."""
    assert to_jsonable(value) == expected


def test_sets_do_not_depend_on_hash_order() -> None:
    """Sets of mixed values come out in one order (by their JSON text)."""
    assert to_jsonable({"b", 1, None}) == to_jsonable({None, 1, "b"}) == ["b", 1, None]


def test_cycles_are_cut() -> None:
    """A value that contains itself does not recurse forever."""
    value: list[Any] = [1]
    value.append(value)
    assert to_jsonable(value) == [1, "<circular reference>"]


def test_nested_values_convert_at_every_depth() -> None:
    """Conversion reaches inside containers, and the result is strict JSON."""
    value = {"a": [{"b": {1, 2}}, (Colour.RED, math.nan)], "c": {"d": b"\xff"}}
    text = dumps(value)
    assert json.loads(text) == {"a": [{"b": [1, 2]}, ["red", "NaN"]], "c": {"d": "/w=="}}
    assert "NaN" not in text.replace('"NaN"', "")


def test_dumps_keeps_non_ascii() -> None:
    """Text is sent as it is, not escaped to ASCII."""
    assert dumps({"city": "Zürich"}) == '{"city":"Zürich"}'


def test_docstring_examples() -> None:
    """The examples in the modules' docstrings hold."""
    import doctest

    import forge.tools.parsing
    import forge.tools.replies
    import forge.tools.streaming
    import forge.tools.values._repair
    import forge.tools.values.jsonable

    for module in (
        forge.tools.values.jsonable, forge.tools.values._repair, forge.tools.parsing,
        forge.tools.replies, forge.tools.streaming,
    ):  # fmt: skip
        result = doctest.testmod(module, extraglobs={"ToolResult": forge.tools.ToolResult})
        assert result.failed == 0, module.__name__
