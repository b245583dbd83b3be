"""Output schemas from return annotations, and the option that sets them."""

from __future__ import annotations

import dataclasses
import enum
import logging
from collections.abc import Awaitable, Coroutine
from pathlib import Path
from typing import (
    Annotated,
    Any,
    ClassVar,
    Generic,
    Literal,
    NamedTuple,
    NotRequired,
    TypedDict,
    TypeVar,
)

import jsonschema_rs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from forge.core.errors import ToolDefinitionError
from forge.tools import ToolRegistry, ToolResult, create_tool, from_record, tool
from forge.tools.formats.mcp import wrap_output, wrap_output_schema
from forge.tools.values.readonly import thaw

T = TypeVar("T")


class Weather(BaseModel):
    """The weather in a city."""

    model_config = ConfigDict(populate_by_name=True)

    city: str
    temp_c: float = Field(alias="tempC")


class Totals(TypedDict):
    count: int
    note: NotRequired[str]


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Pair(NamedTuple):
    left: int
    right: str


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Page(BaseModel, Generic[T]):
    items: list[T]


class Node(BaseModel):
    kids: list[Node] = []


WEATHER = {
    "type": "object",
    "title": "Weather",
    "description": "The weather in a city.",
    "properties": {"city": {"type": "string"}, "tempC": {"type": "number"}},
    "required": ["city", "tempC"],
}


def returns_int() -> int:
    return 3


def returns_str() -> str:
    return "hi"


def returns_model() -> Weather:
    return Weather(city="Paris", tempC=21.5)


def returns_typeddict() -> Totals:
    return {"count": 2}


def returns_dataclass() -> Point:
    return Point(1, 2)


def returns_list() -> list[Weather]:
    return [returns_model()]


def returns_dict() -> dict[str, int]:
    return {"a": 1}


def returns_optional() -> Weather | None:
    return None


def returns_annotated() -> Annotated[int, Field(ge=0, description="How many.")]:
    return 1


async def returns_async() -> int:
    return 3


def returns_awaitable() -> Awaitable[str]:
    return _text()


def returns_coroutine() -> Coroutine[Any, Any, list[int]]:
    return _numbers()


async def _text() -> str:
    return "later"


async def _numbers() -> list[int]:
    return [1, 2]


def returns_generic() -> Page[int]:
    return Page[int](items=[1])


def returns_recursive() -> Node:
    return Node(kids=[Node()])


def returns_named_tuple() -> Pair:
    return Pair(1, "a")


def returns_literal() -> Literal["a", "b"]:
    return "a"


def returns_enum() -> Color:
    return Color.RED


SCHEMAS: dict[Any, dict[str, Any]] = {
    returns_int: {"type": "integer"},
    returns_str: {"type": "string"},
    returns_model: WEATHER,
    returns_typeddict: {
        "type": "object",
        "title": "Totals",
        "properties": {"count": {"type": "integer"}, "note": {"type": "string"}},
        "required": ["count"],
    },
    returns_dataclass: {
        "type": "object",
        "title": "Point",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
        "required": ["x"],
    },
    returns_list: {
        "type": "array",
        "items": {"$ref": "#/$defs/Weather"},
        "$defs": {"Weather": WEATHER},
    },
    returns_dict: {"type": "object", "additionalProperties": {"type": "integer"}},
    returns_optional: {
        "anyOf": [{"$ref": "#/$defs/Weather"}, {"type": "null"}],
        "$defs": {"Weather": WEATHER},
    },
    returns_annotated: {"type": "integer", "minimum": 0, "description": "How many."},
    returns_async: {"type": "integer"},
    returns_awaitable: {"type": "string"},
    returns_coroutine: {"type": "array", "items": {"type": "integer"}},
    returns_generic: {
        "type": "object",
        "title": "Page[int]",
        "properties": {"items": {"type": "array", "items": {"type": "integer"}}},
        "required": ["items"],
    },
    returns_named_tuple: {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
    },
    returns_literal: {"type": "string", "enum": ["a", "b"]},
    returns_enum: {
        "type": "string",
        "enum": ["red", "blue"],
        "title": "Color",
    },
}


@pytest.mark.parametrize("fn", list(SCHEMAS), ids=lambda fn: fn.__name__)
def test_a_typed_return_gives_an_output_schema(fn: Any) -> None:
    """Each kind of return annotation gives pydantic's serialization schema (no field titles)."""
    assert tool(fn).output_schema == SCHEMAS[fn]


def test_a_recursive_model_keeps_an_object_root() -> None:
    """The root $ref of a recursive model is inlined, so the schema is still an object."""
    schema = tool(returns_recursive).output_schema
    assert schema is not None
    assert schema["type"] == "object"
    assert schema["properties"]["kids"]["items"] == {"$ref": "#/$defs/Node"}
    assert "Node" in schema["$defs"]


def unannotated():  # type: ignore[no-untyped-def]
    return 1


def returns_none() -> None:
    return None


def returns_any() -> Any:
    return 1


def returns_object() -> object:
    return 1


def returns_typevar(value: T) -> T:
    return value


def returns_bytes() -> bytes:
    return b"\x89PNG"


def returns_path() -> Path:
    return Path("report.pdf")


def returns_result() -> ToolResult:
    return ToolResult.ok(1)


def returns_list_of_bytes() -> list[bytes]:
    return [b"a"]


class Opaque:
    """A class pydantic cannot describe."""


def returns_opaque() -> Opaque:
    return Opaque()


class UnsendableDefault(BaseModel):
    """A default pydantic cannot show in JSON Schema (it would only warn)."""

    when: Any = object()


def returns_unsendable() -> UnsendableDefault:
    return UnsendableDefault()


def returns_unresolvable() -> Missing:  # type: ignore[name-defined]  # noqa: F821
    return None


NO_SCHEMA = [
    unannotated, returns_none, returns_any, returns_object, returns_typevar, returns_bytes,
    returns_path, returns_result, returns_list_of_bytes, returns_opaque, returns_unsendable,
]  # fmt: skip


@pytest.mark.parametrize("fn", NO_SCHEMA, ids=lambda fn: fn.__name__)
def test_returns_that_describe_no_data_give_no_schema(fn: Any) -> None:
    """No annotation, None, Any, object, a bare TypeVar, content (bytes, paths, results)
    and types pydantic cannot describe give no output schema, and the tool still works."""
    made = tool(fn)
    assert made.output_schema is None
    assert "output_schema" not in made.to_dict()


def test_an_inexpressible_return_type_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """Why a return type gave no schema is logged, naming the tool and the type."""
    with caplog.at_level(logging.INFO):
        assert tool(returns_opaque).output_schema is None
    assert "'returns_opaque'" in caplog.text
    assert "Opaque" in caplog.text


@pytest.mark.parametrize("fn", [returns_opaque, returns_none, unannotated, returns_bytes])
def test_required_output_schema_fails_at_definition(fn: Any) -> None:
    """output_schema=True is checked at once: a return that gives none is a definition error."""
    with pytest.raises(ToolDefinitionError, match="output_schema=True needs a return type"):
        tool(output_schema=True)(fn)


def test_an_unresolvable_return_annotation_is_named_when_required() -> None:
    """output_schema=True on a return annotation that cannot be resolved says so."""
    with pytest.raises(ToolDefinitionError, match=r"cannot be resolved.*Missing"):
        tool(output_schema=True)(returns_unresolvable)


class Entry(TypedDict):
    """A standard-library TypedDict, which pydantic takes only from Python 3.12 on its own."""

    key: str


def returns_entries() -> list[Entry] | None:
    return [{"key": "a"}]


def returns_annotated_entry() -> Annotated[Entry, Field(description="One entry.")]:
    return {"key": "a"}


def returns_mapping_of_entries() -> dict[str, tuple[Entry, int]]:
    return {"a": ({"key": "a"}, 1)}


ENTRY = {"type": "object", "title": "Entry", "description": Entry.__doc__,
         "properties": {"key": {"type": "string"}}, "required": ["key"]}  # fmt: skip


@pytest.mark.parametrize(
    ("fn", "path"),
    [
        (returns_entries, ("anyOf", 0, "items")),
        (returns_annotated_entry, ()),
        (returns_mapping_of_entries, ("additionalProperties", "prefixItems", 0)),
    ],
)
def test_standard_typeddicts_work_inside_other_types(fn: Any, path: tuple[Any, ...]) -> None:
    """A typing.TypedDict inside a union, a list, Annotated, a dict or a tuple gives its schema."""
    schema: Any = tool(fn).output_schema
    for step in path:
        schema = schema[step]
    if "$ref" in schema:
        schema = tool(fn).output_schema["$defs"]["Entry"]  # type: ignore[index]
    else:
        schema = {k: v for k, v in schema.items() if k != "$defs"}
        schema.pop("description", None)
        schema["description"] = Entry.__doc__
    assert schema == ENTRY


def test_required_output_schema_of_a_typed_return() -> None:
    """output_schema=True with a typed return is the inferred schema."""
    assert tool(output_schema=True)(returns_int).output_schema == {"type": "integer"}


def test_the_option_turns_it_off_or_replaces_it() -> None:
    """output_schema=False: none; a dict: that schema (checked); replace(None) removes it."""
    assert tool(output_schema=False)(returns_model).output_schema is None
    declared = {"type": "object", "properties": {"n": {"type": "integer"}}}
    made = tool(output_schema=declared)(returns_model)
    assert made.output_schema == declared
    assert tool(returns_int).replace(output_schema=None).output_schema is None
    assert tool(returns_int).replace(output_schema=declared).output_schema == declared


@pytest.mark.parametrize(
    ("value", "fragment"),
    [(5, "got int"), ("object", "got str"), ({"type": 5}, "")],
)
def test_a_bad_option_value_is_a_definition_error(value: Any, fragment: str) -> None:
    """Anything but a valid JSON Schema object or a bool is rejected, naming the tool."""
    with pytest.raises(ToolDefinitionError, match=f"{fragment}.*'returns_int'"):
        tool(output_schema=value)(returns_int)


def test_a_record_cannot_require_an_inferred_schema() -> None:
    """A record has no return annotation: output_schema=True says to pass the schema."""
    with pytest.raises(ToolDefinitionError, match="pass the output JSON Schema"):
        from_record({"name": "r", "description": "R.", "handler": returns_int,
                     "output_schema": True})  # fmt: skip


def test_records_do_not_infer_from_their_handler() -> None:
    """A record's schemas are the ones it declares; its handler's annotation is not read."""
    made = from_record({"name": "r", "description": "R.", "handler": returns_int})
    assert made.output_schema is None


def test_every_typed_style_infers() -> None:
    """The builder (with or without a model schema) reads the handler's annotation too."""

    def by_model(params: Weather) -> int:
        return 1

    built = create_tool().name("b").description("B.").category("web").implement(returns_list)
    with_model = (
        create_tool()
        .name("m")
        .description("M.")
        .category("web")
        .schema(Weather)
        .implement(by_model)
    )
    assert built.build().output_schema == SCHEMAS[returns_list]
    assert with_model.build().output_schema == {"type": "integer"}


class Counted(BaseModel):
    """Counts how often its JSON Schema is built."""

    built: ClassVar[int] = 0
    value: int

    @classmethod
    def __get_pydantic_json_schema__(cls, core: Any, handler: Any) -> Any:
        Counted.built += 1
        return handler(core)


def returns_counted() -> Counted:
    return Counted(value=1)


def test_the_schema_is_built_on_first_read_only() -> None:
    """Registering a tool does not build its output schema; the first read does, once."""
    Counted.built = 0
    registry = ToolRegistry([tool(returns_counted)])
    assert registry.execute("returns_counted", {}).output == Counted(value=1)
    assert Counted.built == 0
    made = registry.get_or_raise("returns_counted")
    assert made.output_schema == made.output_schema
    assert Counted.built == 1


def test_outputs_stay_python_values_in_python() -> None:
    """Executing a typed tool returns the handler's value as is, not its JSON."""
    registry = ToolRegistry([tool(returns_model), tool(returns_dataclass)])
    assert registry.execute("returns_model", {}).output == returns_model()
    assert registry.execute("returns_dataclass", {}).output == Point(1, 2)


def test_dump_output_follows_the_return_type() -> None:
    """The JSON form of an output uses the return type's serializer: aliases, tuples, enums."""
    assert tool(returns_model).dump_output(returns_model()) == {"city": "Paris", "tempC": 21.5}
    assert tool(returns_named_tuple).dump_output(Pair(1, "a")) == [1, "a"]
    assert tool(returns_enum).dump_output(Color.BLUE) == "blue"


def test_dump_output_never_makes_invalid_json() -> None:
    """A non-finite float becomes text (which the schema check then rejects), never ``inf``."""
    dumped = tool(returns_model).dump_output(Weather(city="x", tempC=float("inf")))
    assert dumped == {"city": "x", "tempC": "Infinity"}


def test_dump_output_leaves_another_type_for_the_schema_check() -> None:
    """A value of another type is converted as usual, not coerced: the check then judges it."""
    assert tool(returns_int).dump_output("3") == "3"
    assert tool(returns_model).dump_output({"city": "Oslo", "tempC": 2}) == {
        "city": "Oslo",
        "tempC": 2,
    }


# -- property: every value of a type dumps to JSON its schema accepts -------------------------

LEAVES: list[tuple[Any, st.SearchStrategy[Any]]] = [
    (int, st.integers()),
    (str, st.text()),
    (bool, st.booleans()),
    (float, st.floats(allow_nan=False, allow_infinity=False)),
    (
        Weather,
        st.builds(Weather, city=st.text(), tempC=st.floats(allow_nan=False, allow_infinity=False)),
    ),
    (Point, st.builds(Point, x=st.integers(), y=st.integers())),
]


def _typed(depth: int) -> st.SearchStrategy[tuple[Any, st.SearchStrategy[Any]]]:
    leaves = st.sampled_from(LEAVES)
    if depth == 0:
        return leaves
    inner = _typed(depth - 1)
    return st.one_of(
        leaves,
        inner.map(lambda t: (list[t[0]], st.lists(t[1], max_size=3))),  # type: ignore[valid-type]
        inner.map(lambda t: (dict[str, t[0]], st.dictionaries(st.text(), t[1], max_size=3))),  # type: ignore[valid-type]
        inner.map(lambda t: (t[0] | None, st.none() | t[1])),
    )


@given(data=st.data(), typed=_typed(2))
def test_dumped_outputs_match_their_schema_wrapped_or_not(
    data: st.DataObject, typed: tuple[Any, st.SearchStrategy[Any]]
) -> None:
    """For any value of a return type, its dump is valid against the schema, and wrapped
    as MCP sends it, against the wrapped schema."""
    annotation, values = typed

    def handler() -> Any:
        return None

    handler.__annotations__ = {"return": annotation}
    made = tool(handler)
    schema = made.output_schema
    assert schema is not None
    value = data.draw(values)
    dumped = made.dump_output(value)
    assert jsonschema_rs.validator_for(thaw(schema)).is_valid(dumped)
    wrapped = thaw(wrap_output_schema(schema))
    assert jsonschema_rs.validator_for(wrapped).is_valid(wrap_output(dumped))
